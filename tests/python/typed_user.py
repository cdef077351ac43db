"""A user's script, type-checked by scripts/build-wheels.sh with `mypy --strict` and `pyright` (strict)
against the installed wheel: the package's inline annotations, py.typed, cuarch/documents.py and the
extension's stub (cuarch/_cuarch.pyi) must give every value below a precise type. Each public function
is called as a user would write it, with no cast and no annotation that would hide a loose type:
assert_type says what the checkers must infer. Not a pytest module (no test_ prefix); running it also
works (`python typed_user.py`, with an nvcc for env())."""

import os
import pathlib
import subprocess
import sys
from typing import TYPE_CHECKING, Dict, List, Literal, Optional

import cuarch
import cuarch.__main__
from cuarch.documents import ErrorObject, InspectDocument, InspectFile

if TYPE_CHECKING:
    # typing_extensions: the checkers bring its stub (typing has it from Python 3.11 on only).
    from typing_extensions import assert_type  # pyright: ignore[reportMissingModuleSource]
else:

    def assert_type(value, _type):
        return value


def resolution() -> str:
    r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
    assert_type(r, cuarch.Resolution)
    assert_type(r.targets, List[str])
    assert_type(r.nvcc_flags, List[str])
    assert_type(r.nvrtc_options, Dict[str, List[str]])
    assert_type(r.compiler.kind, str)
    assert_type(r.compiler.supported_sm, Optional[List[int]])
    document = r.as_dict()
    assert_type(document, cuarch.ResolveDocumentOk)
    first = document["targets"][0]
    assert_type(first["variant"], Literal["baseline", "arch_specific", "family_specific"])
    for w in r.warnings:
        print(f"{w['what']}: {w['meaning']}", file=sys.stderr)
    for d in r.diagnostics:
        assert_type(d["reason"], Optional[ErrorObject])
    assert_type(r.request["origin"], str)
    return f"{r.torch_arch_list} {r.cmake} {r.cache_digest} {' '.join(r.notes)}"


def build_environment() -> Dict[str, str]:
    # The variables PyTorch's extension build reads, over this process's environment.
    environment = {**os.environ, **cuarch.env("torch", "9.0a")}
    assert_type(environment, Dict[str, str])
    return environment


def shell_lines() -> List[str]:
    lines = cuarch.env("cmake", "9.0a", format="shell").splitlines()
    assert_type(cuarch.env("torch", "9.0a", format="json"), str)
    return lines


def will_it_load(path: str) -> List[str]:
    document = cuarch.inspect(path, devices="9.0")
    assert_type(document, InspectDocument)
    fixes = [group["fix"] for f in document["files"] for d in f["devices"] for group in d["failing"]]
    unreadable: List[InspectFile] = [f for f in document["files"] if f["error"] is not None]
    verdicts = {d["cc"]: d["verdict"] for f in document["files"] for d in f["devices"]}
    if not document["ok"] and document["error"] is not None:
        fixes.append(document["error"]["message"])
    return fixes + [f["path"] for f in unreadable] + [v for v in verdicts.values() if v != "loads"]


def loaded_here() -> List[str]:
    document = cuarch.inspect_loaded(devices=["9.0"], driver="13.0")
    assert_type(document, InspectDocument)
    return [f["path"] for f in document["files"] if f["has_cuda_code"]]


def doctor_findings() -> List[str]:
    report = cuarch.doctor()
    assert_type(report, cuarch.DoctorDocument)
    return [f"{f['severity']}: {f['what']}" for f in report["findings"]] + [c["path"] for c in report["candidates"] if c["chosen"]]


def tables() -> int:
    names = cuarch.check(["sm_90a", "sm_120"], "12.8")
    listed = cuarch.list_targets("12.8")
    resolve_schema = cuarch.schema("cuarch.resolve/1")
    assert_type(names, List[str])
    assert_type(listed, List[str])
    return len(names) + len(listed) + len(resolve_schema["$id"])


def failure() -> str:
    try:
        cuarch.resolve("8.0a", toolkit="12.8")
    except cuarch.ResolveInputError as e:
        assert_type(e.code, str)
        if e.error is not None:
            return f"{e.error['code']} ({e.error['exit_status']}): {e.to_json()}"
    return ""


def command_line() -> int:
    return subprocess.run([cuarch.__main__.executable(), "--version"], env=build_environment(), check=False).returncode


def given_paths(name: bytes, root: pathlib.Path) -> InspectDocument:
    """Paths as str, bytes (a name that is not UTF-8) or os.PathLike."""
    cuarch.doctor(nvcc=name, cuda_home=root, python_prefix=[name, str(root)])
    return cuarch.inspect([name, root], devices="9.0")


if __name__ == "__main__":
    print(resolution(), tables(), failure(), cuarch.__version__)
    print(will_it_load(sys.executable), loaded_here(), doctor_findings())
    print(shell_lines(), command_line())
