#!/usr/bin/env python3
"""A PyTorch CUDA extension built for the architectures cuarch resolves.

PyTorch builds extensions for TORCH_CUDA_ARCH_LIST, or, without it, for the GPUs it sees (and for
a fixed list of its release when it sees none). cuarch resolves the list against the nvcc PyTorch
will run (torch.utils.cpp_extension.CUDA_HOME) and the GPUs here, refusing with the reason what
that nvcc cannot build, instead of failing later in the compiler or at load time:

    TORCH_CUDA_ARCH_LIST=$(python -c "import cuarch; print(cuarch.resolve().torch_arch_list)")

Here the same, in process, then a JIT build of a small extension with torch.utils.cpp_extension
and a check that its kernel runs. An existing TORCH_CUDA_ARCH_LIST is read (env=("cuarch","torch"))
and validated rather than ignored.

Exit status: 0 built and ran; 1 refused or wrong; 77 nothing to do here ("skipped: ...").
"""

import os
import sys
import tempfile

import cuarch

CUDA_SOURCE = r"""
#include <torch/extension.h>

__global__ void add_one_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

torch::Tensor add_one(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat, "a float CUDA tensor");
  auto y = x.contiguous().clone();
  const int64_t n = y.numel();
  add_one_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n);
  return y;
}
"""
CPP_SOURCE = "torch::Tensor add_one(torch::Tensor x);"


def arch_list(cuda_home, devices=None):
    """TORCH_CUDA_ARCH_LIST for the GPUs here, validated against the nvcc under cuda_home."""
    r = cuarch.resolve("native", cuda_home=cuda_home, devices=devices, env=("cuarch", "torch"))
    for note in r.notes:
        print(f"cuarch: note: {note}")
    print(f"cuarch: {r.compiler.kind} {r.compiler.version} at {r.compiler.path}: {' '.join(r.targets)}")
    return r.torch_arch_list  # raises ResolveError when PyTorch cannot spell a target


def main():
    try:
        import torch
        from torch.utils import cpp_extension
    except ImportError:
        print("skipped: torch not installed")
        return 77
    if not torch.cuda.is_available():
        print("skipped: no GPU visible to torch")
        return 77
    if not cpp_extension.CUDA_HOME:
        print("skipped: torch finds no CUDA toolkit (CUDA_HOME) to build extensions with")
        return 77
    try:
        os.environ["TORCH_CUDA_ARCH_LIST"] = arch_list(cpp_extension.CUDA_HOME)
    except cuarch.ResolveError as e:
        print(f"cuarch refused [{e.code}]: {e}", file=sys.stderr)
        return 1
    print(f"TORCH_CUDA_ARCH_LIST={os.environ['TORCH_CUDA_ARCH_LIST']}")
    ext = cpp_extension.load_inline(
        name="cuarch_add_one",
        cpp_sources=[CPP_SOURCE],
        cuda_sources=[CUDA_SOURCE],
        functions=["add_one"],
        build_directory=tempfile.mkdtemp(prefix="cuarch-torch-ext-"),
        verbose=False,
    )
    x = torch.arange(1024, dtype=torch.float32, device="cuda")
    y = ext.add_one(x)
    if not torch.equal(y, x + 1):
        print("the extension ran but computed the wrong result", file=sys.stderr)
        return 1
    print("extension built and ran: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
