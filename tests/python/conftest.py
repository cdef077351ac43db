"""Shared fixtures of the Python tests. They test the *installed* package (tests/scripts/python_test.sh
installs it into a fresh virtual environment), never python/cuarch from the source tree."""

import os
import shutil
import subprocess
import sys
import time

import pytest

REPO = os.environ.get("CUARCH_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples", "python")
OVERRIDES = ("CUARCH_ARCHS", "TORCH_CUDA_ARCH_LIST", "CUDAARCHS")


@pytest.fixture(autouse=True)
def no_arch_overrides(monkeypatch):
    """Requests come from the tests, not from the environment of whoever runs them."""
    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)


def clean_env(**extra):
    """The environment for a child process: no arch overrides, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in OVERRIDES}
    env.update(extra)
    return env


def noop_spawn_median():
    """How long running a no-op program takes here and now (median of 5 runs of /bin/true): the unit
    of a timing bound, which a loaded machine stretches as it stretches the code under test
    (docs/testing.md, "Timing assertions"; tests/timing_bound.hpp is the C++ twin)."""
    runs = []
    for _ in range(5):
        start = time.monotonic()
        subprocess.run(["/bin/true"], check=False)
        runs.append(time.monotonic() - start)
    return sorted(runs)[len(runs) // 2]


def prompt_bound(expected, slack):
    """How long "promptly after `expected` seconds" may take: expected + max(10 x a no-op spawn
    measured now, slack)."""
    return expected + max(10 * noop_spawn_median(), slack)


def run_python(code, env=None, timeout=120):
    """Runs `code` in a fresh interpreter (of this virtual environment): what a process loaded
    (an NVRTC) must not leak into the test process or between tests."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env or clean_env(), timeout=timeout)


def fetch_cached(component, spec):
    """A real component from the toolkit cache (scripts/toolkits/fetch.sh, cache only: no network
    here); skips visibly when it is not cached."""
    script = os.path.join(REPO, "scripts", "toolkits", "fetch.sh")
    if not os.path.exists(script):
        pytest.skip(f"skipped: {script} missing")
    done = subprocess.run(["bash", script, component, spec], capture_output=True, text=True, env=clean_env(CUARCH_OFFLINE="1"), timeout=60)
    path = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0 or not os.path.isdir(path):
        pytest.skip(f"skipped: real {component} {spec} not in the toolkit cache ({done.stderr.strip()[:200]})")
    return path


@pytest.fixture(scope="session")
def stubs(tmp_path_factory):
    """The directory tests/fixtures/build-stubs.sh builds the stub libraries into (once per session)."""
    out = tmp_path_factory.mktemp("stubs")
    done = subprocess.run(["bash", os.path.join(REPO, "tests", "fixtures", "build-stubs.sh"), str(out)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 77:
        pytest.skip("skipped: no C compiler for the stubs")
    assert done.returncode == 0, done.stderr
    return str(out)


@pytest.fixture(scope="session")
def nvrtc_12_4():
    """The real NVRTC 12.4 of the pip wheel nvidia-cuda-nvrtc-cu12 (libnvrtc.so.12)."""
    lib = os.path.join(fetch_cached("nvrtc", "12.4.127"), "libnvrtc.so.12")
    if not os.path.exists(lib):
        pytest.skip(f"skipped: {lib} missing from the cached wheel")
    return lib


@pytest.fixture(scope="session")
def local_cuda():
    """The local CUDA toolkit (CUARCH_LOCAL_CUDA, else /usr/local/cuda) with NVRTC and nvcc."""
    root = os.environ.get("CUARCH_LOCAL_CUDA") or "/usr/local/cuda"
    libs = [f for f in os.listdir(os.path.join(root, "lib64"))] if os.path.isdir(os.path.join(root, "lib64")) else []
    if not any(f.startswith("libnvrtc.so.") for f in libs) or not os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
        pytest.skip(f"skipped: no CUDA toolkit with NVRTC and nvcc at {root}")
    return os.path.realpath(root)


@pytest.fixture(scope="session")
def cli():
    """The command line shipped in the package (what the console script execs)."""
    from cuarch.__main__ import executable

    path = executable()
    assert os.access(path, os.X_OK), f"the package ships no command line at {path}"
    return path


def console_script():
    """The `cuarch` console script of this virtual environment."""
    path = os.path.join(os.path.dirname(sys.executable), "cuarch")
    return path if os.path.exists(path) else shutil.which("cuarch")
