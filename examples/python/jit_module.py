#!/usr/bin/env python3
"""A FlashInfer-style JIT module: nvcc flags and the cache key come from cuarch.

A JIT kernel library builds its CUDA sources on first use, for the GPUs of this machine, and keeps
the result in a cache. Two things go wrong in the wild (docs/design.md): the targets are computed
against a different toolkit than the nvcc that runs (an error swallowed, an empty target set), and
the cache is not keyed on the compiler, so a toolkit upgrade loads stale code. Here cuarch resolves
the targets against the very nvcc that compiles (or fails, naming it and the fix), and its cache
key names that compiler's path, version and the targets.

    python jit_module.py                      # native: the GPUs here (needs a GPU to load and run)
    python jit_module.py --archs "9.0a;12.0"  # build for given targets (no GPU needed to build)

Exit status: 0 built (and ran, where a GPU and CuPy are present); 1 cuarch or nvcc refused;
77 nothing to do here (prints "skipped: ..."), e.g. no nvcc.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import cuarch

KERNEL = r"""
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""
EXTRA_FLAGS = ["-O3", "-std=c++17"]


def build(name, source, archs, cache_dir, nvcc=None, devices=None):
    """Compiles `source` into a fatbin for the resolved targets; returns (path, cache hit?)."""
    r = cuarch.resolve(archs, compiler="nvcc", nvcc=nvcc, devices=devices)
    # The cache key: cuarch's (compiler kind, version, real path, targets), plus what else
    # changes the binary: the source and the flags.
    key = "\n".join([r.cache_key, " ".join(EXTRA_FLAGS), source])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    out_dir = os.path.join(cache_dir, f"{name}-{digest}")
    fatbin = os.path.join(out_dir, f"{name}.fatbin")
    if os.path.exists(fatbin):
        return fatbin, True, r
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, f"{name}.cu")
    with open(src, "w") as f:
        f.write(source)
    tmp = fatbin + ".tmp"
    cmd = [r.compiler.path, "-fatbin", *EXTRA_FLAGS, *r.nvcc_flags, "-o", tmp, src]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc failed ({' '.join(cmd)}):\n{done.stderr}")
    os.replace(tmp, fatbin)  # atomic: a concurrent reader never sees half a file
    return fatbin, False, r


def run_on_gpu(fatbin):
    """Loads the fatbin and runs the kernel through CuPy; a reason string when it cannot here."""
    try:
        import cupy
    except ImportError:
        return "skipped: CuPy not installed (built, not run)"
    if cupy.cuda.runtime.getDeviceCount() == 0:
        return "skipped: no GPU (built, not run)"
    module = cupy.RawModule(path=fatbin)
    axpy = module.get_function("axpy")
    n = 1 << 16
    x = cupy.arange(n, dtype=cupy.float32)
    y = cupy.ones(n, dtype=cupy.float32)
    axpy(((n + 255) // 256,), (256,), (cupy.float32(2.0), x, y, cupy.int32(n)))
    expected = 2.0 * cupy.arange(n, dtype=cupy.float32) + 1.0
    if not bool(cupy.allclose(y, expected)):
        raise RuntimeError("the kernel ran but computed the wrong result")
    return "ran on the GPU: ok"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--archs", default="native")
    ap.add_argument("--devices", default=None, help="device compute capabilities for native (e.g. 9.0,12.0)")
    ap.add_argument("--nvcc", default=None)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "cuarch-jit-example"))
    ap.add_argument("--no-run", action="store_true", help="build only")
    args = ap.parse_args(argv)
    try:
        fatbin, hit, r = build("axpy", KERNEL, args.archs, args.cache, nvcc=args.nvcc, devices=args.devices)
    except cuarch.ResolveFailure as e:
        if e.code == "library_not_found" and args.nvcc is None:
            print(f"skipped: no nvcc here ({e})")
            return 77
        print(f"cuarch refused [{e.code}]: {e}", file=sys.stderr)
        return 1
    except cuarch.ResolveError as e:
        print(f"cuarch refused [{e.code}]: {e}", file=sys.stderr)
        return 1
    print(f"targets: {' '.join(r.targets)}")
    print(f"compiler: {r.compiler.kind} {r.compiler.version} at {r.compiler.path} ({r.compiler.how})")
    print(f"{'cache hit' if hit else 'built'}: {fatbin}")
    if not args.no_run:
        print(run_on_gpu(fatbin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
