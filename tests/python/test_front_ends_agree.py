"""One front door: the C++ call (tests/front_door_driver.cpp), the command line and Python give the
same targets, error codes, warnings and exit status for one matrix of requests over the seed
layouts, built from real pieces (the local CUDA 13.0, real NVRTC 12.6 / 12.8 wheels) and, where no
real piece exists, the fake nvcc 12.8 (no nvcc 12.8 binary can be had: the pip wheels ship ptxas).

An NVRTC "already loaded in the process" is preloaded (LD_PRELOAD) into every front end alike: from
cuarch's side that is the same as CuPy loading it before the call.
"""

import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import REPO, clean_env, fetch_cached

BINARY_DIR = os.environ.get("CUARCH_BINARY_DIR", "")
CLI = os.environ.get("CUARCH_CLI") or os.path.join(BINARY_DIR, "cuarch")
DRIVER = os.environ.get("CUARCH_FRONT_DOOR_DRIVER") or os.path.join(BINARY_DIR, "tests", "front_door_driver")
LOCAL_CUDA = "/usr/local/cuda"
FAKE_NVCC_12_8 = os.path.join(REPO, "tests", "fixtures", "fake-nvcc", "nvcc-12.8")

# Library option name -> the command line's flag (None: a flag without a value).
FLAGS = {"archs": "--archs", "devices": "--device-cc", "compiler": "--compiler", "cuda_home": "--cuda-home", "nvcc": "--nvcc",
         "policy": "--policy", "isolated": None, "strict": None}

REQUESTS = [
    {"archs": "12.0f"},
    {"archs": "12.0a"},
    {"archs": "9.0a;10.0"},
    {"archs": "all-major"},
    {"archs": "native", "devices": "12.0"},
    {"archs": "7.0"},
    {"archs": "10.1"},
    {"archs": "sm_90b"},
    {"archs": "12.0f", "strict": True},
    {"archs": "12.0f;7.0", "policy": "best-effort"},
]


def path_dir_with_fake_nvcc(tmp):
    d = os.path.join(tmp, "nvcc-12.8-bin")
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "nvcc")):
        os.symlink(FAKE_NVCC_12_8, os.path.join(d, "nvcc"))
    return d


def layouts(tmp):
    """name -> (environment, extra options). Each a layout of the issue's matrix."""
    base = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    fake_bin = path_dir_with_fake_nvcc(tmp)
    out = {
        "seed: nvcc 12.8 first on PATH, CUDA_HOME 13.0": (dict(base, PATH=fake_bin + ":/usr/bin:/bin", CUDA_HOME=LOCAL_CUDA), {}),
        "nvcc 12.8 first on PATH, 13.0 at the default location": (dict(base, PATH=fake_bin + ":/usr/bin:/bin"), {}),
        "CUDACXX nvcc 12.8, CUDA_HOME 13.0": (dict(base, CUDACXX=FAKE_NVCC_12_8, CUDA_HOME=LOCAL_CUDA), {}),
        "CUDA_HOME names a missing root": (dict(base, CUDA_HOME=os.path.join(tmp, "no-such-cuda")), {}),
        "no compiler": (dict(base), {"isolated": True}),
    }
    for release in ("12.6.85", "12.8.93"):
        lib_dir = fetch_cached("nvrtc", release)
        lib = os.path.join(lib_dir, "libnvrtc.so.12")
        out[f"NVRTC {release} loaded, nvcc 13.0 in CUDA_HOME"] = (dict(base, CUDA_HOME=LOCAL_CUDA, LD_PRELOAD=lib), {})
    return out


# Variables of the test's own environment that would change what a layout means.
LAYOUT_VARIABLES = ("PATH", "CUDA_HOME", "CUDA_PATH", "CUDACXX", "LD_PRELOAD", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
                    "CUARCH_NVCC", "CUARCH_NVRTC")


def layout_env(variables):
    env = {k: v for k, v in clean_env().items() if k not in LAYOUT_VARIABLES}
    env.update(variables)
    return env


def answer(doc_text, status):
    """What must agree: exit status, targets or error code, warning kinds."""
    try:
        doc = json.loads(doc_text)
    except ValueError:
        return {"exit": status, "document": doc_text.strip()[:200]}
    targets = [t["name"] for t in doc["targets"]] if doc.get("ok") else None
    code = None if doc.get("ok") else doc["error"]["code"]
    return {"exit": status, "targets": targets, "code": code, "warnings": sorted(w["kind"] for w in doc.get("warnings", []))}


def via_cli(env, options):
    argv = [CLI, "resolve", "--format", "json"]
    for name, value in options.items():
        flag = FLAGS[name]
        argv += [("--" + name)] if flag is None else [flag, value]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    return answer(done.stdout, done.returncode)


def via_cpp(env, options):
    argv = [DRIVER] + [f"{k}={'true' if v is True else v}" for k, v in options.items()]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    return answer(done.stdout, done.returncode)


PY = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import cuarch
try:
    print(cuarch.resolve(**json.loads(sys.argv[1])).to_json())
except cuarch.ResolveInputError as e:
    print(e.to_json()); sys.exit(2)
except cuarch.ResolveFailure as e:
    print(e.to_json()); sys.exit(1)
"""


def via_python(env, options):
    done = subprocess.run([sys.executable, "-c", PY, json.dumps(options)], capture_output=True, text=True, env=env, timeout=120)
    return answer(done.stdout, done.returncode)


@pytest.fixture(scope="module")
def matrix():
    if not os.access(CLI, os.X_OK) or not os.access(DRIVER, os.X_OK):
        pytest.skip(f"skipped: the command line ({CLI}) or the C++ driver ({DRIVER}) is not built")
    if not os.access(os.path.join(LOCAL_CUDA, "bin", "nvcc"), os.X_OK):
        pytest.skip("skipped: no CUDA toolkit at /usr/local/cuda")
    tmp = tempfile.mkdtemp(prefix="cuarch-front-ends-")
    return layouts(tmp)


def test_cpp_cli_and_python_agree_on_every_request_and_layout(matrix):
    rows, disagreements = 0, []
    for name, (variables, extra) in matrix.items():
        env = layout_env(variables)
        for request in REQUESTS:
            options = dict(request, **extra)
            got = {"c++": via_cpp(env, options), "cli": via_cli(env, options), "python": via_python(env, options)}
            rows += 1
            if not (got["c++"] == got["cli"] == got["python"]):
                disagreements.append(f"{name} {options}: {got}")
    assert rows >= 20
    assert not disagreements, "\n".join(disagreements)


def test_the_seed_layouts_say_what_bears_on_the_answer(matrix):
    """Not only the same answers: the right ones. The seed warns; a loaded NVRTC 12.8 decides and refuses 12.0f."""
    env, _ = matrix["seed: nvcc 12.8 first on PATH, CUDA_HOME 13.0"]
    seed = via_cli(layout_env(env), {"archs": "12.0f"})
    assert seed == {"exit": 0, "targets": ["sm_120f"], "code": None, "warnings": ["tool_compiler_disagrees"]}, seed
    env, _ = matrix["NVRTC 12.8.93 loaded, nvcc 13.0 in CUDA_HOME"]
    loaded = via_python(layout_env(env), {"archs": "12.0f"})
    assert loaded["exit"] == 1 and loaded["code"] == "nothing_resolved", loaded
