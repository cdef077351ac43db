"""Resolution: what cuarch.resolve() returns, read from the library's own JSON document.

Every field comes from the document the library writes for the resolution (to_json in
include/cuarch/resolve/outputs.hpp), how the compiler was found included, so the Python values and
`cuarch resolve --format json` cannot disagree.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional

from . import _cuarch
from ._errors import from_error_object

if TYPE_CHECKING:  # the documents' types are for checkers: importing them costs every `import cuarch`
    from .documents import Diagnostic, ErrorObject, ResolveDocumentOk, ResolveRequest, WarningInfo


def os_text(member: Dict[str, Any], key: str) -> Any:
    """member[key] as the operating system has it. The library's JSON is valid UTF-8: a byte that is
    not is U+FFFD there, and the value's bytes are kept as hex in "<key>_bytes" (docs/json.md); those
    come back as os.fsdecode gives them, so os.fsencode gives the very bytes (a path, a variable)."""
    raw = member.get(key + "_bytes")
    return os.fsdecode(bytes.fromhex(raw)) if isinstance(raw, str) else member.get(key, "")


class Compiler(NamedTuple):
    """The compiler every target was validated against."""

    kind: str  # "NVRTC", "nvcc", or "cuarch's table" (a toolkit version given without a compiler)
    version: str  # "12.8", "13.0.88"
    path: str  # real path of the library or executable; "" for a given toolkit version
    how: str  # how it was found: "already loaded", "explicit argument", "environment", "PATH", ...
    origin: str  # the route in words: "CUDA_HOME=/opt/cuda", "loader search for libnvrtc.so.13"
    why: str  # why it governs
    supported_sm: Optional[List[int]]  # what the compiler said it builds (nvrtcGetSupportedArchs)


class Resolution:
    """A successful resolution: never empty."""

    def __init__(self, document: str):
        self._document = document
        d: ResolveDocumentOk = json.loads(document)
        self._dict = d
        self.targets: List[str] = [t["name"] for t in d["targets"]]
        self.nvcc_flags: List[str] = list(d["nvcc"])
        self.nvrtc_options: Dict[str, List[str]] = {c["target"]: list(c["options"]) for c in d["nvrtc"]}
        self.cache_key: str = d["cache_key"]  # absent only where no compiler is known, never here
        self.diagnostics: List[Diagnostic] = d["diagnostics"]
        # Sources that disagree in a way that bears on this answer ({"kind", "what", "meaning"}), as
        # `cuarch resolve` prints them; resolve() also raises each as a CuarchWarning.
        self.warnings: List[WarningInfo] = list(d.get("warnings", []))
        self.request: ResolveRequest = d["request"]
        c = d["compiler"]
        self.table_older_than_compiler: bool = c["table_older_than_compiler"]
        self.compiler: Compiler = Compiler(
            kind=c["kind"],
            version=c["version"],
            path=os_text(c, "location"),
            how=c.get("how") or "",
            origin=os_text(c, "origin") or "",
            why=c.get("why") or "",
            supported_sm=c.get("supported_sm_numbers"),
        )

    @property
    def torch_arch_list(self) -> str:
        """TORCH_CUDA_ARCH_LIST ("9.0a;12.0"); raises ResolveError (not_expressible) when PyTorch
        has no spelling for a target (family targets such as sm_100f, PTX of an `a` target, LTO)."""
        return self._spelling(self._dict["torch"], self._dict["torch_error"], "TORCH_CUDA_ARCH_LIST: ")

    @property
    def cmake(self) -> str:
        """CMake CUDA_ARCHITECTURES ("90a-real;120"); raises ResolveError for LTO targets."""
        return self._spelling(self._dict["cmake"], self._dict["cmake_error"], "CUDA_ARCHITECTURES: ")

    @property
    def cache_digest(self) -> str:
        """16 hex digits of cache_key (the library's stable hash): a file-name-safe cache key."""
        return _cuarch.cache_digest(self.cache_key)

    @property
    def notes(self) -> List[str]:
        """One line per request that was not kept as asked (transformed or dropped), as the
        command line prints them on stderr."""
        return [d["message"] for d in self.diagnostics if d["outcome"] != "kept"]

    def to_json(self) -> str:
        """The library's JSON document: the same as `cuarch resolve --format json` prints."""
        return self._document

    def as_dict(self) -> ResolveDocumentOk:
        """The library's JSON document, parsed (a fresh copy each call)."""
        d: ResolveDocumentOk = json.loads(self._document)
        return d

    def _spelling(self, value: Optional[str], error: Optional[ErrorObject], prefix: str) -> str:
        if value is not None:
            return value
        if error is None:  # the schema's contract: one of the two is set
            raise RuntimeError(f"{prefix}the library's document has neither the value nor its error: {self._document}")
        raise from_error_object(error, prefix)

    def __repr__(self) -> str:
        return (
            f"Resolution(targets={self.targets!r}, compiler={self.compiler.kind} {self.compiler.version}"
            f"{' at ' + self.compiler.path if self.compiler.path else ''} ({self.compiler.how}))"
        )
