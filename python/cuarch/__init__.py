"""cuarch: CUDA target architectures, resolved and validated by the compiler that will build them.

In process, with the C++ library's semantics (one implementation: this package binds it):

    import cuarch
    r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
    r.targets            # ['sm_90a', 'sm_120']
    r.torch_arch_list    # '9.0a;12.0'  (raises ResolveError when PyTorch cannot spell a target)
    r.nvcc_flags         # ['-gencode=arch=compute_90a,code=sm_90a', ...]
    r.cache_key          # for a JIT cache: compiler kind, version, path, targets

    cuarch.resolve()   # native; with an NVRTC already loaded here (CuPy, torch) it decides, else nvcc

Failures raise ResolveError (see cuarch._errors): ResolveInputError (also a ValueError) for
malformed input, ResolveFailure (also a RuntimeError) for everything else; each has .code,
.diagnostics and .to_json(). Nothing is swallowed and no call returns an empty answer.

Paths and environment values are bytes to the library, as to the operating system: a path may be
str, bytes or os.PathLike, and a byte that is not UTF-8 (a lone surrogate in a str, as os.environ
and os.listdir give it) reaches the library as that byte (os.fsencode). Messages show it as \xff.

Every call releases the GIL while the library works, and calls may run in many threads at once.
The command line is `cuarch` (or `python -m cuarch`); docs in README.md.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Literal, Optional, Tuple, TypeAlias, Union, overload

from . import _cuarch, _too_late
from ._errors import ResolveError, ResolveFailure, ResolveInputError, raise_for
from ._result import Compiler, Resolution, os_text

if TYPE_CHECKING:  # loaded on first use at run time (__getattr__ below): a resolve does not need them
    from . import documents
    from .documents import DoctorDocument, InspectDocument, ResolveDocumentOk

_DOCUMENT_TYPES = ("DoctorDocument", "InspectDocument", "ResolveDocumentOk")


def __getattr__(name: str) -> Any:
    """cuarch.documents and the document types it re-exports, imported on first use (PEP 562):
    they are TypedDicts for type checkers, and `import cuarch` need not pay for them."""
    if name == "documents" or name in _DOCUMENT_TYPES:
        import importlib  # not `from . import documents`: that asks this __getattr__ again

        module = importlib.import_module(".documents", __name__)
        return module if name == "documents" else getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__version__: str = _cuarch.__version__

__all__ = [
    "resolve",
    "doctor",
    "check",
    "list_targets",
    "inspect",
    "inspect_loaded",
    "env",
    "schema",
    "Resolution",
    "Compiler",
    "ResolveError",
    "ResolveInputError",
    "ResolveFailure",
    "CuarchWarning",
    "Strings",
    "EnvFormat",
    "documents",
    "InspectDocument",
    "DoctorDocument",
    "ResolveDocumentOk",
    "__version__",
]


class CuarchWarning(UserWarning):
    """Something worth knowing that does not stop the call (a toolkit newer than cuarch's table)."""


Strings: TypeAlias = Union[str, Iterable[str]]
"""One name or several: "9.0a;12.0" (the separator the argument documents) or ["9.0a", "12.0"]."""

AnyPath: TypeAlias = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
"""A path as os.fspath takes it; the library gets os.fsencode's bytes of it (the binding's fs_bytes)."""

EnvFormat: TypeAlias = Literal["shell", "dotenv", "github", "json"]
"""The texts env() can return instead of a dict: what `cuarch env --format FORMAT` prints."""


class _Default(str):
    """A default argument value that can tell "not passed" from "passed the same value"."""


_NATIVE = _Default("native")
_CUARCH_ENV = ("cuarch",)


def _joined(value: Any, name: str, separator: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} takes a string or a sequence of strings, not {type(value).__name__}")
    return separator.join(str(v) for v in value)


def _optional_text(value: Any, name: str) -> Optional[str]:
    if value is None:
        return None
    if hasattr(value, "__fspath__"):
        value = value.__fspath__()
    if not isinstance(value, str):
        raise TypeError(f"{name} takes a string, not {type(value).__name__}")
    return value


def _optional_path(value: Any, name: str) -> Optional[Union[str, bytes]]:
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, (str, bytes)):
        raise TypeError(f"{name} takes a path (str, bytes or os.PathLike), not {type(value).__name__}")
    if ("\0" if isinstance(value, str) else b"\0") in value:  # the system would read the name only up to it
        raise ValueError(f"{name}: embedded null byte in {value!r}")
    return value


def _version_text(value: Any, name: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(
        f"{name} takes a version string such as '12.8' or '13.0.88', not {type(value).__name__} {value!r} "
        "(a number cannot tell 12.1 from 12.10)"
    )


def _required_version_text(value: Any, name: str) -> str:
    text = _version_text(value, name)
    if text is None:
        raise TypeError(f"{name} takes a version string such as '12.8' or '13.0.88', not None")
    return text


def _names(value: Any, name: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} takes a string or a sequence of strings, not {type(value).__name__}")
    return [str(v) for v in value]


def _options(**given: Any) -> List[Tuple[str, Union[str, bytes]]]:
    """The keyword arguments as (library option name, text) pairs: the library reads them
    (front_door/options.hpp), as it reads the command line's flags."""
    out: List[Tuple[str, Union[str, bytes]]] = []
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out.append((name, "true" if value else "false"))
        elif name in ("python_prefix",):
            several = not isinstance(value, (str, bytes, os.PathLike))
            out.extend((name, _optional_path(v, name) or "") for v in (value if several else [value]))
        else:
            out.append((name, value))
    return out


def _interpreter_environment() -> List[Tuple[str, str]]:
    """This interpreter's own environment (sys.prefix), to be scanned for pip wheels where an
    activated one would be (VIRTUAL_ENV), so that a venv's nvidia-* wheels count whether or not it
    was activated; nothing where one is activated (VIRTUAL_ENV or CONDA_PREFIX set). The in-process
    API and the command line run from this interpreter (python -m cuarch) both add it."""
    if "VIRTUAL_ENV" not in os.environ and "CONDA_PREFIX" not in os.environ:
        return [("VIRTUAL_ENV", sys.prefix)]
    return []


def _environment() -> List[Tuple[str, str]]:
    """The variables cuarch reads, copied from os.environ while this thread holds the GIL: the
    library never calls getenv while another thread may change the environment; with this
    interpreter's own environment (_interpreter_environment)."""
    return [(k, os.environ[k]) for k in _cuarch.environment_variables if k in os.environ] + _interpreter_environment()


def _timeout_text(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"timeout takes a number of seconds, not {type(value).__name__}")
    return repr(float(value))


def resolve(
    archs: Strings = _NATIVE,
    *,
    toolkit: Optional[str] = None,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    compiler: Optional[str] = None,
    nvrtc: Optional[AnyPath] = None,
    nvcc: Optional[AnyPath] = None,
    cuda_home: Optional[AnyPath] = None,
    python_prefix: Optional[Union[AnyPath, Iterable[AnyPath]]] = None,
    policy: Optional[Strings] = None,
    native_variant: Optional[str] = None,
    driver: Optional[str] = None,
    env: Optional[Strings] = _CUARCH_ENV,
    dialect: Optional[str] = None,
    cuinit_fallback: bool = True,
    isolated: bool = False,
    strict: bool = False,
    timeout: Optional[float] = None,
    inventory: Optional[AnyPath] = None,
) -> Resolution:
    """Resolves CUDA targets, as `cuarch resolve` does, in this process: the same library call
    (cuarch::resolve_here), the same options, rules and warnings.

    archs           "native" (the devices), "all", "all-major", or a list in any spelling:
                    "9.0a;12.0", "sm_90a compute_90", ["90a-real", "100f"], "8.6+PTX".
    toolkit         a CUDA release ("12.8"): judged by cuarch's table, nothing detected.
    compiler        which compiler decides: "nvrtc" (JIT), "nvcc" (builds, PyTorch extensions,
                    FlashInfer) or "auto" (default): the one nvrtc= or nvcc= names; else an NVRTC
                    this process already loaded (CuPy, torch: it compiles JIT code here); else nvcc.
                    The answer names the one used (Resolution.compiler); a warning names the other
                    when it would give another verdict.
    nvrtc / nvcc / cuda_home   where to look first. python_prefix: Python environments to scan
                    first for pip nvidia-* wheels (one or several); this interpreter's own
                    (sys.prefix) is scanned where VIRTUAL_ENV would be, activated or not.
    isolated        look only at nvrtc / nvcc / cuda_home / python_prefix and CUARCH_* variables:
                    not at PATH, the loader, loaded libraries, default locations, nor where
                    CUDA_HOME, CUDA_PATH, CUDACXX, TRITON_PTXAS_PATH, VIRTUAL_ENV, CONDA_PREFIX or
                    this interpreter's own environment point.
    devices         the devices' compute capabilities ("9.0,12.0" or ["9.0", "12.0"]); without them
                    "native" asks the driver (NVML).
    policy          "strict" (default), "best-effort", "ptx-fallback", "verify-devices",
                    "compatible-minor" (several: "best-effort,ptx-fallback" or a list).
    native_variant  "a" (default), "f" or "baseline", a chain "f,a,baseline", or rules
                    "12.0=f,9=a,default=a" (cuarch resolve --help).
    driver          a CUDA version, or "detected": checks PTX against that driver and allows the
                    PTX fallback. None: PTX is not checked (right for builds).
    env             variables that may override archs, first set wins: "cuarch" (CUARCH_ARCHS),
                    "torch" (TORCH_CUDA_ARCH_LIST), "cmake" (CUDAARCHS); None or () for none. Archs
                    given explicitly beat the environment unless env is given too; a variable
                    ignored that way is named in a CuarchWarning.
    dialect         how to read archs: "generic" (every spelling), "torch", "cmake", "nvcc".
    cuinit_fallback "native" reads the devices through NVML, which initialises no CUDA in this
                    process; where NVML cannot answer, through cuInit (a CuarchWarning says so).
                    False: never cuInit; NVML's failure is then the answer.
    strict          a warning that bears on the answer raises ResolveFailure instead.
    timeout         seconds for the whole detection (default 10).
    inventory       a fleet instead of devices and driver: `kubectl get nodes -o json` or a CSV of
                    nvidia-smi --query-gpu with a host column (docs/inspect.md, "A fleet"); every GPU
                    node is a device, and a node whose driver cannot run what the compiler builds
                    raises ResolveFailure naming it.

    Returns a Resolution (never empty). What bears on it - a compiler your tools would run
    (CUDACXX, CUDA_HOME's nvcc, the first nvcc on PATH, an NVRTC already loaded) that gives
    another verdict, nvcc vs its headers, a compiler newer than the driver - is in
    Resolution.warnings, each also a CuarchWarning with the fix. Raises ResolveInputError /
    ResolveFailure (both ResolveError) when the library refuses, ValueError for an option value
    it does not know.
    """
    options = _options(
        archs=None if archs is _NATIVE else _joined(archs, "archs", ";"),
        dialect=_optional_text(dialect, "dialect"),
        env=None if env is _CUARCH_ENV else ",".join(_names(env, "env")) or "none",
        policy=None if policy is None else ",".join(_names(policy, "policy")) or None,
        toolkit=_version_text(toolkit, "toolkit"),
        devices=None if devices is None else _joined(devices, "devices", ","),
        compiler=_optional_text(compiler, "compiler"),
        nvrtc=_optional_path(nvrtc, "nvrtc"),
        nvcc=_optional_path(nvcc, "nvcc"),
        cuda_home=_optional_path(cuda_home, "cuda_home"),
        python_prefix=python_prefix,
        isolated=True if isolated else None,
        native_variant=_optional_text(native_variant, "native_variant"),
        driver=_version_text(driver, "driver"),
        cuinit_fallback=None if cuinit_fallback else False,
        strict=True if strict else None,
        timeout=_timeout_text(timeout),
        inventory=_optional_path(inventory, "inventory"),
    )
    outcome = _cuarch.resolve(options=options, env=_environment())
    if outcome.note:  # said before a failure is raised too: it bears on the failure as well
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    raise_for(outcome)
    result = Resolution(outcome.json)
    # Nothing silent: each warning that bears on the answer is said where the call is made.
    for w in result.warnings:
        warnings.warn(f"{w['what']} ({w['kind']}): {w['meaning']}", CuarchWarning, stacklevel=2)
    if outcome.strict_failed:
        raise ResolveFailure(
            "strict=True: %d warning(s) bear on the answer" % len(result.warnings), code="warnings_under_strict", document=outcome.json
        )
    return result


def doctor(
    *,
    nvrtc: Optional[AnyPath] = None,
    nvcc: Optional[AnyPath] = None,
    cuda_home: Optional[AnyPath] = None,
    python_prefix: Optional[Union[AnyPath, Iterable[AnyPath]]] = None,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    query_devices: bool = False,
    isolated: bool = False,
    timeout: Optional[float] = None,
) -> DoctorDocument:
    """Every CUDA source this process can see, with provenance, and where they disagree: the
    document of `cuarch doctor --json`, as a dict (typed: cuarch.DoctorDocument), seen from this
    process (libraries it has already loaded included, this interpreter's own environment scanned
    for pip wheels).

    query_devices   also ask for the devices. Off by default: they are read through NVML, which
                    initialises no CUDA, but where NVML cannot answer the driver's cuInit is used
                    in this process, which a process that forks workers later may not want (the
                    document says so). resolve("native") asks for devices when it needs them.
    isolated        look only at the arguments and the CUARCH_* variables (the doctor's --isolated;
                    resolve() says what is left out).
    timeout         seconds for the whole detection (default 10), as for resolve().

    Ctrl-C (KeyboardInterrupt) stops resolve() and doctor() within about 100 ms and kills a tool
    they were running (nvcc --version); a tool never outlives this process.
    """
    options = _options(
        nvrtc=_optional_path(nvrtc, "nvrtc"),
        nvcc=_optional_path(nvcc, "nvcc"),
        cuda_home=_optional_path(cuda_home, "cuda_home"),
        python_prefix=python_prefix,
        devices=None if devices is None else _joined(devices, "devices", ","),
        isolated=True if isolated else None,
        timeout=_timeout_text(timeout),
    )
    outcome = _cuarch.doctor(options=options, env=_environment(), query_devices=bool(query_devices))
    raise_for(outcome)
    document: DoctorDocument = json.loads(outcome.json)
    return document


def check(targets: Strings, toolkit: str, *, dialect: str = "generic") -> List[str]:
    """Checks that CUDA `toolkit` can build every target (by cuarch's table), as `cuarch check`.

    Returns the targets' canonical names. Raises ResolveFailure when any is not buildable: .code
    is the first failing target's reason, .diagnostics has one entry per target (ok or the reason),
    .to_json() the cuarch.check/1 document `cuarch check --format json` prints.
    """
    outcome = _cuarch.check(targets=_joined(targets, "targets", ";"), toolkit=_required_version_text(toolkit, "toolkit"), dialect=dialect)
    raise_for(outcome)
    return list(outcome.names)


def list_targets(toolkit: str) -> List[str]:
    """Every target (sm_XY[a|f], compute_XY[a|f]) CUDA `toolkit` can build, by cuarch's table, as
    `cuarch list`. A release newer than the table lists what the table's newest builds, with a
    CuarchWarning saying so."""
    outcome = _cuarch.list_targets(toolkit=_required_version_text(toolkit, "toolkit"))
    raise_for(outcome)
    if outcome.note:
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    return list(outcome.names)


@overload
def env(
    tool: str,
    archs: Strings = ...,
    *,
    format: None = None,
    devices: Optional[Union[str, Iterable[Any]]] = ...,
    nvcc: Optional[AnyPath] = ...,
    cuda_home: Optional[AnyPath] = ...,
    python_prefix: Optional[Union[AnyPath, Iterable[AnyPath]]] = ...,
    policy: Optional[Strings] = ...,
    native_variant: Optional[str] = ...,
    driver: Optional[str] = ...,
    env: Optional[Strings] = ...,
    dialect: Optional[str] = ...,
    isolated: bool = ...,
    strict: bool = ...,
    timeout: Optional[float] = ...,
    cmake_version: Optional[str] = ...,
) -> Dict[str, str]: ...


@overload
def env(
    tool: str,
    archs: Strings = ...,
    *,
    format: EnvFormat,
    devices: Optional[Union[str, Iterable[Any]]] = ...,
    nvcc: Optional[AnyPath] = ...,
    cuda_home: Optional[AnyPath] = ...,
    python_prefix: Optional[Union[AnyPath, Iterable[AnyPath]]] = ...,
    policy: Optional[Strings] = ...,
    native_variant: Optional[str] = ...,
    driver: Optional[str] = ...,
    env: Optional[Strings] = ...,
    dialect: Optional[str] = ...,
    isolated: bool = ...,
    strict: bool = ...,
    timeout: Optional[float] = ...,
    cmake_version: Optional[str] = ...,
) -> str: ...


def env(
    tool: str,
    archs: Strings = _NATIVE,
    *,
    format: Optional[EnvFormat] = None,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    nvcc: Optional[AnyPath] = None,
    cuda_home: Optional[AnyPath] = None,
    python_prefix: Optional[Union[AnyPath, Iterable[AnyPath]]] = None,
    policy: Optional[Strings] = None,
    native_variant: Optional[str] = None,
    driver: Optional[str] = None,
    env: Optional[Strings] = _CUARCH_ENV,
    dialect: Optional[str] = None,
    isolated: bool = False,
    strict: bool = False,
    timeout: Optional[float] = None,
    cmake_version: Optional[str] = None,
) -> Union[Dict[str, str], str]:
    """The variables `tool` reads, for the targets resolve() gives and the nvcc that validated
    them, as `cuarch env --for TOOL` prints them (the same library call, rules and bytes).

    tool            "torch" (TORCH_CUDA_ARCH_LIST, CUDA_HOME), "flashinfer" (FLASHINFER_CUDA_ARCH_LIST
                    with explicit suffixes, CUDA_HOME, FLASHINFER_NVCC), "cmake" (CUDAARCHS, CUDACXX),
                    "tvm-ffi" (TVM_FFI_CUDA_ARCH_LIST, CUDA_HOME), "triton" (its ptxas paths).
    format          None: a dict {name: value} in print order, e.g. for os.environ.update() or a
                    subprocess's env ({**os.environ, **cuarch.env("torch")}); "shell", "dotenv",
                    "github" or "json" (EnvFormat): the text the command line prints, a str (json:
                    the cuarch.env/1 document, cuarch.documents.EnvDocument once parsed).
    cmake_version   with tool="cmake": the CMake that reads CUDAARCHS ('a' needs 3.25.0, 'f' 4.0.2).
    The other arguments are resolve()'s; the compile path is nvcc, which every such tool runs.

        os.environ.update(cuarch.env("flashinfer"))   # before anything imports flashinfer
        import flashinfer

    Call it before the tool is imported: some tools keep what they read at import (torch.utils.
    cpp_extension.CUDA_HOME, FlashInfer's compilation context and CUDA path). With format None,
    a module of the tool already in this process that keeps another value than the one returned is
    named in a CuarchWarning, with the value that stays (cuarch._too_late lists what each keeps).

    What the environment had otherwise (a replaced TORCH_CUDA_ARCH_LIST, the nvcc first on PATH) and
    warnings the variables do not settle are CuarchWarnings; strict=True raises on a warning. Raises
    ResolveFailure (code "not_expressible") when the tool's list cannot spell a target, naming the
    tool, its release and the target: never a reduced list.
    """
    options = _options(
        archs=None if archs is _NATIVE else _joined(archs, "archs", ";"),
        dialect=_optional_text(dialect, "dialect"),
        env=None if env is _CUARCH_ENV else ",".join(_names(env, "env")) or "none",
        policy=None if policy is None else ",".join(_names(policy, "policy")) or None,
        devices=None if devices is None else _joined(devices, "devices", ","),
        nvcc=_optional_path(nvcc, "nvcc"),
        cuda_home=_optional_path(cuda_home, "cuda_home"),
        python_prefix=python_prefix,
        isolated=True if isolated else None,
        native_variant=_optional_text(native_variant, "native_variant"),
        driver=_version_text(driver, "driver"),
        strict=True if strict else None,
        timeout=_timeout_text(timeout),
    )
    variables = _environment() + [(k, os.environ[k]) for k in _cuarch.tool_variables
                                  if k in os.environ and k not in _cuarch.environment_variables]
    outcome = _cuarch.env(tool=_optional_text(tool, "tool") or "", format="json" if format is None else format,
                          cmake_version=_version_text(cmake_version, "cmake_version") or "", options=options, env=variables)
    document: Dict[str, Any] = json.loads(outcome.json) if outcome.json else {}
    for note in document.get("notes", []):  # said before a failure is raised too
        warnings.warn(note, CuarchWarning, stacklevel=2)
    raise_for(outcome)
    for w in document["warnings"]:
        warnings.warn(f"{w['what']} ({w['kind']}): {w['meaning']}", CuarchWarning, stacklevel=2)
    if outcome.strict_failed:
        raise ResolveFailure(
            "strict=True: %d warning(s) bear on the answer" % len(document["warnings"]), code="warnings_under_strict", document=outcome.json
        )
    if format is None:
        variables_set = {v["name"]: os_text(v, "value") for v in document["variables"]}
        # For this process: a tool already imported may keep what it read (CUDA_HOME at import).
        for late in _too_late.too_late(document["tool"], variables_set, document["tool_source"]):
            warnings.warn(late, CuarchWarning, stacklevel=2)
        return variables_set
    return outcome.text


def inspect(
    paths: Union[AnyPath, Iterable[AnyPath]],
    *,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    driver: Optional[str] = None,
    timeout: Optional[float] = None,
    inventory: Optional[AnyPath] = None,
) -> InspectDocument:
    """Will these built files load? As `cuarch inspect PATH...`: reads the CUDA code in each file
    (ELF .so/executable/object, .fatbin, .cubin, PTX; a directory: every file under it) and judges
    every code object on each device under the driver (docs/inspect.md).

    devices   compute capabilities ("8.9,9.0" or ["8.9", "9.0"]); None: this machine's (NVML).
    driver    the CUDA version the driver supports ("12.8"), or "detected" (the default when the
              devices are this machine's); PTX must be JIT-able by it.
    inventory a fleet instead: `kubectl get nodes -o json` or a CSV of nvidia-smi --query-gpu;
              every GPU node is judged under its own driver, and "nodes" lists them all.

    Returns the cuarch.inspect/1 document as a dict (typed: cuarch.InspectDocument): "ok" (every
    device loads every file), "files" (per file its code objects and images, and per device "verdict" ("loads",
    "dispatches": code for it beside code objects only for other architectures, a library that picks its
    kernels; "cannot_load"; "unknown": machine code whose builder the file does not say; "no_code_found":
    a library that keeps code in its data sections, none of it for the device), "loads"
    (known to load), the images "chosen", the "failing" groups with their error, "fix" and "fix_ways", and
    the "unknown" groups with what would "settle" them). With no device named and none visible,
    the files are listed and "devices" is empty: nothing is judged. Raises ResolveInputError for a
    file that cannot be read, holds malformed CUDA code or changed while it was read (files are read
    with pread, never mapped: a file that shrinks is that error, never a SIGBUS in this process), or
    a directory with more than 100,000 files; ResolveFailure when an inventory has no GPU node or a
    driver asked to be detected is not found. Ctrl-C (KeyboardInterrupt) stops the reading within
    about 0.1 s, in the middle of a file.
        cuarch.inspect("build/libk.so", devices="8.6,9.0")["ok"]
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, Iterable):
        raise TypeError(f"paths takes a path or a sequence of paths, not {type(paths).__name__}")
    names = [_optional_path(p, "paths") or "" for p in paths]
    options = _options(
        devices=None if devices is None else _joined(devices, "devices", ","),
        driver=_version_text(driver, "driver"),
        timeout=_timeout_text(timeout),
        inventory=_optional_path(inventory, "inventory"),
    )
    outcome = _cuarch.inspect(paths=names, options=options, env=_environment())
    if outcome.note:
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    raise_for(outcome)
    document: InspectDocument = json.loads(outcome.json)
    return document


def inspect_loaded(
    *,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    driver: Optional[str] = None,
    timeout: Optional[float] = None,
) -> InspectDocument:
    """Will the CUDA code this process has loaded run here? inspect() of this process's program and
    every shared library it has mapped (as `cuarch inspect --pid` reads another process), before
    the first launch that would fail with "no kernel image is available for execution on the device".

    Nothing is loaded, run or initialised: the devices come through NVML (never cuInit: a process
    that forks workers keeps CUDA usable in them); with none visible, nothing is judged and
    "devices" is empty. devices and driver as inspect(). Returns the cuarch.inspect/1 document: per
    library its code objects and per device its verdict (docs/inspect.md). A JIT or AOT library can
    call it at import and raise a clear error instead:
        doc = cuarch.inspect_loaded()
        if not doc["ok"]: raise RuntimeError(doc["error"]["message"])
    """
    options = _options(
        devices=None if devices is None else _joined(devices, "devices", ","),
        driver=_version_text(driver, "driver"),
        timeout=_timeout_text(timeout),
    )
    outcome = _cuarch.inspect_loaded(options=options, env=_environment())
    if outcome.note:
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    raise_for(outcome)
    document: InspectDocument = json.loads(outcome.json)
    return document


def _schema_dir() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema")


def schema(name: str) -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one of cuarch's JSON documents, parsed: the files of
    docs/schema/, shipped in the package (cuarch/schema/*.schema.json).

    name    a document's "schema" value ("cuarch.resolve/1"), its file stem ("cuarch.resolve-1"),
            or the bare kind ("resolve", "check", "list", "doctor", "error": version 1).

        cuarch.schema("resolve")["$id"]   # 'urn:cuarch:schema:cuarch.resolve-1'
        cuarch.schema(cuarch.resolve("90a", toolkit="12.8").as_dict()["schema"])

    Raises ValueError naming the known schemas for any other name.
    """
    if not isinstance(name, str):
        raise TypeError(f"schema takes a string, not {type(name).__name__}")
    directory = _schema_dir()
    known = sorted(f[: -len(".schema.json")] for f in os.listdir(directory) if f.endswith(".schema.json"))
    stem = name.replace("/", "-")
    if stem not in known:
        stem = f"cuarch.{stem}-1"
    if stem not in known:
        raise ValueError(f"no cuarch schema named {name!r}; known: {', '.join(s.replace('-', '/') for s in known)}")
    with open(os.path.join(directory, stem + ".schema.json"), encoding="utf-8") as f:
        parsed: Dict[str, Any] = json.load(f)
    return parsed
