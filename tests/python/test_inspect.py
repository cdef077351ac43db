"""cuarch.inspect(): the same reading and verdict as `cuarch inspect` (docs/inspect.md), on real
nvcc 13.0 artefacts (tests/data/inspect)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import cuarch
from conftest import REPO, clean_env, prompt_bound

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


LOADS_A_LIBRARY = """
import ctypes, json, os, sys
import cuarch
cudart = "/usr/local/cuda/lib64/libcudart.so.13"  # the library's own need; loading it initialises no CUDA
ctypes.CDLL(cudart, mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(sys.argv[1])
doc = cuarch.inspect_loaded(devices="9.0,8.0", driver="13.0")
print(json.dumps(doc))
"""


def test_inspect_loaded_judges_what_this_process_has_mapped(tmp_path):
    if not os.path.exists("/usr/local/cuda/lib64/libcudart.so.13"):
        pytest.skip("no CUDA 13 runtime at /usr/local/cuda/lib64 to load the test library with")
    library = os.path.join(DATA, "libk_sm_90a.so")  # nvcc 13.0: sm_90a and compute_90(a)
    p = subprocess.run([sys.executable, "-c", LOADS_A_LIBRARY, library], capture_output=True, text=True,
                       env=clean_env(), timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    with_code = [f for f in doc["files"] if f["has_cuda_code"]]
    assert [f["path"] for f in with_code] == [library]
    assert os.path.realpath(sys.executable) in [os.path.realpath(f["path"]) for f in doc["files"]]  # the program
    verdict = {d["cc"]: d["verdict"] for d in with_code[0]["devices"]}
    assert verdict == {"9.0": "loads", "8.0": "cannot_load"}
    assert doc["exit_status"] == 1


def test_inspect_loaded_takes_no_paths():
    with pytest.raises(TypeError):
        cuarch.inspect_loaded("lib.so")


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


def fatbin_bytes():
    """A fatbin of one sm_90 SASS entry with an 8-byte payload (tests/inspect_hostile_test.cpp's)."""
    header = (0xBA55ED50).to_bytes(4, "little") + (1).to_bytes(2, "little") + (16).to_bytes(2, "little")
    header += (64 + 8).to_bytes(8, "little")
    entry = bytearray(64 + 8)
    entry[0:2] = (2).to_bytes(2, "little")
    entry[4:8] = (64).to_bytes(4, "little")
    entry[8:16] = (8).to_bytes(8, "little")
    entry[28:32] = (90).to_bytes(4, "little")
    return header + bytes(entry)


def test_ctrl_c_stops_inspect_promptly(tmp_path):
    """Issue 32 item 7: Ctrl-C during the reading (1,000 links to a 32 MiB fatbin file of written
    zeros: many seconds of reading) raises KeyboardInterrupt promptly; the issue's target is 0.5 s."""
    big = tmp_path / "big.fatbin"
    big.write_bytes(fatbin_bytes() + bytes(32 << 20) + fatbin_bytes())
    links = tmp_path / "links"
    links.mkdir()
    for i in range(1000):
        os.link(big, links / str(i))
    code = f"""
import sys, time, cuarch
print("started", flush=True)
try:
    cuarch.inspect({str(links)!r}, devices="9.0", driver="12.8")
    print("returned", flush=True)
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
"""
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=clean_env())
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(0.5)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    words = out.split()
    assert words[:1] == ["interrupted"], (out, err)
    took = float(words[1]) - sent
    bound = prompt_bound(0.05, 0.5)
    assert took < bound, f"KeyboardInterrupt came {took * 1000:.0f} ms after Ctrl-C (bound {bound * 1000:.0f} ms)"


def test_a_shrinking_file_never_kills_the_interpreter(tmp_path):
    """Issue 32 item 6: a file emptied and written again while 300 inspect() calls read it: each is a
    listing or ResolveInputError (unreadable_input), and the interpreter is never killed by SIGBUS."""
    path = tmp_path / "shrinking.fatbin"
    size = 8 << 20
    tail = bytes(1 << 20) + fatbin_bytes()
    with open(path, "wb") as f:
        f.write(fatbin_bytes())
        f.truncate(size - len(tail))
        f.write(tail)
    code = f"""
import cuarch
counts = {{"listed": 0, "refused": 0}}
for _ in range(300):
    try:
        cuarch.inspect({str(path)!r}, devices="9.0", driver="13.0")
        counts["listed"] += 1
    except cuarch.ResolveInputError as e:
        assert e.code == "unreadable_input", e
        counts["refused"] += 1
print(counts["listed"], counts["refused"], flush=True)
"""
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=clean_env())
    stop = threading.Event()

    def rewrite():
        fd = os.open(path, os.O_WRONLY)
        try:
            while not stop.is_set():
                os.ftruncate(fd, 0)
                os.pwrite(fd, fatbin_bytes(), 0)
                os.pwrite(fd, tail, size - len(tail))
        finally:
            os.close(fd)

    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        out, err = p.communicate(timeout=120)
    finally:
        stop.set()
        writer.join()
        p.kill()
    assert p.returncode == 0, f"the interpreter ended with {p.returncode} ({err[-2000:]})"
    listed, refused = map(int, out.split())
    assert listed + refused == 300


def test_unknown_builder_is_not_loads_and_fixes_are_structured():
    # A compressed cubin does not say which CUDA built it: under a 12.8 driver that is "unknown".
    doc = cuarch.inspect(os.path.join(DATA, "compress_all.o"), devices="9.0", driver="12.8")
    d = doc["files"][0]["devices"][0]
    if doc["files"][0]["code_objects"][0]["images"][0]["built_by"] is None:
        assert d["verdict"] == "unknown" and d["loads"] is False
        assert d["unknown"][0]["error"]["code"] == "unknown_builder"
        assert {"add": [], "build_major": None, "driver": "13.0"} in d["unknown"][0]["fix_ways"]
    else:  # once compressed cubins are read: built by CUDA 13.0, which a 12.8 driver does not run
        assert d["verdict"] == "cannot_load"
    assert doc["ok"] is False and doc["exit_status"] == 1
    # Machine code of a later major: the driver that serves its major, or a build with the driver's.
    doc = cuarch.inspect(os.path.join(DATA, "sm_80.o"), devices="8.6", driver="12.8")
    ways = doc["files"][0]["devices"][0]["failing"][0]["fix_ways"]
    assert {"add": [], "build_major": None, "driver": "13.0"} in ways
    assert {"add": [], "build_major": 12, "driver": None} in ways
