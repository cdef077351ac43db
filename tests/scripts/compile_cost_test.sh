#!/usr/bin/env bash
# Guards what including cuarch costs: the instructions g++ runs for a -fsyntax-only TU with
# <cuarch/cuarch.hpp> (and with <cuarch/detect.hpp>, header-only and compiled mode), as a ratio to
# the same TU without it (<string> <vector> <system_error>), must stay under its budget.
#
# Instructions, counted by valgrind (benchmarks/compile_cost.sh, CUARCH_COMPILE_CLOCK=instructions),
# not seconds: on this shared 2-core machine the CPU time of one TU moved by 20-40 % with the
# neighbours' load (the two cores share their caches and execution units), so the time ratios of
# the same tree measured 3.8-5.2x, 14.2-17.9x and 4.7-6.9x from one run to the next. Each budget
# was raised twice to fit those runs, and CI still failed on one. An instruction count is the same
# in every run, so one measurement decides, without retries, and the test need not run alone.
# Time per instruction is not constant: a larger TU misses the caches more, so the heavy TUs' time
# ratios run above their instruction ratios (detect.hpp: ~13x in instructions, 15-17x in time);
# docs/performance.md gives both.
#
# Budgets, the ones issue 34 set back (before they were raised to fit measurements): the umbrella
# 4.5x, detect.hpp header-only 13x, detect.hpp in compiled mode 6x (its promise: a small fixed
# cost over the pure layers). For scale, in instructions: <functional> (with the <unordered_map> it
# brings), <cmath> and <numeric> together were 1.06x of detect.hpp (removed 2026-12-07); in time,
# <filesystem> was ~5x and g++'s first garbage collection ~3x (docs/performance.md).
# Override with CUARCH_COMPILE_BUDGET_UMBRELLA / _EDGE / _EDGE_COMPILED (e.g. to see it fail).
set -u
root=${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cxx=${CXX:-g++}
command -v "$cxx" >/dev/null || { echo "skipped: no compiler '$cxx'"; exit 77; }
command -v valgrind >/dev/null || { echo "skipped: no valgrind to count instructions (scripts/install-deps.sh installs it)"; exit 77; }
budget_umbrella=${CUARCH_COMPILE_BUDGET_UMBRELLA:-4.5}
budget_edge=${CUARCH_COMPILE_BUDGET_EDGE:-13}
budget_edge_compiled=${CUARCH_COMPILE_BUDGET_EDGE_COMPILED:-6}

out=$(CUARCH_COMPILE_CLOCK=instructions CXX=$cxx bash "$root/benchmarks/compile_cost.sh" 1) ||
  { echo "FAIL: compile_cost.sh failed:"; echo "$out"; exit 1; }
echo "$out"
line=$(grep '^ratio ' <<<"$out" | tail -1)
umbrella=$(sed -n 's/.* umbrella=\([0-9.]*\).*/\1/p' <<<"$line")
edge=$(sed -n 's/.* edge=\([0-9.]*\).*/\1/p' <<<"$line")
edge_compiled=$(sed -n 's/.* edge_compiled=\([0-9.]*\).*/\1/p' <<<"$line")
[[ -n $umbrella && -n $edge && -n $edge_compiled ]] || { echo "FAIL: no ratio line in the output"; exit 1; }

fail=0
check() {  # check <what> <ratio> <budget>
  if awk -v r="$2" -v b="$3" 'BEGIN{exit !(r > b)}'; then
    echo "over: $1 costs ${2}x the baseline TU's instructions, over its budget of ${3}x (see docs/performance.md: what to cut)"
    fail=1
  else
    echo "ok: $1 costs ${2}x the baseline TU's instructions (budget ${3}x)"
  fi
}
check "<cuarch/cuarch.hpp>" "$umbrella" "$budget_umbrella"
check "<cuarch/detect.hpp>" "$edge" "$budget_edge"
check "<cuarch/detect.hpp> in compiled mode" "$edge_compiled" "$budget_edge_compiled"
exit $fail
