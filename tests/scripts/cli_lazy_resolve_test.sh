#!/usr/bin/env bash
# `cuarch resolve` asks only what the request needs, and stops at the candidate that governs:
#   - an explicit list compiled by nvcc never loads an NVRTC (one that crashes its loader is on
#     LD_LIBRARY_PATH here) and never runs the hanging nvcc found below the one that governs on PATH;
#   - the NVRTC path (--nvrtc) never runs an nvcc (every nvcc here hangs);
#   - --toolkit needs nothing detected at all (everything here hangs or crashes).
# Environment: CUARCH_CLI, CC or CXX (to build the crashing library; without a compiler those
# cases are skipped), CUARCH_SOURCE_DIR. Exit 77 (skipped) when the command line is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timing_bound.sh"  # prompt_bound_ms: bounds that hold under load
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
nvrtc="${CUARCH_TEST_NVRTC:-/usr/local/cuda/lib64/libnvrtc.so}"
failures=0

# The governing nvcc (fake 12.8) first on PATH; three hanging ones below it.
mkdir -p "$work/good/bin" "$work/lib"
cp "$src/tests/fixtures/fake-nvcc/nvcc-12.8" "$work/good/bin/nvcc"
hang_path=""
for i in 1 2 3; do
  mkdir -p "$work/hang$i/bin"
  printf '#!/bin/sh\nsleep 30\n' >"$work/hang$i/bin/nvcc"
  chmod +x "$work/hang$i/bin/nvcc"
  hang_path="$hang_path:$work/hang$i/bin"
done
compiler="${CC:-${CXX:-}}"
if [[ -z "$compiler" ]]; then for c in cc gcc c++ g++ clang; do command -v "$c" >/dev/null 2>&1 && { compiler="$c"; break; }; done; fi
crashing=0
if [[ -n "$compiler" ]] &&
   printf '#include <signal.h>\n__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }\nint nvrtcVersion(int* a, int* b) { *a = 13; *b = 0; return 0; }\n' |
   "$compiler" -x c -shared -fPIC -o "$work/lib/libnvrtc.so.13" - 2>/dev/null; then
  for n in libnvrtc.so libnvrtc.so.12 libnvrtc.so.11.2; do cp "$work/lib/libnvrtc.so.13" "$work/lib/$n"; done
  crashing=1
fi

# timed WANT_RC MAX_MS WANT_STDOUT ENV... -- ARGS: runs `cuarch resolve ARGS` under ENV.
timed() {
  local want_rc="$1" max_ms want_out="$3"
  max_ms=$(prompt_bound_ms 0 "$2")  # at least MAX_MS; more on a loaded machine
  shift 3
  local -a envs=()
  while [[ "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  local start rc ms
  start=$(date +%s%N)
  { env "${envs[@]}" timeout 60 "$cli" resolve "$@" >"$work/out" 2>"$work/err"; } 2>/dev/null
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  if [[ $rc != "$want_rc" || $ms -ge $max_ms || "$(cat "$work/out")" != "$want_out" ]]; then
    echo "FAIL: cuarch resolve $* -> exit $rc in $ms ms, stdout '$(cat "$work/out")' (want $want_rc in < $max_ms ms, '$want_out')" >&2
    sed 's/^/  stderr: /' "$work/err" >&2
    failures=$((failures + 1))
  else
    echo "ok: cuarch resolve $* -> $rc in $ms ms"
  fi
}

path="$work/good/bin$hang_path:/usr/bin:/bin"
libs=""
[[ $crashing == 1 ]] && libs="$work/lib"
timed 0 3000 "90a-real" PATH="$path" LD_LIBRARY_PATH="$libs" -- --archs 9.0a --format cmake
timed 1 3000 "" PATH="$path" LD_LIBRARY_PATH="$libs" -- --archs 12.0f --format cmake  # nvcc 12.8 decided
timed 0 3000 "90a-real" PATH="$path" LD_LIBRARY_PATH="$libs" -- --nvcc "$work/good/bin/nvcc" --archs 9.0a --format cmake
if [[ -e "$nvrtc" ]]; then
  timed 0 3000 "120f-real" PATH="$work/hang1/bin:/usr/bin:/bin" CUDA_HOME="$work/hang2" -- --nvrtc "$nvrtc" --archs 12.0f --format cmake
fi
timed 0 3000 "90a-real" PATH="$work/hang1/bin:/usr/bin:/bin" CUDA_HOME="$work/hang2" LD_LIBRARY_PATH="$libs" -- --toolkit 13.0 --archs 9.0a --format cmake
timed 0 3000 "90a-real" PATH="$work/hang1/bin:/usr/bin:/bin" CUDA_HOME="$work/hang2" LD_LIBRARY_PATH="$libs" -- --toolkit 13.0 --device-cc 9.0 --format cmake

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed (crashing NVRTC in place: $crashing)" >&2
  exit 1
fi
echo "cli_lazy_resolve_test: all checks passed (crashing NVRTC in place: $crashing)"
