"""cuarch.resolve() against fixed toolkits: the library's answers, every spelling."""

import json
import os

import pytest

import cuarch
from conftest import clean_env, run_python


def test_done_when_example():
    assert cuarch.resolve("9.0a;12.0", toolkit="12.8").targets == ["sm_90a", "sm_120"]


def test_every_spelling_of_one_resolution():
    r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
    assert r.nvcc_flags == ["-gencode=arch=compute_90a,code=sm_90a", "-gencode=arch=compute_120,code=sm_120"]
    assert r.nvrtc_options == {"sm_90a": ["--gpu-architecture=sm_90a"], "sm_120": ["--gpu-architecture=sm_120"]}
    assert r.torch_arch_list == "9.0a;12.0"
    assert r.cmake == "90a-real;120-real"
    assert r.cache_key == "cuarch-jit-key/2 compiler=cuarch's table version=12.8 build=none path=0: targets=sm_90a,sm_120"
    assert len(r.cache_digest) == 16 and int(r.cache_digest, 16) >= 0
    assert [d["outcome"] for d in r.diagnostics] == ["kept", "kept"]
    assert r.notes == []


def test_given_toolkit_is_the_compiler_and_says_how():
    c = cuarch.resolve("8.6", toolkit="12.4").compiler
    assert (c.kind, c.version, c.path, c.how, c.origin) == ("cuarch's table", "12.4", "", "explicit argument", "toolkit=12.4")


@pytest.mark.parametrize(
    "archs, toolkit, targets",
    [
        (["sm_90a", "compute_90"], "12.4", ["compute_90", "sm_90a"]),  # a sequence is a list; set order
        ("90a-real;100f", "12.9", ["sm_90a", "sm_100f"]),  # CMake spelling
        ("8.6+PTX", "12.4", ["sm_86", "compute_86"]),  # PyTorch spelling
        ("sm_90a compute_90", "12.4", ["compute_90", "sm_90a"]),  # space separated
    ],
)
def test_spellings_read_by_the_library(archs, toolkit, targets):
    assert cuarch.resolve(archs, toolkit=toolkit).targets == targets


def test_native_with_given_devices_prefers_a():
    r = cuarch.resolve("native", toolkit="12.8", devices="9.0,12.0")
    assert r.targets == ["sm_90a", "sm_120a"]
    assert cuarch.resolve(toolkit="12.8", devices=["9.0"], native_variant="baseline").targets == ["sm_90"]


def test_best_effort_drops_and_reports():
    r = cuarch.resolve("9.0a;12.0a", toolkit="12.4", policy="best-effort")
    assert r.targets == ["sm_90a"]
    assert len(r.notes) == 1 and "sm_120a" in r.notes[0] and "12.8" in r.notes[0]


def test_ptx_fallback_with_a_given_driver():
    r = cuarch.resolve("native", toolkit="12.4", devices="12.0", policy=["ptx-fallback"], driver="12.8")
    assert r.targets == ["compute_90"]
    assert r.diagnostics[0]["ptx_fallback"] == "used"


def test_environment_override_is_read_and_reported(monkeypatch):
    monkeypatch.setenv("CUARCH_ARCHS", "8.0")
    r = cuarch.resolve(toolkit="12.4", devices="9.0")  # the default request: the variable overrides it
    assert r.targets == ["sm_80"]
    assert r.request["origin"] == "environment" and r.request["variable"] == "CUARCH_ARCHS"
    # Explicit archs beat the environment (as on the command line), with a warning naming it.
    with pytest.warns(cuarch.CuarchWarning, match="ignoring CUARCH_ARCHS=8.0"):
        assert cuarch.resolve("9.0a", toolkit="12.4").targets == ["sm_90a"]
    assert cuarch.resolve("9.0a", toolkit="12.4", env=("cuarch",)).targets == ["sm_80"]  # env given: it overrides
    assert cuarch.resolve(toolkit="12.4", devices="9.0", env=None).targets == ["sm_90a"]
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "8.6")
    monkeypatch.delenv("CUARCH_ARCHS")
    assert cuarch.resolve(toolkit="12.4", devices="9.0").targets == ["sm_90a"]  # torch not read by default
    assert cuarch.resolve(toolkit="12.4", devices="9.0", env=("cuarch", "torch")).targets == ["sm_86"]


def test_a_failure_still_says_what_was_ignored(monkeypatch):
    # The notes bear on a failure as much as on an answer: an ignored variable is said, then the
    # failure is raised (before, a failure dropped them).
    monkeypatch.setenv("CUARCH_ARCHS", "8.0")
    with pytest.warns(cuarch.CuarchWarning, match="ignoring CUARCH_ARCHS=8.0"):
        with pytest.raises(cuarch.ResolveFailure):
            cuarch.resolve("3.5", toolkit="13.0")


def test_check_and_list():
    assert cuarch.check("sm_90a 8.6", "12.4") == ["sm_90a", "sm_86"]
    listed = cuarch.list_targets("12.8")
    assert "sm_120a" in listed and "sm_100f" not in listed and "compute_90" in listed
    assert "sm_100f" in cuarch.list_targets("12.9")


def test_list_newer_than_table_warns():
    with pytest.warns(cuarch.CuarchWarning, match="newer than cuarch's table"):
        assert cuarch.list_targets("99.0")


def test_version_is_the_headers():
    import re

    from conftest import REPO

    text = open(f"{REPO}/include/cuarch/core/version.hpp").read()
    parts = [re.search(rf"CUARCH_VERSION_{p}\s+(\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert cuarch.__version__ == ".".join(parts)


def test_python_scans_its_own_environment_without_virtual_env(local_cuda):
    """Python's own environment (sys.prefix) is scanned where an activated one would be, VIRTUAL_ENV
    set or not; the command line run from the same shell scans it only when it is activated."""
    code = "import cuarch, json, sys; d = cuarch.doctor(); print(json.dumps([p['prefix'] for p in d['python_environments']]), sys.prefix)"
    env = {k: v for k, v in clean_env().items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    done = run_python(code, env=env)
    assert done.returncode == 0, done.stderr
    prefixes, prefix = done.stdout.rsplit(" ", 1)
    assert prefix.strip() in json.loads(prefixes)


def test_python_prefix_names_a_wheel_environment(nvrtc_12_4, tmp_path):
    """python_prefix= is scanned first for pip nvidia-* wheels: a prefix holding the NVRTC 12.4 wheel's
    library decides the JIT path."""
    lib_dir = tmp_path / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_nvrtc" / "lib"
    lib_dir.mkdir(parents=True)
    os.symlink(nvrtc_12_4, lib_dir / "libnvrtc.so.12")
    r = cuarch.resolve("9.0a", compiler="nvrtc", python_prefix=str(tmp_path))
    assert r.compiler.kind == "NVRTC" and r.compiler.version.startswith("12.4"), r.compiler
    # How it was found is the document's, in parts (issue 34: Python rebuilds nothing it carries).
    c = r.as_dict()["compiler"]
    assert (r.compiler.how, r.compiler.origin, r.compiler.why) == (c["how"], c["origin"], c["why"])
    assert r.compiler.origin.startswith("python prefix") or str(tmp_path) in r.compiler.origin, r.compiler
    assert r.compiler.why, r.compiler


def test_defaults_are_the_librarys():
    """Issue 34: a Python default that restates the library's ("strict", "generic") is a second
    place the rule lives; every option Python does not pass is the library's to decide."""
    import inspect

    for function in (cuarch.resolve, cuarch.env):
        for name, parameter in inspect.signature(function).parameters.items():
            default = parameter.default
            if default is inspect.Parameter.empty or isinstance(default, bool):
                continue  # required, or a flag: only True (or False) is passed
            if default is cuarch._NATIVE or default is cuarch._CUARCH_ENV:
                continue  # shown as the library's default, never passed (the sentinel says "not given")
            assert default is None or not isinstance(default, (str, int, float, list, tuple)), (function.__name__, name, default)
    # Left out, the library's default applies: the same answer as naming it.
    assert cuarch.resolve("9.0a", toolkit="13.0").targets == cuarch.resolve("9.0a", toolkit="13.0", policy="strict", dialect="generic").targets
