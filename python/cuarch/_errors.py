"""ResolveError: every failure of cuarch's Python API that the library decided.

One base class to catch everything cuarch refuses, split by what went wrong so that ordinary
Python handlers work too:

* ResolveInputError(ResolveError, ValueError): what the caller wrote is malformed ("8.0a",
  "sm_", an empty list, toolkit="12.x", a malformed CUARCH_ARCHS). The command line exits 2 for these.
* ResolveFailure(ResolveError, RuntimeError): well-formed, but not resolvable, not found or not
  loadable (sm_120a with CUDA 12.4, no nvcc, no device for "native"). The command line exits 1.

An argument cuarch's API does not know at all (policy="bogus", compiler="clang") is a plain
ValueError, and a wrong type a TypeError: those are mistakes in the call, not answers of the library.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Type

from . import _cuarch

if TYPE_CHECKING:  # the documents' types are for checkers: importing them costs every `import cuarch`
    from .documents import ErrorObject


class ResolveError(Exception):
    """A failure decided by the library.

    Attributes:
      code         stable snake_case identifier of the error ("needs_newer_toolkit", "no_device",
                   "malformed_token", ...): classify(errc).name of the library (core/errc.hpp), the
                   "code" of its JSON error objects (docs/json.md lists them).
      diagnostics  list of dicts, one per request (resolve) or target (check), each with the reason
                   it was rejected; empty when resolution stopped before judging any target.
      error        the summary error as a dict (cuarch.documents.ErrorObject: code, title, source,
                   subject, location, raw, message); None where the document has none.
    to_json() gives the whole document, byte for byte what the command line prints for that failure:
    cuarch.resolve/1 from resolve() (`cuarch resolve --format json`), cuarch.check/1 from check()
    (`cuarch check --format json`), cuarch.list/1 from list_targets(). Each starts with "schema"
    and "cuarch_version" and has "ok": false, "error" and (resolve, check) "diagnostics"; see docs/json.md.
    """

    def __init__(self, message: str, code: str, document: str):
        super().__init__(message)
        self.code = code
        self._document = document
        parsed = json.loads(document) if document else {}
        self.error: Optional[ErrorObject] = parsed.get("error")
        self.diagnostics: List[Dict[str, Any]] = parsed.get("diagnostics", [])

    def to_json(self) -> str:
        """The failure's whole JSON document, as the command line prints it (see the class)."""
        return self._document

    def __reduce__(self) -> Tuple[Type["ResolveError"], Tuple[str, str, str]]:  # picklable (multiprocessing, concurrent.futures)
        return (type(self), (str(self), self.code, self._document))


class ResolveInputError(ResolveError, ValueError):
    """Malformed input: fix what was written."""


class ResolveFailure(ResolveError, RuntimeError):
    """Well-formed input that cannot be resolved, found or loaded."""


def raise_for(outcome: _cuarch.Outcome) -> None:
    """Raises the exception an outcome of the extension stands for; returns when it succeeded."""
    kind = outcome.kind
    if kind == _cuarch.Outcome.Kind.ok:
        return
    if kind == _cuarch.Outcome.Kind.usage:
        raise ValueError(outcome.message)
    cls = ResolveInputError if outcome.input_error else ResolveFailure
    raise cls(outcome.message, outcome.code, outcome.json)


def from_error_object(error: ErrorObject, prefix: str = "") -> ResolveError:
    """A ResolveError from one of the error objects of a resolution's document (e.g. "torch_error").
    Its to_json() is a cuarch.resolve/1 failure document holding that error."""
    errc = int(error["errc"])
    cls = ResolveInputError if _cuarch.is_input_error(errc) else ResolveFailure
    document = json.dumps({"schema": "cuarch.resolve/1", "cuarch_version": _cuarch.__version__, "ok": False, "error": error,
                           "diagnostics": []}, separators=(",", ":"))
    return cls(prefix + error["message"], _cuarch.code_name(errc), document)
