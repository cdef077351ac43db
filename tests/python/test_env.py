"""cuarch.env(tool, ...): `cuarch env --for TOOL` in process (issue 21): the same variables, the same
bytes in every format, the same refusals, and what the environment has otherwise said as
CuarchWarnings. Toolkit layouts are built from the fake nvcc 12.8 (tests/fixtures/fake-nvcc) and a
fake 13.0 made from it, so the tests run anywhere."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import cuarch
from conftest import REPO, clean_env

FAKE_12_8 = os.path.join(REPO, "tests", "fixtures", "fake-nvcc", "nvcc-12.8")


def cli():
    found = shutil.which("cuarch", path=os.path.dirname(sys.executable))
    if not found:
        pytest.skip("skipped: no cuarch console script beside this interpreter")
    return found


@pytest.fixture
def roots(tmp_path):
    """Toolkit roots cuda-12.8 and cuda-13.0, each <root>/bin/nvcc."""
    out = {}
    for release, text in (("12.8", None), ("13.0", "13.0")):
        root = tmp_path / f"cuda-{release}"
        (root / "bin").mkdir(parents=True)
        body = open(FAKE_12_8).read()
        if text:
            body = body.replace("release 12.8, V12.8.93", "release 13.0, V13.0.88").replace("12.8", "13.0")
        nvcc = root / "bin" / "nvcc"
        nvcc.write_text(body)
        nvcc.chmod(0o755)
        out[release] = str(root)
    return out


@pytest.fixture(autouse=True)
def no_tool_variables(monkeypatch):
    for name in cuarch._cuarch.tool_variables:
        if name != "PATH":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


def test_dict_for_each_tool(roots):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    assert cuarch.env("flashinfer", "9.0a;12.0f", nvcc=nvcc) == {
        "FLASHINFER_CUDA_ARCH_LIST": "9.0a 12.0f", "CUDA_HOME": roots["13.0"], "FLASHINFER_NVCC": nvcc}
    assert cuarch.env("torch", ["8.6+PTX", "9.0a"], nvcc=nvcc) == {"TORCH_CUDA_ARCH_LIST": "8.6+PTX;9.0a", "CUDA_HOME": roots["13.0"]}
    assert cuarch.env("cmake", "9.0a", nvcc=nvcc) == {"CUDAARCHS": "90a-real", "CUDACXX": nvcc}
    assert cuarch.env("tvm-ffi", "8.6;9.0", nvcc=nvcc) == {"TVM_FFI_CUDA_ARCH_LIST": "8.6 9.0", "CUDA_HOME": roots["13.0"]}


@pytest.mark.parametrize("fmt", ["shell", "dotenv", "github", "json"])
def test_same_bytes_as_the_command_line(roots, fmt):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    text = cuarch.env("flashinfer", "9.0a;12.0f", nvcc=nvcc, format=fmt)
    done = subprocess.run([cli(), "env", "--for", "flashinfer", "--archs", "9.0a;12.0f", "--nvcc", nvcc, "--format", fmt],
                          capture_output=True, text=True, env=clean_env(PATH="/usr/bin:/bin"))
    assert done.returncode == 0, done.stderr
    assert text == done.stdout
    if fmt == "json":
        assert json.loads(text)["schema"] == "cuarch.env/1"


def test_not_expressible_names_tool_release_and_target(roots):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    with pytest.raises(cuarch.ResolveFailure) as e:
        cuarch.env("flashinfer", "9.0;10.0a", nvcc=nvcc)
    assert e.value.code == "not_expressible"
    assert "sm_90 cannot be written in FLASHINFER_CUDA_ARCH_LIST of flashinfer-python 0.7.4" in str(e.value)
    document = json.loads(e.value.to_json())
    assert document["schema"] == "cuarch.env/1" and document["ok"] is False and document["variables"] == []
    with pytest.raises(cuarch.ResolveFailure, match="PyTorch"):
        cuarch.env("torch", "10.0f", nvcc=nvcc)


def test_resolution_failure_and_bad_arguments(roots):
    with pytest.raises(cuarch.ResolveFailure) as e:
        cuarch.env("torch", "12.0f", nvcc=os.path.join(roots["12.8"], "bin", "nvcc"))
    assert e.value.code == "nothing_resolved" and "12.9" in str(e.value)
    with pytest.raises(cuarch.ResolveInputError):
        cuarch.env("torch", "8.0a", nvcc=os.path.join(roots["12.8"], "bin", "nvcc"))
    with pytest.raises(ValueError, match="tool must be"):
        cuarch.env("bogus")
    with pytest.raises(ValueError, match="format must be"):
        cuarch.env("torch", format="yaml")
    with pytest.raises(ValueError, match="cmake_version"):
        cuarch.env("torch", "9.0a", cmake_version="3.25.1")


def test_what_the_environment_has_otherwise_is_said(roots, monkeypatch):
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "8.8;9.0")
    with pytest.warns(cuarch.CuarchWarning, match=r"TORCH_CUDA_ARCH_LIST was '8.8;9.0' \(PyTorch raises ValueError"):
        assert cuarch.env("torch", "9.0a", nvcc=nvcc)["TORCH_CUDA_ARCH_LIST"] == "9.0a"
    monkeypatch.setenv("CUDA_HOME", roots["12.8"])
    with pytest.warns(cuarch.CuarchWarning, match="its nvcc: nvcc 12.8"):
        assert cuarch.env("flashinfer", "12.0f", cuda_home=roots["13.0"])["CUDA_HOME"] == roots["13.0"]
    monkeypatch.setenv("FLASHINFER_EXTRA_CUDAFLAGS", "-gencode=arch=compute_80,code=sm_80")
    with pytest.raises(cuarch.ResolveFailure, match="strict=True"), pytest.warns(cuarch.CuarchWarning, match="tool_variable_adds_targets"):
        cuarch.env("flashinfer", "9.0a", nvcc=nvcc, strict=True)


def test_the_seed_layout(roots, monkeypatch):
    """nvcc 12.8 first on PATH, 13.0 in CUDA_HOME: FlashInfer is pointed at the 13.0 that validated
    sm_120f, and the 12.8 on PATH is named as what it will not run."""
    monkeypatch.setenv("PATH", os.path.join(roots["12.8"], "bin") + ":/usr/bin:/bin")
    monkeypatch.setenv("CUDA_HOME", roots["13.0"])
    with pytest.warns(cuarch.CuarchWarning, match="the first nvcc on PATH is nvcc 12.8.93.*FlashInfer will not run it"):
        got = cuarch.env("flashinfer", "12.0f")
    assert got == {"FLASHINFER_CUDA_ARCH_LIST": "12.0f", "CUDA_HOME": roots["13.0"],
                   "FLASHINFER_NVCC": os.path.join(roots["13.0"], "bin", "nvcc")}


def test_messages_name_python_keywords(roots, monkeypatch):
    # A fix names the option as Python spells it (the keyword, a Python literal), not a CLI flag; and,
    # followed, it is accepted (issue 31).
    nvcc = os.path.join(roots["13.0"], "bin", "nvcc")
    with pytest.raises(cuarch.ResolveFailure) as e:
        cuarch.env("flashinfer", "9.0;12.0", nvcc=nvcc)
    assert "fix: ask for targets it spells (archs='sm_90a;sm_120a')" in str(e.value), str(e.value)
    assert "--archs" not in str(e.value)
    assert cuarch.env("flashinfer", "sm_90a;sm_120a", nvcc=nvcc)["FLASHINFER_CUDA_ARCH_LIST"] == "9.0a 12.0a"
    with pytest.raises(cuarch.ResolveFailure) as e:
        cuarch.resolve("native", toolkit="13.0", timeout=0.001)
    assert "(devices='9.0')" in str(e.value) and "--device-cc" not in str(e.value), str(e.value)
    monkeypatch.setenv("CUARCH_ARCHS", "8.0")
    with pytest.warns(cuarch.CuarchWarning, match=r"archs given; ignoring CUARCH_ARCHS=8.0 \(env='cuarch' lets it override\)"):
        cuarch.resolve("9.0", toolkit="13.0")


def test_a_value_dotenv_cannot_carry_is_refused(tmp_path):
    # python-dotenv expands ${...} in every value: such a toolkit path is refused in dotenv, kept in shell.
    root = tmp_path / "cuda ${HOME}"
    (root / "bin").mkdir(parents=True)
    nvcc = root / "bin" / "nvcc"
    nvcc.write_text(open(FAKE_12_8).read())
    nvcc.chmod(0o755)
    with pytest.raises(cuarch.ResolveFailure, match=r"the value of CUDA_HOME in the dotenv format cannot be written"):
        cuarch.env("torch", "9.0a", nvcc=str(nvcc), format="dotenv")
    assert f"export CUDA_HOME='{root}'" in cuarch.env("torch", "9.0a", nvcc=str(nvcc), format="shell")
