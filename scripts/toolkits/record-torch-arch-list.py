#!/usr/bin/env python3
"""record-torch-arch-list.py - ask PyTorch's own _get_cuda_arch_flags how it reads TORCH_CUDA_ARCH_LIST,
and write tests/data/torch_arch_list_<torch version>.tsv (the oracle for cuarch's torch dialect,
parse_arch_list(..., arch_dialect::torch) in include/cuarch/core/parse.hpp).

Usage:  scripts/toolkits/record-torch-arch-list.py [--torch VERSION] [--source FILE] [-o OUTPUT] [--list]
          --torch    a torch release on the package index (default: the newest pip resolves)
          --source   a torch/utils/cpp_extension.py already at hand (then --torch names its version)
          --list     print the corpus, one Python repr a line, and stop

Method: the release's torch/utils/cpp_extension.py is read out of its wheel on the package index by
HTTP range requests (the zip's central directory, then that one member: ~150 KB, not the 900 MB
wheel) into ~/.cache/cuarch/torch/<version>/; a cached copy is reused offline. The function
_get_cuda_arch_flags is taken from it by `ast` and run from its own source text, with what it
imports stubbed: os and collections are the real ones, `torch` is a stub whose
torch.cuda.device_count() raises (so "asks the GPUs" is an outcome, not a guess), and logger is a
no-op. For each corpus string, TORCH_CUDA_ARCH_LIST is set to it (no GPU is needed: it reads the
variable) and the outcome recorded:
  flags    the sorted, de-duplicated -gencode flags it returns
  error    the exception it raises (ValueError: Unknown CUDA arch (...) or GPU not supported)
  devices  it asks the visible GPUs instead of reading the list (unset, empty, or exactly "native")
The input column escapes backslash, tab, newline and carriage return as \\\\, \\t, \\n, \\r; nothing else.
"""
import argparse
import ast
import collections
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import urllib.request
import zlib

CACHE = os.path.expanduser(os.environ.get("CUARCH_TORCH_CACHE", "~/.cache/cuarch/torch"))
MEMBER = "torch/utils/cpp_extension.py"


def wheel_url(version):
    """The URL of a torch wheel pip would install (no download: pip's --dry-run report)."""
    spec = f"torch=={version}" if version else "torch"
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--dry-run",
                        "--ignore-installed", "--report", report, spec], check=True)
        item = json.load(open(report))["install"][0]
        return item["metadata"]["version"], item["download_info"]["url"]


def read_members(url, members):
    """The bytes of `members` of the remote zip at url, by HTTP range requests."""
    def get(start, end):
        req = urllib.request.Request(url, headers={"Range": f"bytes={start}-{end}"})
        with urllib.request.urlopen(req, timeout=300) as r:
            if r.status != 206:
                raise SystemExit(f"{url}: no range support (HTTP {r.status})")
            return r.read()
    size = int(urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=300).headers["Content-Length"])
    tail = get(max(0, size - 65536), size - 1)
    i = tail.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack("<II", tail[i + 12:i + 20])
    if cd_off == 0xFFFFFFFF:  # zip64
        j = tail.rfind(b"PK\x06\x06")
        cd_size, cd_off = struct.unpack("<QQ", tail[j + 40:j + 56])
    cd = get(cd_off, cd_off + cd_size - 1)
    found, p = {}, 0
    while cd[p:p + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", cd[p + 10:p + 12])
        csize, usize = struct.unpack("<II", cd[p + 20:p + 28])
        nlen, xlen, clen = struct.unpack("<HHH", cd[p + 28:p + 34])
        off, = struct.unpack("<I", cd[p + 42:p + 46])
        name = cd[p + 46:p + 46 + nlen].decode()
        if name in members:
            found[name] = (method, csize, usize, off)
        p += 46 + nlen + xlen + clen
    out = {}
    for m in members:
        method, csize, usize, off = found[m]
        nlen, xlen = struct.unpack("<HH", get(off + 26, off + 29))
        data = get(off + 30 + nlen + xlen, off + 30 + nlen + xlen + csize - 1)
        out[m] = zlib.decompress(data, -15) if method == 8 else data
        assert len(out[m]) == usize, m
    return out


def torch_source(version):
    """(version, path of cpp_extension.py, git version) from the cache, else from the wheel."""
    if version:
        path = os.path.join(CACHE, version, MEMBER)
        if os.path.exists(path):
            return version, path
    version, url = wheel_url(version)
    path = os.path.join(CACHE, version, MEMBER)
    if not os.path.exists(path):
        files = read_members(url, [MEMBER, "torch/version.py"])
        for name, data in files.items():
            dst = os.path.join(CACHE, version, name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "wb").write(data)
        open(os.path.join(CACHE, version, "SOURCE"), "w").write(url + "\n")
    return version, path


class AsksDevices(Exception):
    pass


def load_function(path):
    """_get_cuda_arch_flags from its own source, with its imports stubbed."""
    tree = ast.parse(open(path).read())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_get_cuda_arch_flags")
    module = ast.Module(body=[fn], type_ignores=[])

    def no_devices():
        raise AsksDevices()

    class Stub:
        pass
    torch = Stub()
    torch.cuda = Stub()
    torch.cuda.device_count = no_devices
    logger = Stub()
    logger.debug = lambda *a, **k: None
    namespace = {"os": os, "collections": collections, "re": re, "torch": torch, "logger": logger}
    exec(compile(module, path, "exec"), namespace)
    return namespace["_get_cuda_arch_flags"], ast.get_source_segment(open(path).read(), fn)


def supported_and_named(source):
    """supported_arches and the named generations, read from the function's source."""
    sup = ast.literal_eval(re.search(r"supported_arches = (\[.*?\])", source, re.S).group(1))
    named = re.findall(r"\('([A-Za-z+]+)', '([0-9.;+PTXa]+)'\)", source)
    return sup, named


def corpus(supported, named):
    c = []
    add = c.append
    # Every supported entry alone and with +PTX.
    for s in supported:
        add(s)
        add(s + "+PTX")
    # Compute capabilities and suffixes PyTorch does not list.
    for s in ["3.0", "3.2", "6.2+PTX", "7.2a", "8.6a", "8.8", "8.8+PTX", "9.0f", "10.0f", "10.0f+PTX", "10.1", "10.1a",
              "10.3f", "10.7f", "11.0f", "11.1", "12.0f", "12.1f", "12.2", "13.0", "9.1", "2.0", "1.0"]:
        add(s)
    # Named generations: alone, +PTX, beside numbers, in a list, case.
    for name, _ in named:
        add(name)
        add(name + "+PTX")
        add(name + ";8.0")
        add("7.5 " + name)
        add(name.lower())
        add(name.upper())
    for s in ["Ampere+Tegra+PTX", "Kepler+Tesla+PTX", "Blackwell+Tegra+PTX", "Blackwell+Tegraa", "Blackwell+Tegraa+PTX",
              "AmpereHopper", "Ampere;Hopper", "Ampere Hopper", "Ampere;Ampere", "Hopper;9.0", "Hopper;9.0+PTX",
              "Ampere+Tegra;Ampere", "Maxwell+Tegra;Pascal", "Volta+Tegra Turing", "Blackwell Blackwell+Tegra",
              "Tegra", "Kepler+", "Turing+ptx", "Ada+PTX;8.6", "Rubin;Blackwell", "Hopper+Blackwell", "8.0Ampere",
              "Ampere8.0"]:
        add(s)
    # native and the other keywords.
    for s in ["native", "Native", "NATIVE", "native;8.0", "8.0;native", "native native", " native", "native ", "all",
              "all-major", "native+PTX"]:
        add(s)
    # Separators and whitespace.
    for s in ["", " ", "  ", ";", ";;", "8.0;8.6", "8.0 8.6", "8.0;8.6;9.0", "8.0 8.6 9.0", "8.0; 8.6", "8.0 ;8.6",
              "8.0;;8.6", "8.0  8.6", " 8.0", "8.0 ", "8.0;", ";8.0", "\t8.0", "8.0\t", "8.0\t8.6", "8.0\n8.6", "8.0\n",
              "8.0,8.6", "8.0, 8.6", "8.0|8.6", "8.0;8.6 9.0+PTX", "\r8.0", "8.0 8.6;"]:
        add(s)
    # Duplicates.
    for s in ["8.0;8.0", "8.0 8.0", "8.0;8.0+PTX", "8.0+PTX;8.0", "8.0+PTX 8.0+PTX", "9.0a;9.0a", "9.0;9.0a",
              "9.0a+PTX;9.0+PTX", "Hopper;9.0a", "Ampere;8.6+PTX"]:
        add(s)
    # Case and spelling.
    for s in ["8.0+ptx", "8.0+Ptx", "8.0+PTx", "9.0A", "9.0A+PTX", "8.0PTX", "8.0-PTX", "8.0 +PTX", "+PTX", "PTX",
              "8.0+PTX+PTX", "9.0+PTXa", "9.0a+PTX", "10.0a+PTX", "12.0a+PTX", "12.1a+PTX", "11.0a+PTX"]:
        add(s)
    # Other dialects' spellings and malformed numbers.
    for s in ["80", "sm_80", "compute_80", "lto_90", "sm_90a", "90a", "90-real", "8.6-real", "8.6-virtual", "8", "8.",
              ".0", "08.0", "8.00", "8.0.0", "8,0", "8.0a", "10", "10.", "1 0.0", "9 .0", "9. 0", "10.0 a", "120",
              "12", "12.0 +PTX", "-8.0", "+8.0", "8.0x", "x8.0", "8.0;x", "é8.0", "８.0"]:
        add(s)
    # Lists of everything PyTorch supports.
    add(";".join(supported))
    add(" ".join(supported))
    add(";".join(s + "+PTX" for s in supported))
    # Deterministic random lists: tokens from a pool, separators from a pool.
    rng = random.Random(17)
    pool = supported + [s + "+PTX" for s in supported] + [n for n, _ in named] + \
        ["8.8", "10.0f", "12.0f", "9.0a+PTX", "10.1", "native", "sm_90", "8.0+ptx", "ampere"]
    for _ in range(150):
        n = rng.randint(1, 5)
        toks = [rng.choice(pool) for _ in range(n)]
        seps = [rng.choice([";", " ", ";", " ", "; ", "  ", ";;"]) for _ in range(n - 1)]
        s = toks[0] + "".join(sep + t for sep, t in zip(seps, toks[1:]))
        add(s)
    seen, out = set(), []
    for s in c:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch", default=None)
    ap.add_argument("--source", default=None)
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.source:
        version, path = a.torch or "unknown", a.source
    else:
        version, path = torch_source(a.torch)
    version = version.split("+")[0]
    fn, source = load_function(path)
    supported, named = supported_and_named(source)
    rows = corpus(supported, named)
    if a.list:
        for s in rows:
            print(repr(s))
        return
    git = ""
    vfile = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(path))), "torch", "version.py")
    if os.path.exists(vfile):
        m = re.search(r"git_version = '([0-9a-f]+)'", open(vfile).read())
        git = m.group(1) if m else ""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = a.output or os.path.join(root, "tests", "data", f"torch_arch_list_{version}.tsv")
    saved = os.environ.get("TORCH_CUDA_ARCH_LIST")
    lines = []
    counts = collections.Counter()
    for s in rows:
        os.environ["TORCH_CUDA_ARCH_LIST"] = s
        try:
            outcome, detail = "flags", " ".join(fn())
        except AsksDevices:
            outcome, detail = "devices", "-"
        except Exception as e:  # noqa: BLE001 - the exception is the recorded answer
            outcome, detail = "error", f"{type(e).__name__}: {e}"
        counts[outcome] += 1
        lines.append(f"{escape(s)}\t{outcome}\t{escape(detail)}")
    if saved is None:
        os.environ.pop("TORCH_CUDA_ARCH_LIST", None)
    else:
        os.environ["TORCH_CUDA_ARCH_LIST"] = saved
    with open(out, "w") as f:
        f.write(f"# torch_arch_list_{version}.tsv - how PyTorch {version} reads TORCH_CUDA_ARCH_LIST "
                "(torch/utils/cpp_extension.py, _get_cuda_arch_flags).\n")
        f.write("# Generated by scripts/toolkits/record-torch-arch-list.py; do not edit by hand.\n")
        f.write(f"# torch {version}" + (f" (git {git})" if git else "") + f"; supported_arches: {' '.join(supported)}\n")
        f.write(f"# named: {' '.join(n + '=' + v for n, v in named)}\n")
        f.write("# Run from its own source, TORCH_CUDA_ARCH_LIST set to the input; torch.cuda.device_count stubbed to raise.\n")
        f.write("# Columns: input (\\\\ \\t \\n \\r escaped), torch (flags | error | devices), detail (sorted flags, "
                "the exception, or '-').\n")
        f.write("input\ttorch\tdetail\n")
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(rows)} rows, " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
