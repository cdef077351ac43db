#!/usr/bin/env python3
"""check-tool-env.py - each tool's own parser is the oracle for `cuarch env --for TOOL` (issue 21).

For a corpus of requests that the real nvcc (CUDA 13.x) resolves, the variables `cuarch env --for TOOL`
prints are handed to the tool's own code, unmodified, from its released source:
  flashinfer  flashinfer-python 0.7.4: CompilationContext().get_nvcc_flags_list() and
              jit/cpp_ext.build_cuda_cflags() (what its JIT writes into build.ninja); torch is stubbed
              (with FLASHINFER_CUDA_ARCH_LIST set the flags never ask it), everything else is real
  tvm-ffi     apache-tvm-ffi 0.1.15.post2: tvm_ffi/cpp/extension.py _get_cuda_target()
  torch       PyTorch 2.15.0: _get_cuda_arch_flags() from torch/utils/cpp_extension.py, run from its
              source text with os/re/collections (torch stubbed: with TORCH_CUDA_ARCH_LIST set it is not asked)
  cmake       CMake's own configure and build of a one-kernel project, CUDAARCHS and CUDACXX taken
              from the environment (compile_commands.json), for each CMake given (--cmake, repeatable)
  triton      triton 3.9.0's knobs.py (its C++ getenv stubbed by os.environ): the ptxas each of
              knobs.nvidia.ptxas / ptxas_blackwell resolves to, and its release, once (Triton takes no list)
The -gencode pairs each tool derives must equal those of `cuarch resolve --format nvcc` for the same
request, and the compiler the variables name must be the nvcc that resolved it. Where `cuarch env`
refuses (not_expressible), the tool's parser is run on the plain dotted spelling of the targets to
show what the tool would have built instead: a refusal is justified when that differs or raises.
A sample of agreeing sets (--compile N per tool) is compiled with the nvcc the variables name.

Usage: check-tool-env.py CLI [--nvcc PATH] [--tools flashinfer,tvm-ffi,torch,cmake] [--compile N]
                             [--cmake PATH ...] [--cache DIR] [--summary FILE]
The wheels and torch's source come from the cache (default ~/.cache/cuarch): wheels-tools/flashinfer-0.7.4,
wheels-tools/tvm-ffi-0.1.15.post2 (unpacked `pip download --no-deps` wheels: scripts/toolkits/fetch-tool-wheels.sh)
and torch/2.15.0/torch/utils/cpp_extension.py (scripts/toolkits/record-torch-arch-list.py --torch 2.15.0). A tool whose part is missing is skipped, visibly.
Exit: 0 every case agreed; 1 a mismatch; 77 skipped (no nvcc 13.x, nothing cached).
"""

import argparse
import ast
import collections
import glob
import importlib
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import types

PAIR = re.compile(r"(?:-gencode|--generate-code)=arch=([^,\s\"]+),code=(\[[^\]]*\]|[^\s\"]+)")


def pairs(text):
    """The (arch, code) pairs of nvcc target flags, as a sorted tuple of 'arch>code'."""
    out = set()
    for m in PAIR.finditer(text):
        for c in m.group(2).strip("[]").split(","):
            out.add(m.group(1) + ">" + c)
    return tuple(sorted(out))


def cli_json(cli, args, env):
    p = subprocess.run([cli, *args, "--format", "json"], capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, json.loads(p.stdout) if p.stdout.strip() else None, p.stderr


def dotted(target):
    """sm_90a -> 9.0a; compute_90 -> 9.0+PTX (the plain spelling a user would write)."""
    cc, suffix = target["cc"], {"baseline": "", "arch_specific": "a", "family_specific": "f"}[target["variant"]]
    return cc + suffix + ("+PTX" if target["form"] == "ptx" else "")


# --- the tools' own parsers ----------------------------------------------------------------------


def quiet_logger():
    logger = logging.getLogger("torch.utils.cpp_extension (stubbed)")
    logger.setLevel(logging.ERROR)  # "No CUDA runtime is found": true here, and not the question
    return logger


def stub_torch():
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(device_count=lambda: 0, is_available=lambda: False)
    torch.version = types.SimpleNamespace(cuda=None)
    torch._C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True)
    return torch


class FlashInfer:
    name, variable_list = "flashinfer", "FLASHINFER_CUDA_ARCH_LIST"

    def __init__(self, cache):
        wheel = os.path.join(cache, "wheels-tools", "flashinfer-0.7.4")
        tvm = os.path.join(cache, "wheels-tools", "tvm-ffi-0.1.15.post2")
        packaging = (glob.glob(os.path.join(cache, "wheels-tools", "packaging-*.whl")) or
                     glob.glob(os.path.join(cache, "wheels", "wheelhouse", "packaging-*.whl")))[:1]
        if not os.path.isdir(os.path.join(wheel, "flashinfer")) or not os.path.isdir(tvm):
            raise LookupError(f"no unpacked flashinfer-python 0.7.4 / apache-tvm-ffi wheel under {cache}/wheels-tools")
        sys.path[:0] = [tvm] + packaging
        import tvm_ffi  # noqa: F401  (before the torch stub: it probes for a real torch)

        sys.modules.setdefault("torch", stub_torch())
        # The package's __init__ imports every kernel module (and a real torch); its JIT code does not
        # need them: map the packages onto the wheel's directories and import the real modules.
        for name, sub in (("flashinfer", "flashinfer"), ("flashinfer.jit", "flashinfer/jit")):
            m = types.ModuleType(name)
            m.__path__ = [os.path.join(wheel, sub)]
            sys.modules[name] = m
        self.version = open(os.path.join(wheel, "flashinfer", "version.py")).read().split("=")[-1].strip().strip("\"'")
        self.cpp_ext = importlib.import_module("flashinfer.jit.cpp_ext")
        self.context = importlib.import_module("flashinfer.compilation_context")

    def flags(self, variables):
        with environment(variables):
            from_context = [f for f in self.context.CompilationContext().get_nvcc_flags_list() if f.startswith("-gencode")]
            from_jit = [f for f in self.cpp_ext.build_cuda_cflags([], None) if f.startswith("-gencode")]
            if pairs(" ".join(from_context)) != pairs(" ".join(from_jit)):
                raise AssertionError(f"FlashInfer's context {from_context} and JIT flags {from_jit} differ")
            return from_jit, os.path.join(self.cpp_ext.get_cuda_path(), "bin", "nvcc"), variables.get("FLASHINFER_NVCC")

    def naive(self, targets):
        return {self.variable_list: " ".join(dotted(t) for t in targets)}


class TvmFfi:
    name, variable_list = "tvm-ffi", "TVM_FFI_CUDA_ARCH_LIST"

    def __init__(self, cache):
        tvm = os.path.join(cache, "wheels-tools", "tvm-ffi-0.1.15.post2")
        if not os.path.isdir(tvm):
            raise LookupError(f"no unpacked apache-tvm-ffi 0.1.15.post2 wheel under {cache}/wheels-tools")
        if tvm not in sys.path:
            sys.path.insert(0, tvm)
        self.extension = importlib.import_module("tvm_ffi.cpp.extension")

    def flags(self, variables):
        with environment(variables):
            self.extension._find_cuda_home.cache_clear()
            home = self.extension._find_cuda_home()
            return self.extension._get_cuda_target().split(), os.path.join(home, "bin", "nvcc"), None

    def naive(self, targets):
        return {self.variable_list: " ".join(dotted(t) for t in targets)}


class Torch:
    name, variable_list = "torch", "TORCH_CUDA_ARCH_LIST"

    def __init__(self, cache):
        source = os.path.join(cache, "torch", "2.15.0", "torch", "utils", "cpp_extension.py")
        if not os.path.exists(source):
            raise LookupError(f"no PyTorch 2.15.0 torch/utils/cpp_extension.py at {source}")
        text = open(source).read()
        tree = ast.parse(text)
        wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("_get_cuda_arch_flags", "_find_cuda_home")]
        scope = {"os": os, "re": re, "collections": collections, "shutil": __import__("shutil"), "glob": glob,
                 "IS_WINDOWS": False, "logger": quiet_logger(), "torch": stub_torch()}
        exec(compile(ast.Module(body=wanted, type_ignores=[]), source, "exec"), scope)
        self.get_cuda_arch_flags, self.find_cuda_home = scope["_get_cuda_arch_flags"], scope["_find_cuda_home"]

    def flags(self, variables):
        with environment(variables):
            home = self.find_cuda_home()
            nvcc = os.environ.get("PYTORCH_NVCC", "").split()[-1:] or [os.path.join(home, "bin", "nvcc")]
            return self.get_cuda_arch_flags(), os.path.join(home, "bin", "nvcc"), nvcc[0]

    def naive(self, targets):
        return {self.variable_list: ";".join(dotted(t) for t in targets)}


class CMake:
    name, variable_list = "cmake", "CUDAARCHS"

    def __init__(self, cache, cmake, work):
        self.cmake, self.work = cmake, work
        self.version = re.search(r"version (\S+)", subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout).group(1)
        self.name = f"cmake {self.version}"
        self.project = os.path.join(work, "cmake-project")
        os.makedirs(self.project, exist_ok=True)
        with open(os.path.join(self.project, "k.cu"), "w") as f:
            f.write("__global__ void k(int* p) { *p = 1; }\n")
        with open(os.path.join(self.project, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CUDA)\nadd_library(k OBJECT k.cu)\n")
        self.count = 0

    def flags(self, variables):
        self.count += 1
        build = os.path.join(self.work, f"cmake-{self.version}-build-{self.count}")
        env = dict(os.environ, **variables)
        p = subprocess.run([self.cmake, "-S", self.project, "-B", build, "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                           capture_output=True, text=True, env=env, timeout=300)
        if p.returncode != 0:
            raise RuntimeError("configure failed: " + (p.stdout + p.stderr)[-600:])
        p = subprocess.run([self.cmake, "--build", build], capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != 0:  # the kernel, compiled by the nvcc CUDACXX names for the CUDAARCHS targets
            raise RuntimeError("build failed: " + (p.stdout + p.stderr)[-600:])
        commands = json.load(open(os.path.join(build, "compile_commands.json")))
        cache = open(os.path.join(build, "CMakeCache.txt")).read()
        compiler = re.search(r"^CMAKE_CUDA_COMPILER:\w+=(.*)$", cache, re.M).group(1)
        return [c["command"] for c in commands], compiler, None


class Triton:
    name = "triton"

    def __init__(self, cache):
        tree = os.path.join(cache, "wheels-tools", "triton-3.9.0")
        if not os.path.exists(os.path.join(tree, "triton", "knobs.py")):
            raise LookupError(f"no triton 3.9.0 triton/knobs.py under {tree} (CUARCH_FETCH_TRITON=1 scripts/toolkits/fetch-tool-wheels.sh)")
        triton = types.ModuleType("triton")
        triton.__path__ = [os.path.join(tree, "triton")]
        c = types.ModuleType("triton._C")
        c.__path__ = []
        lib = types.ModuleType("triton._C.libtriton")  # its getenv reads the variable, as os.environ does
        lib.getenv = lambda key, default=None: os.environ.get(key, default)
        lib.getenv_bool = lambda key, default=False: os.environ.get(key, "1" if default else "0").lower() in ("1", "true", "on", "yes")
        utils = types.ModuleType("triton._utils")
        utils.FP_FUSION_DEFAULT_WARNING, utils.warn_once = "", lambda *a, **k: None
        sys.modules.update({"triton": triton, "triton._C": c, "triton._C.libtriton": lib, "triton._utils": utils})
        self.knobs = importlib.import_module("triton.knobs")

    def ptxas(self, variables):
        """(path, release) of the ptxas Triton runs below sm_90 and from sm_90 (compiler.py get_ptxas)."""
        with environment(variables):
            self.knobs.NvidiaTool.from_path.cache_clear()
            return [(t.path, t.version) for t in (self.knobs.nvidia.ptxas, self.knobs.nvidia.ptxas_blackwell)]


class environment:
    """Sets variables (and unsets the other ones a tool reads) for the duration of a block."""

    READ = ("TORCH_CUDA_ARCH_LIST", "PYTORCH_NVCC", "FLASHINFER_CUDA_ARCH_LIST", "FLASHINFER_NVCC", "FLASHINFER_EXTRA_CUDAFLAGS",
            "TVM_FFI_CUDA_ARCH_LIST", "CUDA_HOME", "CUDA_PATH", "CUDAARCHS", "CUDACXX", "TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH")

    def __init__(self, variables):
        self.variables = variables

    def __enter__(self):
        self.saved = {k: os.environ.get(k) for k in set(self.READ) | set(self.variables)}
        for k in self.saved:
            os.environ.pop(k, None)
        os.environ.update(self.variables)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# --- the corpus ----------------------------------------------------------------------------------


def corpus(cli, nvcc_version, env):
    """Requests (archs, device_cc, native_variant): every target the toolkit builds alone, a
    deterministic sample of pairs and triples, families, and native for several device sets."""
    _, listed, _ = cli_json(cli, ["list", "--toolkit", nvcc_version], env)
    names = [t["name"] for t in listed["targets"]]
    requests = [(n, None, None) for n in names]
    n = len(names)
    for i in range(n):
        requests.append((f"{names[i]};{names[(i * 7 + 3) % n]}", None, None))
    for i in range(0, n, 3):
        requests.append((f"{names[i]};{names[(i * 5 + 1) % n]};{names[(i * 11 + 2) % n]}", None, None))
    requests += [("9.0a;10.0a;12.0a", None, None), ("8.6;8.9;9.0a", None, None), ("10.0f;11.0f;12.0f", None, None),
                 ("7.5;8.0;8.6;8.9;9.0a;10.0a;10.3a;11.0a;12.0a;12.1a", None, None), ("8.6+PTX", None, None), ("all-major", None, None)]
    for devices in ("9.0", "8.6,9.0", "10.0,12.0", "12.0", "12.1", "8.0,8.6,8.9"):
        for variant in (None, "f", "baseline"):
            requests.append(("native", devices, variant))
    return requests


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--nvcc", default=os.environ.get("CUARCH_TEST_NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--tools", default="flashinfer,tvm-ffi,torch,cmake,triton")
    ap.add_argument("--compile", type=int, default=2)
    ap.add_argument("--cmake", action="append", default=[])
    ap.add_argument("--cmake-cases", type=int, default=8)
    ap.add_argument("--cache", default=os.environ.get("CUARCH_CACHE", os.path.expanduser("~/.cache/cuarch")))
    ap.add_argument("--summary")
    args = ap.parse_args()

    nvcc = os.path.realpath(args.nvcc)
    version_text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout if os.access(nvcc, os.X_OK) else ""
    release = re.search(r"release (\d+\.\d+)", version_text)
    if not release or not release.group(1).startswith("13."):
        print(f"skipped: no nvcc 13.x at {args.nvcc} (set --nvcc or CUARCH_TEST_NVCC)")
        return 77
    work = tempfile.mkdtemp(prefix="cuarch-tool-env-")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "LC_ALL": "C"}
    tools, skipped, triton = [], [], None
    for name in args.tools.split(","):
        try:
            if name == "flashinfer":
                tools.append(FlashInfer(args.cache))
            elif name == "tvm-ffi":
                tools.append(TvmFfi(args.cache))
            elif name == "torch":
                tools.append(Torch(args.cache))
            elif name == "triton":
                triton = Triton(args.cache)
            elif name == "cmake":
                cmakes = args.cmake or [c for c in [subprocess.run(["sh", "-c", "command -v cmake"], capture_output=True, text=True).stdout.strip()] if c]
                four = subprocess.run([os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "toolkits", "fetch-cmake.sh"), "4"],
                                      capture_output=True, text=True, env=dict(os.environ, CUARCH_OFFLINE="1"))
                if not args.cmake and four.returncode == 0 and four.stdout.strip():
                    cmakes.append(four.stdout.strip().splitlines()[-1])
                tools += [CMake(args.cache, c, work) for c in cmakes]
        except (LookupError, ImportError) as e:
            skipped.append(f"{name}: {e}")
    for s in skipped:
        print(f"skipped: {s}")
    if not tools and not triton:
        print("skipped: no tool's parser is at hand")
        return 77

    requests = corpus(args.cli, release.group(1), env)
    failures, lines = [], []
    stats = {t.name: collections.Counter() for t in tools}
    compiled = collections.Counter()
    resolved = 0
    with open(os.path.join(work, "k.cu"), "w") as f:
        f.write("__global__ void k(int* p) { *p = 1; }\n")
    for archs, devices, variant in requests:
        common = ["--archs", archs, "--nvcc", nvcc, "--isolated"]
        if devices:
            common += ["--device-cc", devices]
        if variant:
            common += ["--native-variant", variant]
        rc, doc, _ = cli_json(args.cli, ["resolve", *common], env)
        if rc != 0:
            continue
        resolved += 1
        want = pairs(" ".join(doc["nvcc"]))
        shown = archs + (f" (devices {devices}" + (f", {variant}" if variant else "") + ")" if devices else "")
        for tool in tools:
            s = stats[tool.name]
            if isinstance(tool, CMake):
                if (requests.index((archs, devices, variant)) % max(1, len(requests) // args.cmake_cases)) != 0:
                    continue  # a configure takes seconds: a spread sample
                extra = ["--cmake-version", tool.version]
            else:
                extra = []
            s["sets"] += 1
            rc, got, err = cli_json(args.cli, ["env", "--for", tool.name.split()[0], *common, *extra], env)
            if rc == 0:
                variables = {v["name"]: v["value"] for v in got["variables"]}
                try:
                    flags, home_nvcc, runs = tool.flags(variables)
                except Exception as e:  # the tool's own code refused what cuarch printed
                    failures.append(f"{tool.name}: {shown}: the tool refused cuarch's variables {variables}: {e}")
                    continue
                if pairs(" ".join(flags)) != want:
                    failures.append(f"{tool.name}: {shown}: the tool derives {pairs(' '.join(flags))}, cuarch resolved {want}")
                    continue
                ran = os.path.realpath(runs or home_nvcc)
                if ran != nvcc:
                    failures.append(f"{tool.name}: {shown}: the tool would run {ran}, not the nvcc that resolved ({nvcc})")
                    continue
                s["agree"] += 1
                if isinstance(tool, CMake):
                    compiled[tool.name] += 1  # CMake built the kernel with CUDACXX for CUDAARCHS
                if compiled[tool.name] < args.compile and not isinstance(tool, CMake):
                    p = subprocess.run([ran, "-c", os.path.join(work, "k.cu"), "-o", os.path.join(work, "k.o"),
                                        *[f for f in flags if f.startswith("-gencode")]], capture_output=True, text=True, timeout=600)
                    if p.returncode != 0:
                        failures.append(f"{tool.name}: {shown}: {ran} did not compile with the tool's flags: {p.stderr[-400:]}")
                    else:
                        compiled[tool.name] += 1
                        lines.append(f"compiled: {tool.name} {shown} with {ran}: {' '.join(flags)}")
            elif rc == 1 and got and not got["ok"] and got["error"]["code"] == "not_expressible":
                s["refused"] += 1
                if isinstance(tool, CMake):
                    continue
                try:
                    flags, _, _ = tool.flags(dict(tool.naive(doc["targets"]), CUDA_HOME=os.path.dirname(os.path.dirname(nvcc))))
                    verdict = pairs(" ".join(flags))
                    if verdict == want and tool.name == "torch" and any(t["form"] == "ptx" and t["variant"] != "baseline" for t in doc["targets"]):
                        # Deliberate (docs/conformance.md): PyTorch reads "9.0a+PTX" as arch-specific PTX;
                        # cuarch refuses that spelling as input and so never writes it.
                        s["refused_deliberate"] += 1
                        lines.append(f"refused, deliberately: {tool.name} {shown}: PyTorch would read {tool.naive(doc['targets'])} as these targets")
                        continue
                    if verdict == want:
                        failures.append(f"{tool.name}: {shown}: cuarch refused ({got['error']['message']}) but the tool reads "
                                        f"{tool.naive(doc['targets'])} as the same targets")
                        continue
                    s["refused_differs"] += 1
                    lines.append(f"refused: {tool.name} {shown}: the plain spelling would build {' '.join(verdict)}")
                except Exception as e:
                    s["refused_raises"] += 1
                    lines.append(f"refused: {tool.name} {shown}: the plain spelling raises {type(e).__name__}: {str(e)[:120]}")
            else:
                failures.append(f"{tool.name}: {shown}: cuarch env exited {rc}: {err.strip()[:300]}")
    if triton:
        rc, got, err = cli_json(args.cli, ["env", "--for", "triton", "--archs", "9.0a", "--nvcc", nvcc, "--isolated"], env)
        variables = {v["name"]: v["value"] for v in got["variables"]} if rc == 0 else {}
        ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
        try:
            seen = triton.ptxas(variables)
        except Exception as e:
            seen = f"{type(e).__name__}: {e}"
        if rc != 0 or seen != [(ptxas, release.group(1))] * 2:
            failures.append(f"triton: cuarch env exited {rc} ({err.strip()[:200]}); Triton's knobs resolve {seen}, want {ptxas} "
                            f"(release {release.group(1)}) for both")
        else:
            summary_triton = f"triton 3.9.0: knobs.nvidia.ptxas and ptxas_blackwell both run {ptxas} (release {release.group(1)})"
            lines.append(summary_triton)
    for line in lines:
        print(line)
    for f in failures:
        print("FAIL: " + f)
    summary = [f"{len(requests)} requests, {resolved} resolved by nvcc {release.group(1)} ({nvcc})"]
    for name, s in stats.items():
        summary.append(f"{name}: {s['sets']} sets; {s['agree']} printed and the tool's parser derives cuarch's -gencode set; "
                       f"{s['refused']} refused (not_expressible): the plain spelling builds other targets in {s['refused_differs']}, "
                       f"raises in {s['refused_raises']}" + (f", reads it the same in {s['refused_deliberate']} (deliberate: arch-specific PTX)" if s["refused_deliberate"] else "") +
                       f"; compiled {compiled[name]}")
    for line in summary:
        print(line)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write("\n".join(summary) + "\n")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
