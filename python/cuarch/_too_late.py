"""What a tool keeps of its environment once imported: cuarch.env(tool) says when it comes too late.

Some tools read a variable once and keep the value, so `os.environ.update(cuarch.env(tool))` after
that changes nothing in this process. THE table of such values is KEPT below, read from each tool's
source at the release cuarch's env rules follow (tool_sources in include/cuarch/front_door/tool_env.hpp,
the "tool_source" of the cuarch.env/1 document); each entry cites the file and line that keeps it.
What a tool reads at each build is not in it, since setting it late works:
  torch       TORCH_CUDA_ARCH_LIST (_get_cuda_arch_flags), PYTORCH_NVCC (_write_ninja_file_to_build_library)
  flashinfer  FLASHINFER_NVCC (jit/cpp_ext.py generate_ninja_build_for_op)
  tvm-ffi     TVM_FFI_CUDA_ARCH_LIST (cpp/extension.py _get_cuda_target)
  triton      TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH (knobs.py env_nvidia_tool.get), unless
              set on triton.knobs.nvidia, which the table covers
CMake is no Python module: it reads CUDAARCHS and CUDACXX at its first configure of a build tree.

Nothing here imports a tool or calls what would fill a cache: a module counts only when it is
already in sys.modules, and a functools cache only when it holds a value (cache_info().currsize).
"""

import os
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple


class _Unknown:
    """The module is loaded but lacks what the table names (another release): cuarch cannot tell."""

    def __init__(self, missing: str):
        self.missing = missing


_NOT_KEPT = object()  # the module keeps nothing yet: it reads the variable when it first needs it


class Kept(NamedTuple):
    tool: str  # as cuarch.env() names it
    variable: str  # the variable cuarch.env() sets
    module: str  # the module that keeps it, once in sys.modules
    what: str  # what keeps it, in the tool's own terms
    source: str  # where the tool's source makes it so
    read: Callable[[Any], Any]  # module -> the kept value, _NOT_KEPT, or _Unknown
    same: Callable[[Any, str], bool]  # (kept value, the value cuarch.env gives) -> nothing would change
    shown: Callable[[Any], str]


def _attribute(path: str) -> Callable[[Any], Any]:
    def read(module: Any) -> Any:
        value = module
        for name in path.split("."):
            if not hasattr(value, name):
                return _Unknown(path)
            value = getattr(value, name)
        return value

    return read


def _cached_call(function: str, also: Optional[str] = None) -> Callable[[Any], Any]:
    """The value a functools.cache'd function of no arguments keeps, once it has been called
    (calling it then only returns the kept value); with `also`, a second one's, as a pair."""

    def kept(module: Any, name: str) -> Any:
        f = getattr(module, name, None)
        if f is None or not hasattr(f, "cache_info"):
            return _Unknown(name + "() (a functools cache)")
        return f() if f.cache_info().currsize else _NOT_KEPT

    def read(module: Any) -> Any:
        value = kept(module, function)
        if also is None or value is _NOT_KEPT or isinstance(value, _Unknown):
            return value
        return (value, kept(module, also))

    return read


def _set_on(obj: str, name: str) -> Callable[[Any], Any]:
    """A value set on a knobs object (it outranks the variable: env_base.__get__)."""

    def read(module: Any) -> Any:
        holder = getattr(module, obj, None)
        if holder is None or not hasattr(holder, "__dict__"):
            return _Unknown(obj)
        return holder.__dict__.get(name, _NOT_KEPT)

    return read


def _same_path(kept: Any, now: str) -> bool:
    path = kept[0] if isinstance(kept, tuple) else kept
    path = getattr(path, "path", path)  # a triton NvidiaTool
    return isinstance(path, str) and os.path.realpath(path) == os.path.realpath(now)


def _path_shown(kept: Any) -> str:
    if isinstance(kept, tuple):
        path, version = kept
        return repr(path) + ("" if version is _NOT_KEPT or isinstance(version, _Unknown) else f" (its CUDA version {version})")
    return repr(getattr(kept, "path", kept))


def _archs(kept: Any) -> Set[Tuple[int, str]]:
    return set(kept) if isinstance(kept, (set, frozenset)) else set()


def _flashinfer_context(module: Any) -> Any:
    archs = _attribute("current_compilation_context.TARGET_CUDA_ARCHS")(module)
    # An empty set is detected again at the next check_cuda_arch() (jit/core.py), reading the variable then.
    return _NOT_KEPT if isinstance(archs, (set, frozenset)) and not archs else archs


def _same_archs(kept: Any, now: str) -> bool:
    # FlashInfer's parse (compilation_context.py, CompilationContext.__init__): "X.Y[a|f]" split on
    # one space, kept as (X, "Y[a|f]"); cuarch's list spells every suffix (bare only below 9.0).
    given = set()
    for entry in now.split(" "):
        major, _, minor = entry.partition(".")
        given.add((int(major), minor))
    return _archs(kept) == given


def _archs_shown(kept: Any) -> str:
    return repr(" ".join(f"{major}.{minor}" for major, minor in sorted(_archs(kept))))


# THE table: (tool, variable) -> what keeps it. Sources: the releases of tool_sources (tool_env.hpp).
KEPT = (
    Kept("torch", "CUDA_HOME", "torch.utils.cpp_extension", "torch.utils.cpp_extension.CUDA_HOME",
         "set at import: torch/utils/cpp_extension.py line 411, CUDA_HOME = _find_cuda_home()",
         _attribute("CUDA_HOME"), _same_path, _path_shown),
    Kept("flashinfer", "FLASHINFER_CUDA_ARCH_LIST", "flashinfer.jit.core",
         "flashinfer.jit.core.current_compilation_context.TARGET_CUDA_ARCHS",
         "built at import: flashinfer/jit/core.py line 206, current_compilation_context = CompilationContext()",
         _flashinfer_context, _same_archs, _archs_shown),
    Kept("flashinfer", "CUDA_HOME", "flashinfer.jit.cpp_ext", "flashinfer.jit.cpp_ext.get_cuda_path()",
         "functools caches filled by the first call, at import where the context derives a suffix from the "
         "CUDA version: flashinfer/jit/cpp_ext.py lines 47 and 67, get_cuda_path() and get_cuda_version()",
         _cached_call("get_cuda_path", also="get_cuda_version"), _same_path, _path_shown),
    Kept("tvm-ffi", "CUDA_HOME", "tvm_ffi.cpp.extension", "tvm_ffi.cpp.extension._find_cuda_home()",
         "a functools.lru_cache, filled by the first build: tvm_ffi/cpp/extension.py line 165",
         _cached_call("_find_cuda_home"), _same_path, _path_shown),
    Kept("triton", "TRITON_PTXAS_PATH", "triton.knobs", "triton.knobs.nvidia.ptxas",
         "a value set on the knob outranks the variable: triton/knobs.py, env_base.__get__",
         _set_on("nvidia", "ptxas"), _same_path, _path_shown),
    Kept("triton", "TRITON_PTXAS_BLACKWELL_PATH", "triton.knobs", "triton.knobs.nvidia.ptxas_blackwell",
         "a value set on the knob outranks the variable: triton/knobs.py, env_base.__get__",
         _set_on("nvidia", "ptxas_blackwell"), _same_path, _path_shown),
)

_PACKAGE = {"torch": "torch", "flashinfer": "flashinfer", "tvm-ffi": "tvm_ffi", "triton": "triton"}


def _release_note(tool: str, tool_source: str) -> str:
    """Which release the rule was read from, and the loaded one where it differs."""
    package = sys.modules.get(_PACKAGE.get(tool, ""))
    loaded = getattr(package, "__version__", None)
    wanted = tool_source.rsplit(" ", 1)[-1]
    if isinstance(loaded, str) and loaded.split("+")[0] != wanted:
        return f"{tool_source}'s source; {_PACKAGE[tool]} {loaded} is loaded"
    return tool_source


def too_late(tool: str, variables: Dict[str, str], tool_source: str) -> List[str]:
    """One message for each variable of `variables` that a module of `tool` already loaded in this
    process keeps at another value: setting it now changes nothing there."""
    out: List[str] = []
    for k in KEPT:
        if k.tool != tool or k.variable not in variables or k.module not in sys.modules:
            continue
        value = k.read(sys.modules[k.module])
        now = variables[k.variable]
        rule = f"{k.source}; {_release_note(tool, tool_source)}"
        fix = (f"call cuarch.env({tool!r}) and update os.environ before anything imports {k.module}, "
               "or run the work in a new process with these variables")
        if isinstance(value, _Unknown):
            out.append(f"{k.module} is already imported and has no {value.missing}, where {tool_source} keeps "
                       f"{k.variable}: cuarch cannot tell whether {k.variable}={now!r} set now reaches it ({rule}). "
                       f"To be sure, {fix}")
        elif value is not _NOT_KEPT and not k.same(value, now):
            out.append(f"{k.module} was imported before cuarch.env({tool!r}): {k.what} keeps {k.shown(value)} ({rule}), "
                       f"so {k.variable}={now!r} set now changes nothing in this process. Fix: {fix}")
    return out
