#!/usr/bin/env bash
# A kernel guarded by CUARCH_DEVICE_REQUIRE("sm_90a") built for sm_90a runs on the H200 (cc 9.0) and
# sees the arch-specific target; the same kernel built for sm_90 does not compile.
# Run from the repository root: bash scripts/gpu/device-require-on-gpu.sh. Exit 0 pass, 1 fail, 77 no GPU.
set -u
cuda="${CUDA_HOME:-/usr/local/cuda}"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/require.cu" <<'CU'
#include <cuarch/device.hpp>
#include <cstdio>
CUARCH_DEVICE_REQUIRE("sm_90a");
__global__ void k(int* out) {
  CUARCH_DEVICE_REQUIRE("9.0a");
  constexpr cuarch::device::target t = cuarch::device::current_target();
  out[threadIdx.x] = t.number() * 10 + (t.variant == 'a' ? 1 : 0);
}
int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) { std::printf("FAIL: cudaMalloc\n"); return 1; }
  k<<<1, 32>>>(d);
  int h[32] = {};
  const cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { std::printf("FAIL: %s\n", cudaGetErrorString(e)); return 1; }
  for (int v : h) if (v != 901) { std::printf("FAIL: kernel saw %d, expected 901 (sm_90 + a)\n", v); return 1; }
  std::printf("PASS: the sm_90a kernel guarded by CUARCH_DEVICE_REQUIRE ran on the GPU (32 threads saw sm_90a)\n");
  return 0;
}
CU
fail=0
"$cuda/bin/nvcc" -Iinclude -gencode=arch=compute_90a,code=sm_90a "$work/require.cu" -o "$work/require" || { echo "FAIL: build for sm_90a"; exit 1; }
"$work/require" || fail=1
if "$cuda/bin/nvcc" -Iinclude -gencode=arch=compute_90,code=sm_90 "$work/require.cu" -o "$work/wrong" 2>"$work/wrong.log"; then
  echo "FAIL: the sm_90 build compiled"; fail=1
elif grep -q 'is not met by the target being built: __CUDA_ARCH__=900, baseline' "$work/wrong.log"; then
  echo "PASS: the sm_90 build was refused with cuarch's message"
else
  echo "FAIL: the sm_90 build failed without cuarch's message"; cat "$work/wrong.log"; fail=1
fi
exit $fail
