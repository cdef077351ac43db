"""Failures: ResolveError with a stable code, the diagnostics and the library's JSON; input errors
are ValueErrors, everything else RuntimeErrors; API misuse is a plain ValueError/TypeError."""

import json
import pickle

import pytest

import cuarch


@pytest.mark.parametrize(
    "archs, code",
    [
        ("8.0a", "variant_not_defined"),
        ("sm_", "malformed_token"),
        ("compute_90b", "unknown_suffix"),
        ("12.0a+PTX", "ptx_of_specific_variant"),
        ("native;90", "keyword_not_alone"),
        ("", "empty_input"),
    ],
)
def test_malformed_input_is_a_value_error(archs, code):
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.resolve(archs, toolkit="12.8")
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, cuarch.ResolveError) and not isinstance(e, RuntimeError)
    assert e.code == code
    doc = json.loads(e.to_json())
    assert doc["ok"] is False and doc["error"]["message"] in str(e)


def test_malformed_input_is_refused_before_any_compiler_is_looked_for(tmp_path, monkeypatch):
    # No toolkit named, and no compiler anywhere cuarch looks: a malformed request is still the
    # input error (nothing detected first), never "no nvcc found".
    monkeypatch.setenv("PATH", str(tmp_path))
    for var in ("CUDA_HOME", "CUDA_PATH", "CUARCH_NVCC", "CUDACXX", "CUARCH_ARCHS"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.resolve("sm_90b", nvcc=str(tmp_path / "missing-nvcc"))
    assert info.value.code == "unknown_suffix"


def test_unbuildable_is_a_runtime_error_with_every_reason():
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.resolve("12.0a;10.0f;9.0a", toolkit="12.4")
    e = info.value
    assert isinstance(e, RuntimeError) and not isinstance(e, ValueError)
    assert e.code == "nothing_resolved"
    rejected = [d for d in e.diagnostics if d["outcome"] == "rejected"]
    assert [d["requested"] for d in rejected] == ["sm_120a", "sm_100f"]
    assert all(d["reason"]["code"] == "needs_newer_toolkit" for d in rejected)
    assert json.loads(e.to_json())["error"]["code"] == e.code
    assert "compile with CUDA 12.8 or newer" in str(e) and "12.9" in str(e)


def test_bad_toolkit_and_devices_are_input_errors():
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.resolve("9.0", toolkit="12.x")
    assert info.value.code == "invalid_version" and "toolkit" in str(info.value)
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.resolve(toolkit="12.8", devices="9.0,abc")
    assert info.value.code == "malformed_token" and "abc" in str(info.value)


def test_malformed_environment_names_the_variable(monkeypatch):
    monkeypatch.setenv("CUARCH_ARCHS", "9.0b")
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.resolve(toolkit="12.8")
    assert "CUARCH_ARCHS" in str(info.value)


def test_native_without_devices_is_no_device_not_a_default():
    # CUARCH_LIBCUDA names a driver that is not there: the driver answer is "not found", never a
    # made-up architecture.
    import os

    os.environ["CUARCH_LIBCUDA"] = "/nonexistent/libcuda.so.1"
    try:
        with pytest.raises(cuarch.ResolveFailure) as info:
            cuarch.resolve("native", toolkit="12.8")
    finally:
        del os.environ["CUARCH_LIBCUDA"]
    assert info.value.code == "no_device"


def test_torch_spelling_that_does_not_exist_raises():
    r = cuarch.resolve("10.0f", toolkit="12.9")
    assert r.targets == ["sm_100f"]
    with pytest.raises(cuarch.ResolveFailure) as info:
        r.torch_arch_list
    assert info.value.code == "not_expressible" and "TORCH_CUDA_ARCH_LIST" in str(info.value)
    assert r.cmake == "100f-real"


def test_check_failure_lists_every_target():
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.check(["sm_120a", "8.6", "sm_70"], "13.0")
    e = info.value
    assert e.code == "removed_in_toolkit"  # the first failing target's reason (sm_120a is fine with 13.0)
    assert [(d["target"], d["ok"]) for d in e.diagnostics] == [("sm_120a", True), ("sm_86", True), ("sm_70", False)]
    assert json.loads(e.to_json())["error"]["errc"] > 0


def test_api_misuse_is_plain_value_or_type_error():
    for kwargs in ({"policy": "bogus"}, {"env": ["nope"]}, {"native_variant": "x"}, {"dialect": "rust"}):
        with pytest.raises(ValueError) as info:
            cuarch.resolve("9.0", toolkit="12.8", **kwargs)
        assert not isinstance(info.value, cuarch.ResolveError)
    with pytest.raises(ValueError, match="one or the other"):
        cuarch.resolve("9.0", toolkit="12.8", compiler="nvrtc")
    with pytest.raises(ValueError, match="both name a compiler"):
        cuarch.resolve("9.0", nvrtc="/a/libnvrtc.so.12", nvcc="/a/nvcc")
    with pytest.raises(ValueError, match="does not use the NVRTC"):
        cuarch.resolve("9.0", nvrtc="/a/libnvrtc.so.12", compiler="nvcc")
    with pytest.raises(TypeError, match="12.1 from 12.10"):
        cuarch.resolve("9.0", toolkit=12.8)
    with pytest.raises(ValueError, match="is a request"):
        cuarch.check("native", "12.8")
    with pytest.raises(ValueError, match="older than the oldest"):
        cuarch.list_targets("9.0")


def test_resolve_error_pickles():
    with pytest.raises(cuarch.ResolveError) as info:
        cuarch.resolve("12.0a", toolkit="12.4")
    e = pickle.loads(pickle.dumps(info.value))
    assert type(e) is cuarch.ResolveFailure and e.code == "nothing_resolved" and e.to_json() == info.value.to_json()


def test_every_error_code_has_a_snake_case_name():
    import re

    from cuarch import _cuarch

    names = [_cuarch.code_name(i) for i in range(1, 64)]
    known = [n for n in names if n != "unknown_error"]
    assert len(known) == len(set(known)) >= 26
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", n) for n in known)
