"""Real NVRTC libraries: the pip wheel's 12.4 (toolkit cache) and the local toolkit's 13.x.

The point of the in-process API: an NVRTC the process has already loaded is the one its code
calls, and it outranks CUDA_HOME. Each scenario runs in a fresh interpreter, so what one loads
cannot leak into another."""

import json
import os

import pytest

import cuarch
from conftest import EXAMPLES, clean_env, run_python

PROBE = """
import ctypes, json, sys
import cuarch
if sys.argv[1:] or {load!r}:
    ctypes.CDLL({load!r})
try:
    r = cuarch.resolve({archs!r}, compiler="nvrtc")
    print(json.dumps({{"ok": True, "targets": r.targets, "compiler": r.compiler._asdict()}}))
except cuarch.ResolveError as e:
    print(json.dumps({{"ok": False, "code": e.code, "message": str(e)}}))
"""


def probe(archs, load, cuda_home):
    env = clean_env(CUDA_HOME=cuda_home)
    for name in ("CUARCH_NVRTC", "CUDA_PATH"):
        env.pop(name, None)
    done = run_python(PROBE.format(load=load or "", archs=archs), env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_explicit_real_nvrtc(nvrtc_12_4):
    r = cuarch.resolve("9.0a", nvrtc=nvrtc_12_4)  # nvrtc= alone selects the JIT path
    assert r.targets == ["sm_90a"] and r.compiler.kind == "NVRTC"
    r = cuarch.resolve("9.0a", compiler="nvrtc", nvrtc=nvrtc_12_4)
    c = r.compiler
    assert (c.kind, c.version.split(".")[:2], c.how) == ("NVRTC", ["12", "4"], "explicit argument")
    assert os.path.realpath(c.path) == os.path.realpath(nvrtc_12_4)
    assert 90 in c.supported_sm and 120 not in c.supported_sm
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.resolve("12.0", compiler="nvrtc", nvrtc=nvrtc_12_4)
    # The message names the compiler that decided: kind, version, path and how it was found; once.
    assert "decided by: NVRTC 12.4" in str(info.value) and os.path.realpath(nvrtc_12_4) in str(info.value)
    assert "(given explicitly)" in str(info.value) and str(info.value).count("NVRTC 12.4") == 1


def test_loaded_nvrtc_outranks_cuda_home(nvrtc_12_4, local_cuda):
    # Without anything loaded, CUDA_HOME's NVRTC (13.x) decides: sm_100f is buildable.
    plain = probe("10.0f", None, local_cuda)
    assert plain["ok"], plain
    assert plain["compiler"]["path"].startswith(local_cuda) and plain["compiler"]["how"] == "environment"
    # With the 12.4 wheel already loaded (as CuPy or cuda.bindings would), that one decides and
    # says so: sm_100f needs 12.9, and the error names the loaded library.
    loaded = probe("10.0f", nvrtc_12_4, local_cuda)
    assert not loaded["ok"] and loaded["code"] == "nothing_resolved", loaded
    assert "12.9" in loaded["message"] and "already loaded" in loaded["message"], loaded["message"]
    ok = probe("9.0a", nvrtc_12_4, local_cuda)
    assert ok["ok"] and ok["targets"] == ["sm_90a"]
    c = ok["compiler"]
    assert c["how"] == "already loaded" and c["version"].startswith("12.4")
    assert os.path.realpath(c["path"]) == os.path.realpath(nvrtc_12_4)


def test_loaded_nvrtc_example(nvrtc_12_4, local_cuda):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "loaded_nvrtc.py"), "--load", nvrtc_12_4, "--archs", "9.0a"],
                          capture_output=True, text=True, env=clean_env(CUDA_HOME=local_cuda), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(already loaded)" in done.stdout and "targets: sm_90a" in done.stdout


def test_local_toolkit_nvcc(local_cuda):
    r = cuarch.resolve("9.0a;12.0", cuda_home=local_cuda)
    assert r.compiler.kind == "nvcc" and r.compiler.path.startswith(local_cuda)
    assert r.cache_key.startswith("cuarch-jit-key/2 compiler=nvcc version=") and r.compiler.path in r.cache_key
