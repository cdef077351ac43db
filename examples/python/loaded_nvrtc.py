#!/usr/bin/env python3
"""The NVRTC this process has already loaded is the one that compiles, so cuarch asks that one.

A Python JIT library compiles through the NVRTC its framework loaded (CuPy's, or a pip wheel's
through cuda.bindings), not through CUDA_HOME's. A subprocess (the `cuarch` command line, or
`nvcc --version`) cannot see that library; cuarch.resolve() in process can, and it outranks
CUDA_HOME. This prints what cuarch finds after NVRTC was loaded by:

    python loaded_nvrtc.py                       # CuPy (cupy.cuda.nvrtc), when installed
    python loaded_nvrtc.py --load /path/libnvrtc.so.12   # a given library (ctypes), e.g. a pip wheel's

Exit status: 0 cuarch reported the loaded library; 1 it reported another; 77 nothing loaded here.
"""

import argparse
import ctypes
import os
import sys

import cuarch


def load_nvrtc(path):
    """Loads NVRTC into this process; returns its real path, or None (with the reason printed)."""
    if path:
        ctypes.CDLL(path)
        return os.path.realpath(path)
    try:
        import cupy
        from cupy.cuda import nvrtc
    except ImportError:
        print("skipped: CuPy not installed and no --load PATH given")
        return None
    nvrtc.getVersion()  # loads CuPy's NVRTC
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libnvrtc.so" in line and "builtins" not in line:
                return os.path.realpath(line.split()[-1])
    print("skipped: CuPy did not load an NVRTC library")
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", help="an NVRTC library to load first (default: CuPy's)")
    ap.add_argument("--archs", default="native")
    ap.add_argument("--devices", default=None)
    args = ap.parse_args(argv)
    loaded = load_nvrtc(args.load)
    if loaded is None:
        return 77
    r = cuarch.resolve(args.archs, compiler="nvrtc", devices=args.devices)
    print(f"loaded: {loaded}")
    print(f"cuarch: {r.compiler.kind} {r.compiler.version} at {r.compiler.path} ({r.compiler.how})")
    print(f"targets: {' '.join(r.targets)}")
    return 0 if os.path.realpath(r.compiler.path) == loaded and r.compiler.how == "already loaded" else 1


if __name__ == "__main__":
    sys.exit(main())
