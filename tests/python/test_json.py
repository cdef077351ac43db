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
    for key in ("cuarch_version", "roles", "candidates", "toolkit_roots", "devices", "findings", "environment"):
        assert key in d
    assert d["cuarch_version"] == cuarch.__version__
    assert d["devices"]["given"][0]["cc"] == "9.0"
    assert d["devices"]["driver"] is None  # not asked by default: no cuInit in this process
    jit = d["roles"]["jit_compiler"]["candidate"]
    assert jit is not None and d["candidates"][jit]["source"] == "NVRTC"
