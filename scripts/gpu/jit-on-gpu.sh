#!/usr/bin/env bash
# The JIT example end to end on a real GPU (written for an H200: cc 9.0, driver 580, CUDA 13.0):
# resolve -> NVRTC compile -> driver load -> launch -> check, in three scenarios, each checked:
#   1. native                  -> sm_90a, compiled, loaded, 1M values correct, __CUDA_ARCH_SPECIFIC__=900
#   2. --archs compute_90      -> PTX, JIT-compiled by the driver, correct, no arch-specific macro
#   3. --archs sm_120a         -> refused before compiling (exit 1), with the reason
# plus one more: CUARCH_ARCHS=9.0+PTX overrides native (sm_90 and compute_90, both run).
#
# Run from the repository root:  bash scripts/gpu/jit-on-gpu.sh
# Needs a C++17 compiler (CXX, else c++/g++/clang++) and the CUDA toolkit (CUDA_HOME, else
# /usr/local/cuda); not fmt, not Catch2, not CMake. Writes logs to $OUT/jit-on-gpu/ when OUT is set.
# Exit status: 0 all scenarios as expected, 1 a scenario failed, 2 could not build or no GPU.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
cuda="${CUDA_HOME:-/usr/local/cuda}"
out="${OUT:+$OUT/jit-on-gpu}"
work="${out:-$(mktemp -d)}"
bin="$(mktemp -d)"  # the binary stays out of $OUT: only logs come back
mkdir -p "$work"

log() { printf 'jit-on-gpu: %s\n' "$*" | tee -a "$work/summary.txt" >&2; }

cxx="${CXX:-}"
if [[ -z "$cxx" ]]; then
  for c in c++ g++ clang++; do command -v "$c" >/dev/null 2>&1 && { cxx="$c"; break; }; done
fi
[[ -n "$cxx" ]] || { log "error: no C++ compiler (set CXX)"; exit 2; }

# ---- the machine -------------------------------------------------------------------------------
{
  echo "== nvidia-smi"; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv 2>&1
  echo "== nvcc"; "$cuda/bin/nvcc" --version 2>&1 | tail -n 2
  echo "== compiler"; "$cxx" --version 2>&1 | head -n 1
} >"$work/machine.txt"
cat "$work/machine.txt" >&2
cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')"
if [[ "$cc" != "9.0" ]]; then
  log "error: the expectations are for a cc 9.0 GPU (H200); nvidia-smi says '${cc:-no GPU}'"
  exit 2
fi

# ---- build (plain compiler commands; the driver is loaded at run time, so only NVRTC is linked)
log "building examples/jit_kernel.cpp with $cxx"
if ! "$cxx" -std=c++17 -O2 -Wall -Wextra -Iinclude -I"$cuda/include" examples/jit_kernel.cpp \
     -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc -ldl -o "$bin/jit_kernel" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  log "error: build failed"
  exit 2
fi

# ---- scenarios ---------------------------------------------------------------------------------
failed=0
# run NAME EXPECTED_EXIT [ENV=VALUE...] -- ARGS...: runs jit_kernel, keeps stdout/stderr, checks the exit status.
run() {
  local name="$1" want="$2"; shift 2
  local envs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  env -u CUARCH_ARCHS ${envs[@]+"${envs[@]}"} "$bin/jit_kernel" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  echo "$rc" >"$work/$name.rc"
  sed 's/^/    /' "$work/$name.out" "$work/$name.err" >&2
  if [[ "$rc" != "$want" ]]; then
    log "FAIL $name: exit $rc, expected $want"
    failed=1
    return 1
  fi
  return 0
}
# expect NAME FILE(out|err) TEXT: the output contains TEXT (fixed string).
expect() {
  if grep -qF -- "$3" "$work/$1.$2"; then return 0; fi
  log "FAIL $1: std$2 lacks: $3"
  failed=1
}
# refuse NAME FILE TEXT: the output does not contain TEXT.
refuse() {
  if ! grep -qF -- "$3" "$work/$1.$2"; then return 0; fi
  log "FAIL $1: std$2 must not contain: $3"
  failed=1
}

log "scenario 1: native (expect sm_90a)"
run native 0 -- && {
  expect native out "-> targets: sm_90a"
  expect native out "sm_90a: NVRTC compiled a cubin"
  expect native out "values correct, __CUDA_ARCH__=900 arch-specific=900"
  expect native out "PASS (1 targets, 1 launches)"
}

log "scenario 2: explicit PTX target compute_90 (expect driver JIT)"
run compute_90 0 -- --archs compute_90 && {
  expect compute_90 out "-> targets: compute_90"
  expect compute_90 out "compute_90: NVRTC compiled PTX"
  expect compute_90 out "loaded (driver JIT of the PTX), launched, 1048576 values correct, __CUDA_ARCH__=900 arch-specific=0"
  expect compute_90 out "PASS (1 targets, 1 launches)"
}

log "scenario 3: sm_120a on a cc 9.0 GPU (expect refusal before compiling)"
run sm_120a 1 -- --archs sm_120a
expect sm_120a err "refused before compiling: error [nothing resolved]"
expect sm_120a err "sm_120a cannot run on a device of compute capability 9.0"
refuse sm_120a out "NVRTC compiled"

log "scenario 4: CUARCH_ARCHS=9.0+PTX overrides native"
run env_override 0 CUARCH_ARCHS=9.0+PTX -- && {
  expect env_override out "request CUARCH_ARCHS=9.0+PTX (from the environment) -> targets: sm_90 compute_90"
  expect env_override out "PASS (2 targets, 2 launches)"
}

if [[ "$failed" == 0 ]]; then
  log "all scenarios as expected (logs in $work)"
  exit 0
fi
log "some scenarios failed (logs in $work)"
exit 1
