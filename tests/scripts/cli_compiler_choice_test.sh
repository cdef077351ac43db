#!/usr/bin/env bash
# `cuarch resolve`: the compiler flags mean what they say, and --timeout bounds detection.
#   --nvrtc PATH alone selects the NVRTC (JIT) path; --nvcc PATH alone the nvcc path; both need
#   --compiler to say which compiles; --compiler contradicting the one path given is a usage error.
#   --timeout SECONDS bounds detection (a hanging nvcc costs about that long, not the 10 s default).
# Uses the fake nvcc 12.8 (tests/fixtures/fake-nvcc) and, when present, the real NVRTC of the CUDA
# toolkit at /usr/local/cuda (CUARCH_TEST_NVRTC overrides the path; without one those cases are skipped).
# Environment: CUARCH_CLI, CUARCH_SOURCE_DIR (default: this checkout). Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timing_bound.sh"  # prompt_bound_ms: bounds that hold under load
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
fake_nvcc="$src/tests/fixtures/fake-nvcc/nvcc-12.8"
nvrtc="${CUARCH_TEST_NVRTC:-/usr/local/cuda/lib64/libnvrtc.so}"
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/  stdout: /' "$work/out" >&2; sed 's/^/  stderr: /' "$work/err" >&2; failures=$((failures + 1)); }
run() { "$cli" resolve "$@" >"$work/out" 2>"$work/err"; }
out_has() { grep -qF -- "$1" "$work/out"; }
err_has() { grep -qF -- "$1" "$work/err"; }

# --nvcc PATH: that nvcc decides (12.8 cannot build the 12.0f family target, can build 9.0a).
run --nvcc "$fake_nvcc" --archs 9.0a --format json
[[ $? == 0 ]] && out_has '"kind":"nvcc"' && out_has '"version":"12.8' || fail "--nvcc PATH: the given nvcc decides"
run --nvcc "$fake_nvcc" --archs 12.0f
[[ $? == 1 ]] && err_has "needs CUDA >= 12.9 (have 12.8)" || fail "--nvcc PATH: nvcc 12.8 cannot build sm_120f"

# --nvrtc PATH alone: the NVRTC path, with no --compiler and no --format nvrtc.
if [[ -e "$nvrtc" ]]; then
  run --nvrtc "$nvrtc" --archs 9.0a --format json
  [[ $? == 0 ]] && out_has '"kind":"NVRTC"' || fail "--nvrtc PATH alone selects the NVRTC path"
  # Even with an nvcc 12.8 in CUDA_HOME, --nvrtc names the compiler: NVRTC 13 builds sm_120f.
  mkdir -p "$work/cuda128/bin" && cp "$fake_nvcc" "$work/cuda128/bin/nvcc"
  CUDA_HOME="$work/cuda128" run --nvrtc "$nvrtc" --archs 12.0f --format cmake
  [[ $? == 0 && "$(cat "$work/out")" == "120f-real" ]] || fail "--nvrtc PATH with --format cmake compiles with that NVRTC"
  run --nvrtc "$nvrtc" --nvcc "$fake_nvcc" --compiler nvcc --archs 12.0f
  [[ $? == 1 ]] && err_has "have 12.8" || fail "--compiler nvcc picks the nvcc of the two named"
else
  echo "note: no NVRTC at $nvrtc; the --nvrtc cases are skipped" >&2
fi

# Contradictions are usage errors, not silent choices.
run --nvrtc /nonexistent/libnvrtc.so --nvcc "$fake_nvcc" --archs 9.0
[[ $? == 2 ]] && err_has "--compiler" || fail "--nvrtc and --nvcc without --compiler"
run --compiler nvcc --nvrtc /nonexistent/libnvrtc.so --archs 9.0
[[ $? == 2 ]] && err_has "--nvrtc" || fail "--compiler nvcc with only --nvrtc"
run --compiler nvrtc --nvcc "$fake_nvcc" --archs 9.0
[[ $? == 2 ]] && err_has "--nvcc" || fail "--compiler nvrtc with only --nvcc"

# --timeout bounds detection: a hanging nvcc named by CUDA_HOME costs about a second, not 10.
mkdir -p "$work/cuda/bin"
printf '#!/bin/sh\nsleep 30\n' >"$work/cuda/bin/nvcc"
chmod +x "$work/cuda/bin/nvcc"
start=$(date +%s%N)
CUDA_HOME="$work/cuda" timeout 60 "$cli" resolve --nvcc "$work/cuda/bin/nvcc" --archs 9.0 --timeout 1 >"$work/out" 2>"$work/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
bound=$(prompt_bound_ms 1000 4000)  # the nvcc hangs 30 s
[[ $rc == 1 && $ms -ge 1000 && $ms -lt $bound ]] && err_has "did not finish in time" ||
  fail "--timeout 1 with a hanging nvcc: exit $rc after $ms ms (want 1, 1000 to $bound ms)"
start=$(date +%s%N)
CUDA_HOME="$work/cuda" PATH="$work/cuda/bin:$PATH" timeout 60 "$cli" doctor --timeout 1 --no-device-query >"$work/out" 2>"$work/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
bound=$(prompt_bound_ms 1000 7000)
[[ $rc == 0 && $ms -lt $bound ]] || fail "doctor --timeout 1 with a hanging nvcc: exit $rc after $ms ms (want 0, < $bound ms)"
for bad in 0 -1 soon 1e9 nan; do
  run --toolkit 13.0 --archs 9.0 --timeout "$bad"
  [[ $? == 2 ]] && err_has "--timeout" || fail "--timeout $bad is a usage error"
done

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_compiler_choice_test: all checks passed"
