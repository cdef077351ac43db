"""cuarch.inspect(): the same reading and verdict as `cuarch inspect` (docs/inspect.md), on real
nvcc 13.0 artefacts (tests/data/inspect)."""

import json
import os
import shutil
import subprocess

import pytest

import cuarch
from conftest import REPO

DATA = os.path.join(REPO, "tests", "data", "inspect")


def test_images_and_verdict_per_device():
    path = os.path.join(DATA, "mix_80_90a_c90.o")  # built by nvcc 13.0
    doc = cuarch.inspect(path, devices="7.5,8.9,9.0,10.0", driver="13.0")
    assert doc["schema"] == "cuarch.inspect/1"
    f = doc["files"][0]
    assert [i["target"] for o in f["code_objects"] for i in o["images"]] == ["sm_80", "sm_90a", "compute_90"]
    verdict = {d["cc"]: d for d in f["devices"]}
    assert verdict["8.9"]["loads"] and verdict["8.9"]["chosen"] == [{"target": "sm_80", "count": 1}]
    assert verdict["9.0"]["chosen"] == [{"target": "sm_90a", "count": 1}]
    assert verdict["10.0"]["chosen"] == [{"target": "compute_90", "count": 1}]
    assert not verdict["7.5"]["loads"]
    # Under a CUDA 12.8 driver: compute_90 is PTX ISA 9.0, and it reads up to 8.7; the machine code,
    # built by CUDA 13.0, does not run under a 12.x driver (minor-version compatibility does not cross majors).
    doc = cuarch.inspect(path, devices="7.5,8.9,9.0,10.0", driver="12.8")
    verdict = {d["cc"]: d for d in doc["files"][0]["devices"]}
    assert verdict["10.0"]["failing"][0]["error"]["code"] == "ptx_too_new_for_driver"
    assert "does not cross majors" in verdict["8.9"]["failing"][0]["error"]["message"]
    assert doc["ok"] is False and doc["exit_status"] == 1


def test_same_document_as_the_command_line():
    cli = os.environ.get("CUARCH_CLI") or shutil.which("cuarch")
    if not cli:
        pytest.skip("no cuarch command line on PATH or in CUARCH_CLI")
    path = os.path.join(DATA, "sm_100a.o")
    ours = cuarch.inspect(path, devices=["10.0", "10.3", "12.0"], driver="13.0")
    p = subprocess.run([cli, "inspect", path, "--device-cc", "10.0,10.3,12.0", "--driver", "13.0", "--format", "json"],
                       capture_output=True, text=True)
    assert json.loads(p.stdout) == ours
    assert p.returncode == 1  # only 10.0 loads sm_100a


def test_unreadable_file_raises_with_the_document(tmp_path):
    with pytest.raises(cuarch.ResolveInputError) as e:
        cuarch.inspect(str(tmp_path / "missing.so"), devices="9.0")
    assert e.value.code == "unreadable_input"
    assert json.loads(e.value.to_json())["files"][0]["error"]["code"] == "unreadable_input"


def test_no_cuda_code_is_said_not_raised():
    doc = cuarch.inspect(os.path.join(DATA, "host_only.o"), devices="9.0")
    assert doc["files"][0]["has_cuda_code"] is False and doc["ok"] is True


def test_bad_arguments():
    with pytest.raises(cuarch.ResolveInputError):
        cuarch.inspect(os.path.join(DATA, "sm_90.o"), devices="9.x")
    with pytest.raises(TypeError):
        cuarch.inspect(os.path.join(DATA, "sm_90.o"), devices="9.0", driver=12.8)  # type: ignore[arg-type]


INVENTORY = os.path.join(REPO, "tests", "data", "inventory", "kubectl-nodes.json")


def test_inventory_judges_every_node_under_its_driver():
    with pytest.warns(cuarch.CuarchWarning, match="node cpu-0 has no GPU"):
        doc = cuarch.inspect(os.path.join(DATA, "mix_80_90a_c90.o"), inventory=INVENTORY)
    assert [n["name"] for n in doc["nodes"]] == ["gpu-h200-0", "gpu-t4-0", "cpu-0"]
    assert doc["nodes"][2]["gpus"] == [] and doc["nodes"][2]["no_gpu"]
    assert [(d["name"], d["driver"]) for d in doc["devices"]] == [("gpu-h200-0", "13.0"), ("gpu-t4-0", "12.2")]
    assert {d["name"]: d["loads"] for d in doc["files"][0]["devices"]} == {"gpu-h200-0": True, "gpu-t4-0": False}
    assert doc["exit_status"] == 1


def test_inventory_with_devices_is_a_usage_error():
    # The library's check_options() refuses it, as for resolve and the command line: a plain
    # ValueError (the usage path), not an inventory that cannot be read.
    for kwargs in ({"devices": "9.0"}, {"driver": "12.8"}):
        with pytest.raises(ValueError, match="use one or the other") as e:
            cuarch.inspect(os.path.join(DATA, "sm_90.o"), inventory=INVENTORY, **kwargs)
        assert not isinstance(e.value, cuarch.ResolveError)


def test_inventory_resolves_one_set_for_the_fleet_or_names_the_node():
    with pytest.warns(cuarch.CuarchWarning):
        assert cuarch.resolve(toolkit="12.8", inventory=INVENTORY).targets == ["sm_75", "sm_90a"]
    with pytest.warns(cuarch.CuarchWarning), pytest.raises(cuarch.ResolveFailure) as e:
        cuarch.resolve(toolkit="13.0", inventory=INVENTORY)
    assert "node gpu-t4-0" in str(e.value) and "CUDA 12.2" in str(e.value)
    with pytest.raises(cuarch.ResolveInputError) as bad:
        cuarch.resolve(toolkit="12.8", inventory=os.path.join(REPO, "tests", "data", "inventory", "h200-noheader.csv"))
    assert bad.value.code == "unreadable_input"
