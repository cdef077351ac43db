#!/usr/bin/env bash
# The in-process Google Benchmark programs (benchmarks/: sources, resolve, parse and detect) in a
# Release build, each run with 5 repetitions of at least 0.2 s, so that docs/performance.md can quote
# min/median/max per benchmark from the GPU machine beside the CPU machine's. Works on any Linux
# machine with CMake, a C++17 compiler and Google Benchmark; nothing here needs the GPU, but
# sources_bench opens CUDA 13.0's NVRTC and runtime (CUARCH_BENCH_NVRTC / CUARCH_BENCH_CUDART override).
#
#   bash scripts/gpu/bench-on-gpu.sh
#
# Environment:
#   OUT                   results go to $OUT/bench-on-gpu/ (else a temporary directory, printed):
#                         machine.txt, build.log, <program>.json (Google Benchmark's JSON, every
#                         repetition and the aggregates), run.log (the console output) and summary.txt
#                         (min/median/max CPU time over the repetitions, and the counters).
#   CUARCH_BENCH_BUILD    the build directory (default: a temporary one; point it at your own
#                         build-<name> to reuse a build between runs)
#   CUARCH_BENCH_JOBS     parallel build jobs (default: nproc; the shared CPU machine wants 2)
#   CUARCH_BENCH_DEPS     Google Benchmark unpacked with dpkg -x (libbenchmark-dev, libbenchmark1debian)
#                         where the machine lacks it: <dir>/usr goes into CMAKE_PREFIX_PATH and
#                         LD_LIBRARY_PATH. Carry it (git-ignored) to the GPU machine.
#   CUARCH_GPU_DEPS       as in scripts/gpu/all-on-gpu.sh (fmt etc.); only added to CMAKE_PREFIX_PATH: this
#                         build needs no fmt (tests, tools and examples are off), but a prefix that has it
#                         does no harm.
#   CUARCH_BENCH_PROGRAMS the programs to run (default: "sources_bench resolve_bench parse_bench detect_bench")
# Debian's libbenchmark 1.7.1 prints "Library was built as DEBUG" (JSON: library_build_type "debug"): that is
# the harness's own build, not the code measured, which is Release here; the same library on both machines
# keeps the figures comparable.
# Exit status: 0 every program ran, 1 a program failed or reported an error, 2 could not configure or build.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
out="${OUT:+$OUT/bench-on-gpu}"
work="${out:-$(mktemp -d)}"
mkdir -p "$work"
rm -f "$work"/*.json "$work/run.log" "$work/summary.txt"  # a reused OUT: no figures from an earlier run
build="${CUARCH_BENCH_BUILD:-$(mktemp -d)}"
jobs="${CUARCH_BENCH_JOBS:-$(nproc 2>/dev/null || echo 2)}"
read -r -a programs <<<"${CUARCH_BENCH_PROGRAMS:-sources_bench resolve_bench parse_bench detect_bench}"
log() { printf 'bench-on-gpu: %s\n' "$*" | tee -a "$work/summary.txt" >&2; }

prefixes=()
for d in "${CUARCH_BENCH_DEPS:-}" "${CUARCH_GPU_DEPS:-}"; do
  [[ -n "$d" ]] || continue
  d="$(cd "$d" && pwd)" || { log "error: no directory $d"; exit 2; }
  prefixes+=("$d/usr")
  export LD_LIBRARY_PATH="$d/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
prefix_arg=()
if ((${#prefixes[@]})); then
  joined="$(IFS=';'; echo "${prefixes[*]}")"
  prefix_arg=("-DCMAKE_PREFIX_PATH=$joined")
fi

# ---- the machine: the figures mean little without it ----------------------------------------------
cxx="${CXX:-c++}"
{
  echo "== date"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "== uname"; uname -srm
  echo "== nproc"; nproc
  echo "== cpu"; grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'
  echo "== cpu MHz (first 4 cores)"; grep 'cpu MHz' /proc/cpuinfo | head -n 4 | sed 's/.*: //' | tr '\n' ' '; echo
  echo "== governor"; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo "(not readable)"
  echo "== load"; cat /proc/loadavg
  echo "== gpu"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1
  else
    echo "(no nvidia-smi)"
  fi
  echo "== compiler"; "$cxx" --version 2>&1 | head -n 1
  echo "== cmake"; cmake --version 2>&1 | head -n 1
  # What was measured. The device tool's copy of the tree can carry an older .git than its files (seen:
  # HEAD four commits behind, the newer files shown as modified), so the content hash of the code the
  # programs are built from is what matches runs on two machines; the commit is only a hint.
  echo "== source (sha256 of include/ and benchmarks/ sources)"
  find include benchmarks -type f \( -name '*.hpp' -o -name '*.cpp' -o -name CMakeLists.txt \) -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
  echo "== git HEAD (a hint), uncommitted changes under include/ benchmarks/"
  git -C "$root" rev-parse HEAD 2>/dev/null || echo "(no git)"
  git -C "$root" status --short -- include benchmarks 2>/dev/null
} >"$work/machine.txt" 2>&1
cat "$work/machine.txt" >&2

# ---- configure and build: Release, the benchmarks alone (no fmt, Catch2 or CLI11 needed) ----------
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
[[ -f "$build/CMakeCache.txt" ]] && generator=()  # keep the generator an existing build has
log "configuring in $build (${prefixes[*]:-no extra prefix})"
if ! cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCUARCH_BUILD_BENCHMARKS=ON \
     -DCUARCH_BUILD_TESTS=OFF -DCUARCH_BUILD_EXAMPLES=OFF -DCUARCH_BUILD_TOOLS=OFF "${prefix_arg[@]}" \
     >"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  log "error: configure failed (is Google Benchmark there? set CUARCH_BENCH_DEPS)"
  exit 2
fi
grep -i 'benchmark_DIR' "$build/CMakeCache.txt" >>"$work/machine.txt"
log "building ${programs[*]} with $jobs job(s)"
start=$SECONDS
if ! cmake --build "$build" --target "${programs[@]}" -j "$jobs" >>"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  log "error: build failed"
  exit 2
fi
log "built in $((SECONDS - start)) s"

# ---- run -------------------------------------------------------------------------------------------
failed=0
for p in "${programs[@]}"; do
  log "running $p"
  echo "===== $p" >>"$work/run.log"
  exe="$build/benchmarks/$p"  # the top-level build puts them in benchmarks/
  [[ -x "$exe" ]] || exe="$build/$p"
  "$exe" --benchmark_repetitions=5 --benchmark_min_time=0.2 --benchmark_report_aggregates_only=false \
    --benchmark_out="$work/$p.json" --benchmark_out_format=json >>"$work/run.log" 2>&1
  rc=$?
  if [[ $rc != 0 ]]; then
    log "FAIL: $p exited $rc"
    failed=1
  fi
  if grep -q '"error_occurred": true' "$work/$p.json" 2>/dev/null; then
    log "FAIL: $p reported an error (see run.log)"
    failed=1
  fi
done

# ---- summary: min/median/max over the repetitions, from the JSON ---------------------------------
if command -v python3 >/dev/null 2>&1; then
  python3 - "$work" "${programs[@]}" <<'PY' 2>&1 | tee -a "$work/summary.txt" >&2
import json, statistics, sys
work, programs = sys.argv[1], sys.argv[2:]
def fmt(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"
for p in programs:
    try:
        doc = json.load(open(f"{work}/{p}.json"))
    except (OSError, ValueError) as e:
        print(f"== {p}: no JSON ({e})")
        continue
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    runs = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        if b.get("error_occurred"):
            runs.setdefault(b["run_name"], []).append(None)
            continue
        runs.setdefault(b["run_name"], []).append(b)
    print(f"== {p} (CPU time over {max((len(v) for v in runs.values()), default=0)} repetitions: min / median / max)")
    for name, reps in runs.items():
        ok = [r for r in reps if r is not None]
        if not ok:
            print(f"{name:40s} ERROR")
            continue
        t = sorted(r["cpu_time"] * scale[r["time_unit"]] for r in ok)
        line = f"{name:40s} {fmt(t[0]):>10s} {fmt(statistics.median(t)):>10s} {fmt(t[-1]):>10s}"
        for counter in ("allocs", "s_per_token"):
            vals = sorted(r[counter] for r in ok if counter in r)
            if vals:
                shown = [f"{v:g}" if counter == "allocs" else fmt(v) for v in (vals[0], statistics.median(vals), vals[-1])]
                line += f"   {counter} {' / '.join(shown)}"
        print(line)
PY
else
  log "no python3: see the JSON files and run.log"
fi

if [[ $failed == 0 ]]; then
  log "all programs ran (results in $work)"
  exit 0
fi
log "some programs failed (results in $work)"
exit 1
