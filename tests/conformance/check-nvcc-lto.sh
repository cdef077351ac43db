#!/usr/bin/env bash
# check-nvcc-lto.sh - the real nvcc compiles what cuarch writes for target sets with LTO IR (issue 17).
# nvcc refuses -gencode=...,code=lto_XY without relocatable device code ("Cannot use
# '-arch=lto_<arch>' unless '-rdc=true' is specified or implied"); cuarch's nvcc writer adds
# nvcc_lto_flag (-rdc=true, include/cuarch/core/format.hpp) to such a set. For each set below:
# `cuarch resolve --format nvcc` must contain -rdc=true, `nvcc -c` must compile those flags, and
# the same flags without -rdc=true must be refused (so the flag is what makes them compile).
# Env: CUARCH_CLI, CUARCH_TEST_NVCC (default /usr/local/cuda/bin/nvcc).
# Exit: 0 all compile; 1 a failure; 77 skipped (no nvcc 13.x).
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
[[ -x $nvcc ]] || { echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; }
"$nvcc" --version | grep -q 'release 13\.' || { echo "SKIPPED: $nvcc is not CUDA 13.x"; exit 77; }
unset CUARCH_ARCHS TORCH_CUDA_ARCH_LIST CUDAARCHS
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo '__global__ void k(int* p) { *p = 1; }' >"$work/k.cu"
status=0
for set in "lto_90" "lto_90;sm_90;compute_90" "lto_100f" "lto_120f;lto_90;sm_90a" "lto_100;lto_100f" "lto_86;sm_80;compute_80"; do
  flags=$("$cli" resolve --toolkit 13.0 --archs "$set" --format nvcc 2>"$work/err") ||
    { echo "FAIL: cuarch resolve '$set':"; cat "$work/err"; status=1; continue; }
  [[ " $flags " == *" -rdc=true "* ]] || { echo "FAIL: '$set': no -rdc=true in: $flags"; status=1; continue; }
  # shellcheck disable=SC2086
  if ! (cd "$work" && "$nvcc" -c k.cu -o k.o $flags >"$work/log" 2>&1); then
    echo "FAIL: '$set': nvcc refused cuarch's flags: $flags"; cat "$work/log"; status=1; continue
  fi
  without=${flags/ -rdc=true/}
  # shellcheck disable=SC2086
  if (cd "$work" && "$nvcc" -c k.cu -o k.o $without >"$work/log" 2>&1); then
    echo "FAIL: '$set': nvcc compiles it without -rdc=true too, so the rule is wrong: $without"; status=1; continue
  fi
  echo "ok: '$set': $flags (without -rdc=true: $(grep -m1 fatal "$work/log"))"
done
exit $status
