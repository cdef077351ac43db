"""A user's script, type-checked by tests/scripts/wheel_test.sh with `mypy --strict` against the
installed wheel: the package's inline annotations, py.typed and the extension's stub
(cuarch/_cuarch.pyi) must give every value below a precise type. Not a pytest module (no test_
prefix); running it also works: `python typed_user.py`."""

import pathlib
from typing import Any, Dict, List

import cuarch
import cuarch.__main__

r: cuarch.Resolution = cuarch.resolve("9.0a;12.0", toolkit="12.8")
targets: List[str] = r.targets
flags: List[str] = r.nvcc_flags
options: Dict[str, List[str]] = r.nvrtc_options
torch_list: str = r.torch_arch_list
cmake: str = r.cmake
digest: str = r.cache_digest
compiler: cuarch.Compiler = r.compiler
kind: str = compiler.kind
document: Dict[str, Any] = r.as_dict()
names: List[str] = cuarch.check(["sm_90a", "sm_120"], "12.8")
listed: List[str] = cuarch.list_targets("12.8")
resolve_schema: Dict[str, Any] = cuarch.schema("cuarch.resolve/1")


def given_paths(name: bytes, root: pathlib.Path) -> Dict[str, Any]:
    """Paths as str, bytes (a name that is not UTF-8) or os.PathLike (not called: types only)."""
    cuarch.doctor(nvcc=name, cuda_home=root, python_prefix=[name, str(root)])
    return cuarch.inspect([name, root], devices="9.0")


version: str = cuarch.__version__
command_line: str = cuarch.__main__.executable()

try:
    cuarch.resolve("8.0a", toolkit="12.8")
except cuarch.ResolveInputError as e:
    code: str = e.code
    diagnostics: List[Dict[str, Any]] = e.diagnostics
    text: str = e.to_json()

if __name__ == "__main__":
    print(targets, torch_list, cmake, digest, kind, len(names), len(listed), resolve_schema["$id"], version)
