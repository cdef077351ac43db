#!/usr/bin/env bash
# build-inspect-gpu-binaries.sh - build the small CUDA binaries scripts/gpu/inspect-on-gpu.sh loads
# on a real GPU (no nvcc there), into tests/data/inspect-gpu/: one kernel as fatbins for single
# targets and mixes, cubins and PTX text (one with a PTX ISA newer than any driver reads).
#   scripts/toolkits/build-inspect-gpu-binaries.sh [--nvcc PATH] [-o DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVCC=/usr/local/cuda/bin/nvcc
OUT=$REPO/tests/data/inspect-gpu
while [[ $# -gt 0 ]]; do
  case $1 in
    --nvcc) NVCC=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    *) echo "build-inspect-gpu-binaries.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
printf 'extern "C" __global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n' >"$WORK/k.cu"
mkdir -p "$OUT"
g() { echo "-gencode arch=compute_$1,code=$2"; }
while IFS='|' read -r name args; do
  (cd "$WORK" && eval "\"$NVCC\" k.cu $args -o \"$OUT/$name\"")
  echo "$name"
done <<F
sm_80.fatbin|-fatbin $(g 80 sm_80)
sm_86.fatbin|-fatbin $(g 86 sm_86)
sm_89_120.fatbin|-fatbin $(g 89 sm_89) $(g 120 sm_120)
sm_90.fatbin|-fatbin $(g 90 sm_90)
sm_90a.fatbin|-fatbin $(g 90a sm_90a)
compute_75.fatbin|-fatbin $(g 75 compute_75)
compute_90.fatbin|-fatbin $(g 90 compute_90)
compute_90a.fatbin|-fatbin $(g 90a compute_90a)
compute_100.fatbin|-fatbin $(g 100 compute_100)
compute_100f.fatbin|-fatbin $(g 100f compute_100f)
sm_100a.fatbin|-fatbin $(g 100a sm_100a)
sm_100f.fatbin|-fatbin $(g 100f sm_100f)
sm_120.fatbin|-fatbin $(g 120 sm_120)
compute_120.fatbin|-fatbin $(g 120 compute_120)
sm_80_compute_80.fatbin|-fatbin $(g 80 '[sm_80,compute_80]')
sm_80_compute_90a.fatbin|-fatbin $(g 80 sm_80) $(g 90a compute_90a)
sm_100a_compute_90.fatbin|-fatbin $(g 100a sm_100a) $(g 90 compute_90)
sm_100a_sm_120_compute_120.fatbin|-fatbin $(g 100a sm_100a) $(g 120 '[sm_120,compute_120]')
all_major.fatbin|-fatbin -arch=all-major
compress_all_sm_90.fatbin|-fatbin $(g 90 sm_90) -Xfatbin=-compress-all
sm_90a.cubin|-cubin -arch=sm_90a
sm_100f.cubin|-cubin -arch=sm_100f
sm_89.cubin|-cubin -arch=sm_89
compute_90.ptx|-ptx -arch=compute_90
compute_100.ptx|-ptx -arch=compute_100
F
# PTX of an ISA no released driver reads (9.9): the driver refuses it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
sed 's/^\.version .*/.version 9.9/' "$OUT/compute_90.ptx" >"$OUT/compute_90_isa_9.9.ptx"
echo compute_90_isa_9.9.ptx
du -sh "$OUT"
