"""to_json(): the library's document, byte for byte what `cuarch resolve --format json` prints."""

import json
import subprocess

import pytest

import cuarch
from conftest import clean_env

CASES = [
    ("9.0a;12.0", "12.8", []),
    ("native", "13.0", ["--device-cc", "8.6,12.0"]),
    ("10.0f;8.6+PTX", "12.9", []),
]


@pytest.mark.parametrize("archs, toolkit, extra", CASES)
def test_same_document_as_the_command_line(cli, archs, toolkit, extra):
    out = subprocess.run([cli, "resolve", "--archs", archs, "--toolkit", toolkit, "--format", "json", *extra],
                         capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    devices = extra[1] if extra else None
    r = cuarch.resolve(archs, toolkit=toolkit, devices=devices)
    assert r.to_json() == out.stdout.rstrip("\n")
    doc = json.loads(r.to_json())
    assert set(doc) == set(json.loads(out.stdout))
    assert doc["targets"] and [t["name"] for t in doc["targets"]] == r.targets
    assert r.as_dict() == doc


def test_failure_document_matches_the_command_line(cli):
    out = subprocess.run([cli, "resolve", "--archs", "12.0a", "--toolkit", "12.4", "--format", "json"],
                         capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == 1
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.resolve("12.0a", toolkit="12.4")
    assert info.value.to_json() == out.stdout.rstrip("\n")


def test_doctor_is_the_doctors_document(local_cuda):
    d = cuarch.doctor(cuda_home=local_cuda, devices="9.0")
    assert list(d)[:2] == ["schema", "cuarch_version"] and d["schema"] == "cuarch.doctor/1"
    for key in ("cuarch_version", "roles", "candidates", "toolkit_roots", "devices", "findings", "environment"):
        assert key in d
    assert d["cuarch_version"] == cuarch.__version__
    assert d["devices"]["given"][0]["cc"] == "9.0"
    assert d["devices"]["driver"] is None  # not asked by default: no cuInit in this process
    jit = d["roles"]["jit_compiler"]["candidate"]
    assert jit is not None and d["candidates"][jit]["source"] == "NVRTC"


# ---- the versioned contract (docs/json.md): schema ids, cuarch_version, the schemas in docs/schema ----

def _validator():
    """The contract test's validator (tests/scripts/json_contract.py) and the schemas it checks against."""
    import importlib.util
    import os

    from conftest import REPO

    spec = importlib.util.spec_from_file_location("json_contract", os.path.join(REPO, "tests", "scripts", "json_contract.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    contract = module.Contract(module.load_schemas(os.path.join(REPO, "docs", "schema")))
    return contract


def _valid(contract, document_text, schema):
    doc = json.loads(document_text)
    assert list(doc)[:2] == ["schema", "cuarch_version"], list(doc)[:2]
    assert doc["schema"] == schema and doc["cuarch_version"] == cuarch.__version__
    assert contract.problems(doc) == []
    return doc


def test_python_documents_follow_their_schemas(local_cuda):
    contract = _validator()
    _valid(contract, cuarch.resolve("9.0a;12.0", toolkit="12.8").to_json(), "cuarch.resolve/1")
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.resolve("12.0a", toolkit="12.4")
    _valid(contract, info.value.to_json(), "cuarch.resolve/1")
    with pytest.raises(cuarch.ResolveError) as info:
        cuarch.resolve("10.0f", toolkit="12.9").torch_arch_list
    assert info.value.code == "not_expressible"
    _valid(contract, info.value.to_json(), "cuarch.resolve/1")
    with pytest.raises(cuarch.ResolveFailure) as info:
        cuarch.check("sm_120a;9.0a", "12.4")
    _valid(contract, info.value.to_json(), "cuarch.check/1")
    with pytest.raises(cuarch.ResolveInputError) as info:
        cuarch.list_targets("12.x")
    _valid(contract, info.value.to_json(), "cuarch.list/1")
    assert contract.problems(cuarch.doctor(cuda_home=local_cuda, devices="9.0", isolated=True)) == []


@pytest.mark.parametrize("targets, toolkit, status", [("sm_120a;9.0a", "12.4", 1), ("sm_9x", "12.4", 2), ("sm_90", "twelve", 2)])
def test_check_failure_is_the_command_lines_document(cli, targets, toolkit, status):
    out = subprocess.run([cli, "check", "--toolkit", toolkit, "--format", "json", "--archs", targets],
                         capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == status, out.stderr
    with pytest.raises(cuarch.ResolveError) as info:
        cuarch.check(targets, toolkit)
    assert info.value.to_json() == out.stdout.rstrip("\n")
    assert json.loads(out.stdout)["error"]["code"] == info.value.code


def test_usage_error_is_a_json_document(cli):
    out = subprocess.run([cli, "resolve", "--format", "json", "--bogus"], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == 2
    doc = _valid(_validator(), out.stdout, "cuarch.error/1")
    assert doc["command"] == "resolve" and doc["error"]["code"] == "bad_usage" and "--bogus" in doc["error"]["message"]
