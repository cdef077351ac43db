"""cuarch: CUDA target architectures, resolved and validated by the compiler that will build them.

In process, with the C++ library's semantics (one implementation: this package binds it):

    import cuarch
    r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
    r.targets            # ['sm_90a', 'sm_120']
    r.torch_arch_list    # '9.0a;12.0'  (raises ResolveError when PyTorch cannot spell a target)
    r.nvcc_flags         # ['-gencode=arch=compute_90a,code=sm_90a', ...]
    r.cache_key          # for a JIT cache: compiler kind, version, path, targets

    cuarch.resolve(compiler="nvrtc")   # native: the NVRTC this process already loaded wins

Failures raise ResolveError (see cuarch._errors): ResolveInputError (also a ValueError) for
malformed input, ResolveFailure (also a RuntimeError) for everything else; each has .code,
.diagnostics and .to_json(). Nothing is swallowed and no call returns an empty answer.

Every call releases the GIL while the library works, and calls may run in many threads at once.
The command line is `cuarch` (or `python -m cuarch`); docs in README.md.
"""

import json
import warnings
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _cuarch
from ._errors import ResolveError, ResolveFailure, ResolveInputError, raise_for
from ._result import Compiler, Resolution

__version__: str = _cuarch.__version__

__all__ = [
    "resolve",
    "doctor",
    "check",
    "list_targets",
    "Resolution",
    "Compiler",
    "ResolveError",
    "ResolveInputError",
    "ResolveFailure",
    "CuarchWarning",
    "__version__",
]


class CuarchWarning(UserWarning):
    """Something worth knowing that does not stop the call (a toolkit newer than cuarch's table)."""


Strings = Union[str, Iterable[str]]


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


def _version_text(value: Any, name: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(
        f"{name} takes a version string such as '12.8' or '13.0.88', not {type(value).__name__} {value!r} "
        "(a number cannot tell 12.1 from 12.10)"
    )


def _names(value: Any, name: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} takes a string or a sequence of strings, not {type(value).__name__}")
    return [str(v) for v in value]


def resolve(
    archs: Strings = _NATIVE,
    *,
    toolkit: Optional[str] = None,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    compiler: Optional[str] = None,
    nvrtc: Optional[str] = None,
    nvcc: Optional[str] = None,
    cuda_home: Optional[str] = None,
    policy: Strings = "strict",
    native_variant: Optional[str] = None,
    driver: Optional[str] = None,
    env: Optional[Strings] = _CUARCH_ENV,
    dialect: str = "generic",
    cuinit_fallback: bool = True,
) -> Resolution:
    """Resolves CUDA targets, as `cuarch resolve` does, in this process.

    archs           "native" (the devices), "all", "all-major", or a list in any spelling:
                    "9.0a;12.0", "sm_90a compute_90", ["90a-real", "100f"], "8.6+PTX".
    toolkit         a CUDA release ("12.8"): judged by cuarch's table, nothing detected. Without it
                    the compiler is detected as cuarch.doctor() shows: the NVRTC already loaded in
                    this process first, then CUDA_HOME, the loader, PATH, ...
    compiler        "nvrtc" (the JIT path) or "nvcc" (the offline path, e.g. PyTorch extensions).
                    Default: the one that nvrtc= or nvcc= names, else nvcc. nvrtc / nvcc / cuda_home:
                    where to look first.
    devices         the devices' compute capabilities ("9.0,12.0" or ["9.0", "12.0"]); without them
                    "native" asks the driver.
    policy          "strict" (default), "best-effort", "ptx-fallback", "verify-devices",
                    "compatible-minor" (several: "best-effort,ptx-fallback" or a list).
    native_variant  "a" (default), "f" or "baseline": what "native" prefers per device; or a
                    chain "f,a,baseline", or rules "12.0=f,9=a,default=a" (cuarch resolve --help).
    driver          a CUDA version, or "detected": checks PTX against that driver and allows the
                    PTX fallback. None: PTX is not checked (right for builds).
    env             variables that may override archs, first set wins: "cuarch" (CUARCH_ARCHS),
                    "torch" (TORCH_CUDA_ARCH_LIST), "cmake" (CUDAARCHS); None or () for none.
                    As on the command line, archs given explicitly beat the environment unless env
                    is given too; a variable ignored that way is named in a CuarchWarning.
    dialect         how to read archs: "generic" (every spelling), "torch", "cmake", "nvcc".
    cuinit_fallback "native" reads the devices through NVML, which initialises no CUDA in this
                    process; where NVML cannot answer, through cuInit (a CuarchWarning says so: a
                    process forked afterwards cannot use CUDA). False: never cuInit; NVML's failure
                    is then the answer (a ResolveFailure naming it).

    Returns a Resolution (never empty); sources that disagree in a way that bears on it (nvcc vs
    its own headers, CUDA_HOME vs PATH, ...) are in Resolution.warnings and each is raised as a
    CuarchWarning. Raises ResolveInputError / ResolveFailure (both ResolveError) when the library
    refuses (its document carries the same warnings), ValueError for an option value it does not know.
    """
    outcome = _cuarch.resolve(
        archs=_joined(archs, "archs", ";"),
        dialect=dialect,
        env=_names(env, "env"),
        policy=_names(policy, "policy"),
        toolkit=_version_text(toolkit, "toolkit"),
        devices=None if devices is None else _joined(devices, "devices", ","),
        compiler=_optional_text(compiler, "compiler"),
        nvrtc=_optional_text(nvrtc, "nvrtc"),
        nvcc=_optional_text(nvcc, "nvcc"),
        cuda_home=_optional_text(cuda_home, "cuda_home"),
        native_variant=_optional_text(native_variant, "native_variant"),
        driver=_version_text(driver, "driver"),
        cuinit_fallback=bool(cuinit_fallback),
        archs_given=archs is not _NATIVE,
        env_given=env is not _CUARCH_ENV,
    )
    if outcome.note:  # said before a failure is raised too: it bears on the failure as well
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    raise_for(outcome)
    result = Resolution(outcome.json, outcome.compiler_how, outcome.compiler_origin, outcome.compiler_why)
    # Nothing silent: each disagreement that bears on the answer is a warning where the call is made.
    for w in result.warnings:
        warnings.warn(f"{w['what']} ({w['kind']}): {w['meaning']}", CuarchWarning, stacklevel=2)
    return result


def doctor(
    *,
    nvrtc: Optional[str] = None,
    nvcc: Optional[str] = None,
    cuda_home: Optional[str] = None,
    devices: Optional[Union[str, Iterable[Any]]] = None,
    query_devices: bool = False,
    isolated: bool = False,
) -> Dict[str, Any]:
    """Every CUDA source this process can see, with provenance, and where they disagree: the
    document of `cuarch doctor --json`, as a dict, seen from this process (libraries it has
    already loaded included).

    query_devices   also ask for the devices. Off by default: they are read through NVML, which
                    initialises no CUDA, but where NVML cannot answer the driver's cuInit is used
                    in this process, which a process that forks workers later may not want (the
                    document says so). resolve("native") asks for devices when it needs them.
    isolated        look only at the arguments and the CUARCH_* variables (the doctor's --isolated).
    """
    outcome = _cuarch.doctor(
        nvrtc=_optional_text(nvrtc, "nvrtc"),
        nvcc=_optional_text(nvcc, "nvcc"),
        cuda_home=_optional_text(cuda_home, "cuda_home"),
        devices=None if devices is None else _joined(devices, "devices", ","),
        query_devices=bool(query_devices),
        isolated=bool(isolated),
    )
    raise_for(outcome)
    return json.loads(outcome.json)


def check(targets: Strings, toolkit: str, *, dialect: str = "generic") -> List[str]:
    """Checks that CUDA `toolkit` can build every target (by cuarch's table), as `cuarch check`.

    Returns the targets' canonical names. Raises ResolveFailure when any is not buildable: .code
    is the first failing target's reason, .diagnostics has one entry per target (ok or the reason),
    .to_json() the cuarch.check/1 document `cuarch check --format json` prints.
    """
    outcome = _cuarch.check(targets=_joined(targets, "targets", ";"), toolkit=_version_text(toolkit, "toolkit"), dialect=dialect)
    raise_for(outcome)
    return list(outcome.names)


def list_targets(toolkit: str) -> List[str]:
    """Every target (sm_XY[a|f], compute_XY[a|f]) CUDA `toolkit` can build, by cuarch's table, as
    `cuarch list`. A release newer than the table lists what the table's newest builds, with a
    CuarchWarning saying so."""
    outcome = _cuarch.list_targets(toolkit=_version_text(toolkit, "toolkit"))
    raise_for(outcome)
    if outcome.note:
        warnings.warn(outcome.note, CuarchWarning, stacklevel=2)
    return list(outcome.names)
