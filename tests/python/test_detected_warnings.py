"""cuarch.resolve() against a detected compiler says where sources disagree, as `cuarch resolve` does:
each disagreement that bears on the answer is in Resolution.warnings and raised as a CuarchWarning,
and the answer stands. Real 13.0 toolkit (local_cuda) plus the fake nvcc 12.8 of the command-line tests."""

import json
import os
import shutil
import warnings

import pytest

import cuarch
from conftest import REPO


@pytest.fixture
def nvcc_12_8(tmp_path):
    """An nvcc that says it is 12.8 (tests/fixtures/fake-nvcc/nvcc-12.8), in its own directory."""
    path = tmp_path / "nvcc"
    shutil.copy(os.path.join(REPO, "tests", "fixtures", "fake-nvcc", "nvcc-12.8"), path)
    path.chmod(0o755)
    return str(path)


def test_an_override_against_cuda_home_is_a_warning_when_the_verdict_differs(monkeypatch, local_cuda, nvcc_12_8):
    monkeypatch.setenv("CUDA_HOME", local_cuda)
    # The same targets from both: another release alone does not bear on the answer.
    with warnings.catch_warnings():
        warnings.simplefilter("error", cuarch.CuarchWarning)
        assert cuarch.resolve("9.0", nvcc=nvcc_12_8).targets == ["sm_90"]
    # all-major differs: 12.8 still builds sm_50-sm_70, CUDA_HOME's 13.0 does not.
    with pytest.warns(cuarch.CuarchWarning, match=r"\(tool_compiler_disagrees\)"):
        r = cuarch.resolve("all-major", nvcc=nvcc_12_8)
    assert r.compiler.version.startswith("12.8")
    assert [w["kind"] for w in r.warnings] == ["tool_compiler_disagrees"]
    assert "$CUDA_HOME" in r.warnings[0]["what"] and "13.0" in r.warnings[0]["what"]
    with pytest.raises(cuarch.ResolveFailure) as strict:
        cuarch.resolve("all-major", nvcc=nvcc_12_8, strict=True)
    assert strict.value.code == "warnings_under_strict"


def test_one_toolkit_everywhere_is_no_warning(monkeypatch, local_cuda):
    monkeypatch.setenv("CUDA_HOME", local_cuda)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cuarch.CuarchWarning)
        r = cuarch.resolve("9.0", nvcc=os.path.join(local_cuda, "bin", "nvcc"))
    assert r.targets == ["sm_90"]
    assert r.warnings == []


def test_a_failure_names_the_compiler_that_would_build_it(monkeypatch, local_cuda, nvcc_12_8):
    monkeypatch.setenv("CUDA_HOME", local_cuda)
    with pytest.raises(cuarch.ResolveFailure) as failure:
        cuarch.resolve("12.0f", devices="12.0", nvcc=nvcc_12_8)
    document = json.loads(failure.value.to_json())
    assert document["compiler"]["version"].startswith("12.8")
    alternatives = document["alternatives"]
    assert alternatives and alternatives[0]["version"].startswith("13.0"), alternatives
    assert alternatives[0]["fix"].startswith("name "), alternatives  # --nvcc outranks every variable
