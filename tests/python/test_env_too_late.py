"""cuarch.env(tool) after the tool was imported (issue 31, item 7): what the tool keeps from import
stays, and cuarch says so, naming the module and the value that stays; before the import, it is silent.

Two kinds of modules: fakes in sys.modules shaped like the releases of cuarch._too_late.KEPT (a real
torch import is heavy and needs no GPU to be wrong), and FlashInfer 0.7.4's real JIT modules from the
cached wheel (scripts/toolkits/fetch-tool-wheels.sh), with torch stubbed as tests/conformance/
check-tool-env.py does, in a fresh interpreter: the warning is checked against what FlashInfer then
really builds."""

import functools
import json
import os
import sys
import types
import warnings

import pytest

import cuarch
from conftest import clean_env, run_python
from test_env import roots  # noqa: F401  (the fixture: toolkit roots cuda-12.8 and cuda-13.0)

CACHE = os.environ.get("CUARCH_CACHE") or os.path.expanduser("~/.cache/cuarch")


@pytest.fixture(autouse=True)
def no_tool_variables(monkeypatch):
    for name in cuarch._cuarch.tool_variables:
        if name != "PATH":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


def fake(monkeypatch, name, **attributes):
    module = types.ModuleType(name)
    for k, v in attributes.items():
        setattr(module, k, v)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def late(tool, *args, **kwargs):
    """cuarch.env()'s variables, and its too-late warnings (the others are test_env.py's)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        variables = cuarch.env(tool, *args, **kwargs)
    return variables, [str(w.message) for w in caught if issubclass(w.category, cuarch.CuarchWarning) and
                       ("imported before" in str(w.message) or "already imported" in str(w.message))]


def cached(value):
    f = functools.cache(lambda: value)
    f()
    return f


def test_torch_cuda_home_kept_at_import(roots, monkeypatch):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    assert late("torch", "9.0a", nvcc=nvcc)[1] == []  # torch not imported: nothing to say
    fake(monkeypatch, "torch", __version__="2.15.0+cu132")
    module = fake(monkeypatch, "torch.utils.cpp_extension", CUDA_HOME=roots["12.8"])
    variables, said = late("torch", "9.0a", nvcc=nvcc)
    assert variables["CUDA_HOME"] == roots["13.0"]
    assert len(said) == 1, said
    assert "torch.utils.cpp_extension was imported before cuarch.env('torch')" in said[0]
    assert f"torch.utils.cpp_extension.CUDA_HOME keeps {roots['12.8']!r}" in said[0]
    assert "cpp_extension.py line 411" in said[0] and "PyTorch 2.15.0" in said[0]
    assert f"CUDA_HOME={roots['13.0']!r} set now changes nothing" in said[0]
    assert "before anything imports torch.utils.cpp_extension" in said[0]
    # The same toolkit kept: nothing would change, nothing is said.
    module.CUDA_HOME = roots["13.0"] + "/"
    assert late("torch", "9.0a", nvcc=nvcc)[1] == []
    # Another release: the rule is still applied, and the message says whose it is.
    module.CUDA_HOME = None
    fake(monkeypatch, "torch", __version__="2.16.1")
    said = late("torch", "9.0a", nvcc=nvcc)[1]
    assert len(said) == 1 and "keeps None" in said[0] and "PyTorch 2.15.0's source; torch 2.16.1 is loaded" in said[0]
    # A printed format is for another process: this one's modules are not its business.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cuarch.env("torch", "9.0a", nvcc=nvcc, format="shell").startswith("export ")
    assert not [w for w in caught if "imported before" in str(w.message)]


def test_flashinfer_context_and_cuda_path(roots, monkeypatch):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    fake(monkeypatch, "flashinfer", __version__="0.7.4")
    core = fake(monkeypatch, "flashinfer.jit.core", current_compilation_context=types.SimpleNamespace(TARGET_CUDA_ARCHS={(12, "0a")}))
    cpp_ext = fake(monkeypatch, "flashinfer.jit.cpp_ext", get_cuda_path=cached(roots["12.8"]), get_cuda_version=cached("12.8"))
    variables, said = late("flashinfer", "12.0f", nvcc=nvcc)
    assert variables["FLASHINFER_CUDA_ARCH_LIST"] == "12.0f" and len(said) == 2, said
    assert "current_compilation_context.TARGET_CUDA_ARCHS keeps '12.0a'" in said[0] and "jit/core.py line 206" in said[0]
    assert "FLASHINFER_CUDA_ARCH_LIST='12.0f' set now changes nothing" in said[0]
    assert f"get_cuda_path() keeps {roots['12.8']!r} (its CUDA version 12.8)" in said[1]
    # The same targets kept: only the path is said; a path not asked for yet is read later: nothing.
    core.current_compilation_context.TARGET_CUDA_ARCHS = {(12, "0f")}
    assert len(late("flashinfer", "12.0f", nvcc=nvcc)[1]) == 1
    cpp_ext.get_cuda_path = functools.cache(lambda: roots["12.8"])
    assert late("flashinfer", "12.0f", nvcc=nvcc)[1] == []
    # An empty set is detected again by FlashInfer's check_cuda_arch(), reading the variable then.
    core.current_compilation_context.TARGET_CUDA_ARCHS = set()
    assert late("flashinfer", "12.0f", nvcc=nvcc)[1] == []
    # A module without what the table names: cuarch cannot tell, and says that.
    del core.current_compilation_context
    said = late("flashinfer", "12.0f", nvcc=nvcc)[1]
    assert len(said) == 1 and "flashinfer.jit.core is already imported and has no current_compilation_context" in said[0]


def test_tvm_ffi_and_triton(roots, monkeypatch):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    fake(monkeypatch, "tvm_ffi.cpp.extension", _find_cuda_home=cached(roots["12.8"]))
    said = late("tvm-ffi", "9.0", nvcc=nvcc)[1]
    assert len(said) == 1 and f"_find_cuda_home() keeps {roots['12.8']!r}" in said[0] and "extension.py line 165" in said[0]
    # Triton reads its variables at each compile; only a path set on its knobs stays.
    ptxas = os.path.join(roots["13.0"], "bin", "ptxas")
    with open(ptxas, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(ptxas, 0o755)
    knobs = fake(monkeypatch, "triton.knobs", nvidia=types.SimpleNamespace())
    assert late("triton", "9.0", nvcc=nvcc)[1] == []
    knobs.nvidia.ptxas_blackwell = "/opt/other/ptxas"
    said = late("triton", "9.0", nvcc=nvcc)[1]
    assert len(said) == 1 and "triton.knobs.nvidia.ptxas_blackwell keeps '/opt/other/ptxas'" in said[0]


def test_cmake_has_no_module(roots):
    assert late("cmake", "9.0a", nvcc=os.path.join(roots["13.0"], "bin", "nvcc"))[1] == []


# --- FlashInfer 0.7.4's own modules ------------------------------------------------------------

REAL_FLASHINFER = """
import json, os, sys, types, warnings
cache = {cache!r}
tools = os.path.join(cache, "wheels-tools")
sys.path[:0] = [os.path.join(tools, "tvm-ffi-0.1.15.post2")] + [os.path.join(tools, f) for f in sorted(os.listdir(tools))
                                                               if f.startswith(("packaging-", "filelock-", "typing_extensions-")) and f.endswith(".whl")]
import tvm_ffi  # before the torch stub: it probes for a real torch
torch = types.ModuleType("torch")  # FlashInfer's JIT asks torch for nothing once the variables are set
torch.cuda = types.SimpleNamespace(device_count=lambda: 0, is_available=lambda: False)
torch.version = types.SimpleNamespace(cuda=None)
torch._C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True)
torch.__getattr__ = lambda name: "torch." + name  # dtypes named in module-level tables
sys.modules["torch"] = torch
for name, sub in (("flashinfer", "flashinfer"), ("flashinfer.jit", "flashinfer/jit")):
    m = types.ModuleType(name)  # the package's __init__ imports every kernel: its JIT needs none
    m.__path__ = [os.path.join(tools, "flashinfer-0.7.4", sub)]
    sys.modules[name] = m
import cuarch

def flashinfer():
    import flashinfer.jit.core as core, flashinfer.jit.cpp_ext as cpp_ext
    return core, cpp_ext

if {before!r}:
    core, cpp_ext = flashinfer()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    os.environ.update(cuarch.env("flashinfer", "12.0f", nvcc={nvcc!r}))
if not {before!r}:
    core, cpp_ext = flashinfer()
print(json.dumps({{"said": [str(w.message) for w in caught if "imported before" in str(w.message)],
                  "flags": [f for f in core.current_compilation_context.get_nvcc_flags_list() if f.startswith("-gencode")],
                  "cuda_path": cpp_ext.get_cuda_path(), "cuda_version": str(cpp_ext.get_cuda_version())}}))
"""


def real_flashinfer(before, roots):
    tools = os.path.join(CACHE, "wheels-tools")
    if not os.path.isdir(os.path.join(tools, "flashinfer-0.7.4", "flashinfer")) or not os.path.isdir(
            os.path.join(tools, "tvm-ffi-0.1.15.post2")):
        pytest.skip(f"skipped: flashinfer-python 0.7.4 / apache-tvm-ffi not unpacked in {tools} "
                    "(scripts/toolkits/fetch-tool-wheels.sh)")
    # The seed: FlashInfer imported with a CUDA 12.8 in CUDA_HOME and a bare 12.0 in its list.
    env = clean_env(CUDA_HOME=roots["12.8"], FLASHINFER_CUDA_ARCH_LIST="12.0", PATH="/usr/bin:/bin")
    done = run_python(REAL_FLASHINFER.format(cache=CACHE, before=before, nvcc=os.path.join(roots["13.0"], "bin", "nvcc")), env=env)
    if done.returncode != 0 and "ModuleNotFoundError" in done.stderr:
        pytest.skip(f"skipped: FlashInfer's JIT modules do not import here ({done.stderr.strip().splitlines()[-1]}); "
                    "scripts/toolkits/fetch-tool-wheels.sh fetches what they import")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_real_flashinfer_imported_first_keeps_its_context(roots):
    got = real_flashinfer(True, roots)
    # What FlashInfer really does after os.environ.update(): the 12.8 context stays...
    assert got["flags"] == ["-gencode=arch=compute_120a,code=sm_120a"], got
    assert (got["cuda_path"], got["cuda_version"]) == (roots["12.8"], "12.8"), got
    # ...and cuarch said exactly that, with the values that stay.
    assert len(got["said"]) == 2, got["said"]
    assert "flashinfer.jit.core was imported before cuarch.env('flashinfer')" in got["said"][0]
    assert "TARGET_CUDA_ARCHS keeps '12.0a'" in got["said"][0]
    assert f"get_cuda_path() keeps {roots['12.8']!r} (its CUDA version 12.8)" in got["said"][1]


def test_real_flashinfer_imported_after_builds_what_cuarch_validated(roots):
    got = real_flashinfer(False, roots)  # the order README shows
    assert got["said"] == [], got["said"]
    assert got["flags"] == ["-gencode=arch=compute_120f,code=sm_120f"], got
    assert (got["cuda_path"], got["cuda_version"]) == (roots["13.0"], "13.0"), got
