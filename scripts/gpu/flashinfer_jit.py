#!/usr/bin/env python3
"""FlashInfer's own JIT path, from a flashinfer-python 0.7.4 tree, without its package __init__
(which imports every kernel module and their dependencies): the packages `flashinfer` and
`flashinfer.jit` are mapped onto the tree's directories and the real modules are imported from it.
Used by scripts/gpu/stage-tool-env.sh (here: build only, torch stubbed when absent) and
scripts/gpu/tool-env-on-gpu.sh (the H200: build, load and run FlashInfer's rmsnorm kernel).

  flashinfer_jit.py TREE MODE     MODE: build (JIT-compile the norm module) | run (build, load, run
                                  rmsnorm on the GPU and compare with torch) | version (print what
                                  FlashInfer takes as its CUDA version and root)
Needs on sys.path (PYTHONPATH): tvm_ffi, filelock, packaging. Uses the environment FlashInfer reads
(FLASHINFER_CUDA_ARCH_LIST, CUDA_HOME, FLASHINFER_NVCC, FLASHINFER_WORKSPACE_BASE). Prints
"imported: <file>" for each module of the tree it imported, and the JIT's build.ninja lines that name
the compiler and the targets. Exit 0 done; 1 failed (the exception is printed).
"""

import importlib
import os
import sys
import types


def main():
    tree, mode = sys.argv[1], sys.argv[2]
    import tvm_ffi  # noqa: F401  (before any torch stub: it probes for a real torch)

    try:
        import torch  # noqa: F401
    except ImportError:
        if mode == "run":
            print("skipped: no torch (run needs the GPU machine's torch)")
            return 77
        torch = types.ModuleType("torch")  # with FLASHINFER_CUDA_ARCH_LIST set, the JIT flags never ask torch
        torch.cuda = types.SimpleNamespace(device_count=lambda: 0, is_available=lambda: False)
        torch.version = types.SimpleNamespace(cuda=None)
        torch._C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True)
        torch.__getattr__ = lambda name: f"<torch.{name} (stub)>"
        sys.modules["torch"] = torch
    for name, sub in (("flashinfer", "flashinfer"), ("flashinfer.jit", "flashinfer/jit")):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(tree, sub)]
        sys.modules[name] = module
    cpp_ext = importlib.import_module("flashinfer.jit.cpp_ext")
    if mode == "version":
        print(f"FlashInfer's CUDA root: {cpp_ext.get_cuda_path()}; its CUDA version: {cpp_ext.get_cuda_version()}")
        return 0
    norm = importlib.import_module("flashinfer.jit.norm")
    spec = norm.gen_norm_module()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f and os.path.realpath(f).startswith(os.path.realpath(tree) + os.sep):
            print("imported:", os.path.relpath(os.path.realpath(f), os.path.realpath(tree)))
    print(f"FlashInfer's CUDA root: {cpp_ext.get_cuda_path()}; its CUDA version: {cpp_ext.get_cuda_version()}")
    if mode == "build":
        spec.build(verbose=False)
    else:
        module = spec.build_and_load()
    ninja = str(spec.ninja_path)
    if os.path.exists(ninja):
        for line in open(ninja):
            if line.startswith(("nvcc =", "cuda_home =", "cuda_arch_flags =")):
                print("build.ninja:", line.rstrip())
        print("build dir:", spec.build_dir)
    if mode == "run":
        import torch

        x = torch.randn(8, 4096, device="cuda", dtype=torch.float16)
        w = torch.randn(4096, device="cuda", dtype=torch.float16)
        out = torch.empty_like(x)
        module.rmsnorm(out, x, w, 1e-6, False)
        torch.cuda.synchronize()
        ref = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).half()
        err = (out.float() - ref.float()).abs().max().item()
        print(f"rmsnorm on {torch.cuda.get_device_name()} (cc {torch.cuda.get_device_capability()}): max |error| {err:.3g}")
        if not err < 2e-2:
            print("FAIL: FlashInfer's rmsnorm disagrees with torch")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
