#!/usr/bin/env bash
# `cuarch resolve` end to end: outputs, notes on stderr, and exit codes (0 ok, 1 failed, 2 bad input).
# Uses only given compilers and devices (--toolkit, --device-cc), so it needs no CUDA and no GPU.
# Environment: CUARCH_CLI (the built command line). Exit 77 (skipped) when it is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
failures=0
out="$work/out" err="$work/err"

# check WANT_EXIT WANT_STDOUT -- ARGS...: runs `cuarch resolve ARGS`, compares exit status and stdout.
check() {
  local want_rc="$1" want_out="$2"; shift 3
  "$cli" resolve "$@" >"$out" 2>"$err"
  local rc=$?
  if [[ "$rc" != "$want_rc" || "$(cat "$out")" != "$want_out" ]]; then
    echo "FAIL: cuarch resolve $*" >&2
    echo "  exit $rc (want $want_rc); stdout: $(cat "$out") (want: $want_out)" >&2
    sed 's/^/  stderr: /' "$err" >&2
    failures=$((failures + 1))
  fi
}
# stderr_has TEXT: the last run's stderr contains TEXT.
stderr_has() {
  if ! grep -qF -- "$1" "$err"; then
    echo "FAIL: stderr lacks: $1" >&2
    sed 's/^/  stderr: /' "$err" >&2
    failures=$((failures + 1))
  fi
}

check 0 "-gencode=arch=compute_90a,code=sm_90a" -- --toolkit 13.0 --device-cc 9.0
check 0 "12.0a" -- --toolkit 12.8 --device-cc 12.0 --format torch
check 0 "86-real;120a-real" -- --toolkit 13.0 --device-cc 8.6,12.0,12.0 --format cmake
check 0 "75-real;80-real;86-real;87-real;88-real;89-real;90-real;100-real;103-real;110-real;120;121-real" -- --toolkit 13.0 --archs all --format cmake
check 0 "7.5;8.0;9.0;10.0;11.0;12.0+PTX" -- --toolkit 13.0 --archs all-major --format torch
check 0 $'--gpu-architecture=sm_90a\n--gpu-architecture=sm_100' -- --toolkit 13.0 --archs "9.0a 10.0" --format nvrtc
check 0 "90;100a-real" -- --toolkit 13.0 --archs "-arch=sm_90 -gencode=arch=compute_100a,code=sm_100a" --dialect nvcc --format cmake
check 0 "86-real;90-virtual" -- --toolkit 12.6 --device-cc 12.0,8.6 --policy ptx-fallback --driver 12.8 --format cmake
stderr_has "note: native, device 0 (cc 12.0): sm_120a -> compute_90 (PTX fallback"

# Resolution failures: exit 1, every reason on stderr.
check 1 "" -- --toolkit 12.6 --device-cc 12.0
stderr_has "sm_120a needs CUDA >= 12.8 (have 12.6)"
stderr_has "a PTX fallback is off"
check 1 "" -- --toolkit 12.6 --device-cc 12.0 --policy ptx-fallback --driver 12.4
stderr_has "PTX fallback refused: compute_90 is PTX ISA 8.5, but the driver (CUDA 12.4) JITs PTX ISA up to 8.4"
check 1 "" -- --toolkit 13.0 --archs "sm_70;sm_101a"
stderr_has "sm_70 was removed in CUDA 13.0"
stderr_has "sm_101a was renamed sm_110a in CUDA 13.0"
check 0 "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_110a,code=sm_110a" -- --toolkit 13.0 --archs "sm_70;sm_101a;8.0" --policy best-effort
stderr_has "note: 'sm_70' at position 0: sm_70 rejected"
check 1 "" -- --toolkit 13.0 --archs sm_120a --device-cc 9.0 --policy verify-devices
stderr_has "sm_120a cannot run on a device of compute capability 9.0"
check 1 "" -- --toolkit 13.0 --archs compute_90 --format torch
stderr_has "compute_90 cannot be written in TORCH_CUDA_ARCH_LIST"
# No visible device (forced, so this holds on a GPU machine too): a typed error, never a default arch.
CUDA_VISIBLE_DEVICES="" check 1 "" -- --toolkit 13.0 --archs native
stderr_has "no CUDA device is visible"

# The environment overrides the default request, and says so; a bad value names the variable (exit 2).
CUARCH_ARCHS="9.0a;10.0" check 0 "90a-real;100-real" -- --toolkit 13.0 --format cmake
stderr_has "the request came from the environment variable CUARCH_ARCHS"
# An explicit --archs beats the environment and says so on stderr; --env makes the variable win again.
CUARCH_ARCHS="9.0a;10.0" check 0 "90-real" -- --toolkit 13.0 --archs 90-real --format cmake
stderr_has "note: --archs given; ignoring CUARCH_ARCHS=9.0a;10.0 (--env cuarch lets it override)"
CUARCH_ARCHS="9.0a;10.0" TORCH_CUDA_ARCH_LIST="8.6" check 0 "9.0" -- --toolkit 13.0 --archs 9.0 --format torch
stderr_has "ignoring CUARCH_ARCHS=9.0a;10.0"
stderr_has "ignoring TORCH_CUDA_ARCH_LIST=8.6"
CUARCH_ARCHS="sm_90b" check 0 "90-real" -- --toolkit 13.0 --archs 90-real --format cmake  # ignored, so not read
CUARCH_ARCHS="9.0a;10.0" check 0 "90a-real;100-real" -- --toolkit 13.0 --archs all --env cuarch --format cmake
stderr_has "the request came from the environment variable CUARCH_ARCHS"
CUARCH_ARCHS="9.0a" check 0 "75-real" -- --toolkit 13.0 --archs 75-real --env none --format cmake
TORCH_CUDA_ARCH_LIST="8.6+PTX" check 0 "8.6+PTX" -- --toolkit 13.0 --archs 9.0 --env torch --format torch
CUARCH_ARCHS="sm_" check 2 "" -- --toolkit 13.0
stderr_has "'sm_' at position 0 is not a CUDA architecture (environment at CUARCH_ARCHS)"

# Bad usage or input: exit 2.
check 2 "" -- --toolkit 13.0 --archs "9.0;;10.0"
check 2 "" -- --toolkit 13.0 --archs "8.0a"
check 2 "" -- --toolkit banana
check 2 "" -- --toolkit 13.0 --format yaml
check 2 "" -- --toolkit 13.0 --policy lenient
check 2 "" -- --toolkit 13.0 --nvcc /usr/bin/nvcc
check 2 "" -- --toolkit 13.0 --bogus

# JSON: one object on stdout, also for failures.
"$cli" resolve --toolkit 13.0 --archs "9.0a;compute_90" --format json >"$out" 2>"$err"
grep -qF '"ok":true' "$out" && grep -qF '"cmake":"90-virtual;90a-real"' "$out" || { echo "FAIL: json success" >&2; cat "$out" >&2; failures=$((failures + 1)); }
"$cli" resolve --toolkit 13.0 --archs sm_70 --format json >"$out" 2>"$err"
[[ $? == 1 ]] && grep -qF '"ok":false' "$out" || { echo "FAIL: json failure" >&2; cat "$out" >&2; failures=$((failures + 1)); }

# --isolated looks only where options and CUARCH_* variables point: no PATH, no /usr/local/cuda
# (the same option set as cuarch doctor), so with nothing named there is no compiler to resolve for.
before=$failures
(unset CUARCH_NVCC CUARCH_NVRTC CUDACXX CUDA_HOME CUDA_PATH; check 1 "" -- --isolated --archs 9.0; exit $((failures - before))) ||
  failures=$((failures + 1))
stderr_has "no nvcc found (searched: nowhere"
# ...and not where other tools' variables point either (issue 31): a toolkit in CUDA_HOME, CUDA_PATH,
# CUDACXX, VIRTUAL_ENV or CONDA_PREFIX is not looked at; CUARCH_NVCC still is.
toolkit=$(mktemp -d)
mkdir -p "$toolkit/bin" "$toolkit/lib/python3.11/site-packages" && cp "$(dirname "$0")/../fixtures/fake-nvcc/nvcc-12.8" "$toolkit/bin/nvcc"
before=$failures
(unset CUARCH_NVCC CUARCH_NVRTC; export CUDA_HOME=$toolkit CUDA_PATH=$toolkit CUDACXX=$toolkit/bin/nvcc VIRTUAL_ENV=$toolkit \
  CONDA_PREFIX=$toolkit; check 1 "" -- --isolated --archs 9.0; exit $((failures - before))) || failures=$((failures + 1))
stderr_has "no nvcc found (searched: nowhere"
(unset CUARCH_NVCC CUARCH_NVRTC; export CUDA_HOME=$toolkit CUDA_PATH=$toolkit CUDACXX=$toolkit/bin/nvcc VIRTUAL_ENV=$toolkit \
  CONDA_PREFIX=$toolkit; "$cli" doctor --isolated --json >"$out" 2>"$err")
# (its "environment" object records the variables as they are: that is no looking)
looked=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("environment")
print("\n".join(f"{k}: {v}" for k, v in d.items() if sys.argv[2] in json.dumps(v)))' \
  "$out" "$toolkit")
if [[ $? != 0 || -n $looked ]]; then
  echo "FAIL: doctor --isolated looked where CUDA_HOME/CUDA_PATH/CUDACXX/VIRTUAL_ENV/CONDA_PREFIX point ($toolkit)" >&2
  echo "$looked" | cut -c1-400 | sed 's/^/  /' >&2
  failures=$((failures + 1))
fi
before=$failures
(unset CUARCH_NVRTC CUDA_HOME CUDA_PATH CUDACXX; CUARCH_NVCC=$toolkit/bin/nvcc check 0 "-gencode=arch=compute_90,code=sm_90" -- \
  --isolated --archs 9.0; exit $((failures - before))) || failures=$((failures + 1))
rm -rf "$toolkit"

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_resolve_test: all checks passed"
