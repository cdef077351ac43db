// The recipe's kernel: prints the target each device ran, as cuarch/device.hpp sees it.
#include <cuarch/device.hpp>

#include <cstdio>

__global__ void which_target(int* out) {
  constexpr cuarch::device::target t = cuarch::device::current_target();
  *out = t.number() * 10 + (t.variant == 'a' ? 1 : t.variant == 'f' ? 2 : 0);
}

int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) {
    std::printf("no usable GPU\n");
    return 1;
  }
  which_target<<<1, 1>>>(d);
  int h = 0;
  const cudaError_t e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("kernel failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("ran sm_%d%s\n", h / 10, h % 10 == 1 ? "a" : h % 10 == 2 ? "f" : "");
  return 0;
}
