#!/usr/bin/env python3
"""record-cmake-architectures.py - ask the real CMake how it reads CMAKE_CUDA_ARCHITECTURES (and so
CUDAARCHS, which initialises it), and write tests/data/cmake_architectures.tsv (the oracle for cuarch's
cmake dialect, parse_arch_list(..., arch_dialect::cmake) in include/cuarch/core/parse.hpp).

Usage:  scripts/toolkits/record-cmake-architectures.py [--cmake PATH]... [--nvcc PATH] [-o OUTPUT] [-j N]
        scripts/toolkits/record-cmake-architectures.py --check TSV [--every K] [--full N] [--cmake PATH]...
          --cmake   a cmake executable (repeatable); default: cmake on PATH and the newest 4.x cached by
                    scripts/toolkits/fetch-cmake.sh (offline)
          --nvcc    the CUDA compiler CMake identifies (default /usr/local/cuda/bin/nvcc)
          --list    print the corpus, one Python repr a line, and stop
          --check   re-ask the CMakes at hand about every K-th row of TSV and compare; --full N also puts
                    N of them (one per outcome) through a whole `enable_language(CUDA)` configure.
                    Exit 0 same, 1 different, 77 no nvcc/ninja or no recorded CMake at hand.

What enable_language(CUDA) does with the variable, in CMake's own code, one stage at a time:
  1. validation: CMake's check of the value, run by that CMake in script mode (cmake -P) on each value
     set byte for byte (string(ASCII)): Modules/Internal/CMakeCUDAArchitecturesValidate.cmake's function
     where the release has it (3.28 on), else the `if(DEFINED CMAKE_CUDA_ARCHITECTURES)` block of
     Modules/CMakeDetermineCUDACompiler.cmake, taken verbatim from the release's own file;
  2. the flags: one project (compiler identified once) with one target per value that passed, its
     CUDA_ARCHITECTURES property set to the value (CMake initialises the property from the variable),
     generated with Ninja; the architecture flags of each target's compile command in
     compile_commands.json, in order (--generate-code=... or -arch=...). A generate error (native
     without a GPU) is found by splitting the batch;
  3. the compiler: CMake's compiler check (CMakeDetermineCompilerABI, CMakeTestCUDACompiler) compiles
     with those flags: nvcc -c of a one-kernel file with the flags, once per distinct flag set.
--full shows that the stages give the verdict of a whole configure (the first error's text aside).

Outcomes per CMake:  flags (detail: the flags)  none (a false constant such as OFF: no architecture flag)
  devices (native: CMake asked the GPUs and found none here)  refused (detail: CMake's first error).
The nvcc column is nvcc's verdict on the flags: `accepts`, or its first error line; `-` without flags.
The input column escapes backslash, tab, newline and carriage return as \\\\, \\t, \\n, \\r; nothing else.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
KERNEL = "__global__ void k(int* p) { *p = 1; }\n"


def corpus():
    c = []
    add = c.append
    ccs = ["35", "50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87", "88", "89", "90", "100", "101",
           "103", "110", "120", "121"]
    # Every compute capability with every suffix and form.
    for cc in ccs:
        for v in ["", "a", "f"]:
            for form in ["", "-real", "-virtual"]:
                add(cc + v + form)
    # Numbers that are no GPU, leading zeros, huge numbers.
    for s in ["0", "1", "9", "10", "20", "30", "81", "91", "99", "102", "104", "111", "122", "130", "1000", "090",
              "0090", "075", "00", "0-real", "0a", "99999999999999999999", "90a-real;100f-virtual;120"]:
        add(s)
    # Keywords: alone, case, beside targets, with suffixes.
    for s in ["all", "all-major", "native", "ALL", "All", "ALL-MAJOR", "all-Major", "all_major", "allmajor", "Native",
              "NATIVE", "all;90", "90;all", "native;native", "all;all-major", "native;90", "90;native", "all-real",
              "all-major-virtual", "native-real", "native;", "all;", ";native", " all", "all ", "native\n"]:
        add(s)
    # False constants and other truth values.
    for s in ["", "OFF", "off", "Off", "FALSE", "false", "NO", "no", "N", "n", "IGNORE", "NOTFOUND", "X-NOTFOUND",
              "90-NOTFOUND", "ON", "on", "TRUE", "YES", "Y", "1", "0.0", "-0"]:
        add(s)
    # Separators and whitespace (CMake keeps it inside entries).
    for s in ["80;90", "80;90;100", "80,90", "80 90", "80;;90", "80;", "80;;", ";80", ";", ";;", "80;90;", "80; 90",
              "80 ;90", " 80;90", "80;90 ", "\t80", "80\t", "80\n", "\n80", "80\n;90", "80;\n90", "80\\;90", "80|90",
              "[80;90]", "[80]", "\"80;90\"", "\"80\"", "'80'", "80;90\r", "80;;;90", "80;;90;;"]:
        add(s)
    # Suffix spellings, case, other dialects' spellings, malformed entries.
    for s in ["90A", "90F", "90-REAL", "90-Real", "90-VIRTUAL", "90-Virtual", "90 -real", "90- real", "90-real ",
              "90-real-virtual", "90-virtual-real", "90--real", "90-", "90a-", "-90", "+90", "90af", "90fa", "90aa",
              "90b", "a90", "90-realx", "90-virt", "90real", "sm_90", "SM_90", "compute_90", "lto_90", "sm_90a",
              "9.0", "9.0a", "90+PTX", "9.0+PTX", "90.0", "9", "90 a", "120a-real;sm_90", "x", "-", "-real",
              "a", "f", "é90", "９0"]:
        add(s)
    # Duplicates and pairs nvcc refuses in one compilation.
    for s in ["90;90", "90;90-real", "90-real;90", "90-real;90-virtual", "90-virtual;90-real", "90;90a", "90a;90a-real",
              "90a;90a", "80;80;80", "100;100f", "100f;100", "100-real;100f-real", "100f;100-virtual", "100;100a",
              "120a;120f", "120f;121f", "103f;100", "110;110f", "121;121f-real", "90a-virtual;90-virtual"]:
        add(s)
    # Deterministic random lists.
    rng = random.Random(17)
    pool = [cc + v + form for cc in ["75", "80", "86", "89", "90", "100", "103", "110", "120", "121"]
            for v in ["", "a", "f"] for form in ["", "-real", "-virtual"]] + ["70", "88", "101", "all", "sm_80", "8.6"]
    for _ in range(120):
        n = rng.randint(2, 5)
        toks = [rng.choice(pool) for _ in range(n)]
        seps = [rng.choice([";", ";", ";", ";", ";;", "; "]) for _ in range(n - 1)]
        add(toks[0] + "".join(sep + t for sep, t in zip(seps, toks[1:])))
    seen, out = set(), []
    for s in c:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "r": "\r"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def cmake_set(var, value):
    """CMake code that sets `var` to `value` byte for byte (file(READ) would drop a carriage return)."""
    if not value:
        return f'set({var} "")\n'
    return f"string(ASCII {' '.join(str(b) for b in value.encode())} {var})\n"


def arch_flags(command):
    """The architecture flags of a compile command, split at spaces only (an entry may hold a tab or CR)."""
    words = [w[1:-1] if w.startswith('"') and w.endswith('"') else w for w in re.findall(r'"[^"]*"|[^ ]+', command)]
    return [w for w in words if w.startswith(("--generate-code", "-arch", "-gencode"))]


def first_error(text):
    """CMake's first error message: its first three lines (up to its call stack), joined and escaped."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("CMake Error"):
            body = []
            for m in lines[i + 1:]:
                if m.startswith(("Call Stack", "CMake ", "-- ")) or len(body) == 3:
                    break
                if m.strip():
                    body.append(m.strip())
            return escape(" ".join(body)) or "(no message)"
    return escape(next((l.strip() for l in lines if l.strip()), "(no message)"))


class CMake:
    def __init__(self, exe, nvcc, work):
        self.exe, self.nvcc = exe, nvcc
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
        self.version = re.search(r"cmake version (\S+)", out).group(1)
        root = subprocess.run([exe, "--system-information"], capture_output=True, text=True).stdout
        m = re.search(r'CMAKE_ROOT "([^"]+)"', root)
        self.root = m.group(1)
        self.work = os.path.join(work, "cmake-" + self.version)
        os.makedirs(self.work, exist_ok=True)
        internal = os.path.join(self.root, "Modules", "Internal", "CMakeCUDAArchitecturesValidate.cmake")
        if os.path.exists(internal):
            self.check = "include(Internal/CMakeCUDAArchitecturesValidate)\ncmake_cuda_architectures_validate(CUDA)\n"
        else:
            text = open(os.path.join(self.root, "Modules", "CMakeDetermineCUDACompiler.cmake")).read().splitlines()
            start = text.index("  if(DEFINED CMAKE_CUDA_ARCHITECTURES)")
            end = text.index("  endif()", start)
            self.check = "\n".join(text[start:end + 1]) + "\n"
            assert "MATCHES" in self.check, "CMake's check of CMAKE_CUDA_ARCHITECTURES not found"

    def validate(self, i, value):
        """Stage 1: (True, '') or (False, CMake's first error line)."""
        d = os.path.join(self.work, "validate")
        os.makedirs(d, exist_ok=True)
        sf = os.path.join(d, f"{i}.cmake")
        open(sf, "w").write(cmake_set("CMAKE_CUDA_ARCHITECTURES", value) + self.check)
        p = subprocess.run([self.exe, "-P", sf], capture_output=True, text=True)
        return (True, "") if p.returncode == 0 else (False, first_error(p.stderr))

    def generate(self, values):
        """Stage 2 for {i: value}: {i: ('flags'|'none', detail) or ('error', message)}."""
        proj = os.path.join(self.work, "project")
        build = os.path.join(self.work, "build")
        os.makedirs(proj, exist_ok=True)
        open(os.path.join(proj, "k.cu"), "w").write(KERNEL)
        open(os.path.join(proj, "CMakeLists.txt"), "w").write(
            "cmake_minimum_required(VERSION 3.25)\nproject(p LANGUAGES CUDA)\ninclude(targets.cmake)\n")
        out = {}

        def run(batch):
            lines = []
            for i in batch:
                lines.append(cmake_set("v", values[i]) + f'add_library(t{i} OBJECT k.cu)\n'
                             f'set_property(TARGET t{i} PROPERTY CUDA_ARCHITECTURES "${{v}}")\n')
            open(os.path.join(proj, "targets.cmake"), "w").write("".join(lines))
            p = subprocess.run([self.exe, "-S", proj, "-B", build, "-G", "Ninja", f"-DCMAKE_CUDA_COMPILER={self.nvcc}",
                                "-DCMAKE_CUDA_ARCHITECTURES=75", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                if len(batch) == 1:
                    out[batch[0]] = ("error", first_error(p.stderr))
                    return
                run(batch[:len(batch) // 2])
                run(batch[len(batch) // 2:])
                return
            for e in json.load(open(os.path.join(build, "compile_commands.json"))):
                m = re.search(r"CMakeFiles/t(\d+)\.dir/", e["output"] if "output" in e else e["command"])
                i = int(m.group(1))
                if i not in batch:
                    continue
                flags = arch_flags(e["command"])
                out[i] = ("flags", escape(" ".join(flags))) if flags else ("none", "-")
        run(sorted(values))
        return out


def nvcc_verdict(nvcc, flags, work, n):
    d = os.path.join(work, f"nvcc-{n}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "k.cu"), "w").write(KERNEL)
    p = subprocess.run([nvcc, "-c", "k.cu", "-o", "k.o"] + unescape(flags).split(" "), cwd=d, capture_output=True, text=True)
    if p.returncode == 0:
        return "accepts"
    line = next((l for l in p.stderr.splitlines() if "fatal" in l or "error" in l), p.stderr.strip().splitlines()[0])
    return escape(re.sub(r"\s+", " ", line.strip()))


def record(cmakes, nvcc, values, jobs, work):
    """{cmake version: [(outcome, detail)] per value}, {flags: nvcc verdict}."""
    results = {}
    pool = concurrent.futures.ThreadPoolExecutor(jobs)
    for cm in cmakes:
        checked = list(pool.map(lambda iv: cm.validate(*iv), enumerate(values)))
        passed = {i: v for i, (ok, _), v in zip(range(len(values)), checked, values) if ok}
        gen = cm.generate(passed) if passed else {}
        rows = []
        for i, (ok, msg) in enumerate(checked):
            if not ok:
                rows.append(("refused", msg))
            elif gen[i][0] == "error":
                no_gpu = re.search(r"native.*no (NVIDIA )?GPU was detected", gen[i][1])
                rows.append(("devices" if no_gpu else "refused", gen[i][1]))
            else:
                rows.append(gen[i])
        results[cm.version] = rows
    flag_sets = sorted({d for rows in results.values() for o, d in rows if o == "flags"})
    verdicts = dict(zip(flag_sets, pool.map(lambda fn: nvcc_verdict(nvcc, fn[1], work, fn[0]), enumerate(flag_sets))))
    return results, verdicts


def full_configure(cm, value, work, n):
    """A whole configure with the value as CMAKE_CUDA_ARCHITECTURES: ('built', flags) or ('refused', first error)."""
    d = os.path.join(work, f"full-{cm.version}-{n}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "k.cu"), "w").write(KERNEL)
    open(os.path.join(d, "CMakeLists.txt"), "w").write(
        'cmake_minimum_required(VERSION 3.25)\nproject(p LANGUAGES NONE)\n' + cmake_set("CMAKE_CUDA_ARCHITECTURES", value) +
        'enable_language(CUDA)\nadd_library(t OBJECT k.cu)\n')
    p = subprocess.run([cm.exe, "-S", d, "-B", os.path.join(d, "b"), "-G", "Ninja", f"-DCMAKE_CUDA_COMPILER={cm.nvcc}",
                        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], capture_output=True, text=True)
    if p.returncode != 0:
        return "refused", first_error(p.stderr)
    b = subprocess.run(["ninja", "-C", os.path.join(d, "b")], capture_output=True, text=True)
    if b.returncode != 0:
        return "refused", "build: " + next((l for l in b.stdout.splitlines() if "fatal" in l), "failed")
    cmd = json.load(open(os.path.join(d, "b", "compile_commands.json")))[0]["command"]
    return "built", escape(" ".join(arch_flags(cmd)))


def default_cmakes():
    found = [shutil.which("cmake")]
    p = subprocess.run(["bash", os.path.join(HERE, "fetch-cmake.sh"), "4"], capture_output=True, text=True,
                       env=dict(os.environ, CUARCH_OFFLINE="1"))
    if p.returncode == 0 and p.stdout.strip():
        found.append(p.stdout.strip())
    else:
        print("skipped: CMake 4.x (none cached; scripts/toolkits/fetch-cmake.sh 4)", file=sys.stderr)
    return [c for c in found if c]


def read_tsv(path):
    header, rows = None, []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if header is None:
            header = cols
            continue
        rows.append(cols)
    return header, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cmake", action="append")
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "tests", "data", "cmake_architectures.tsv"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check")
    ap.add_argument("--every", type=int, default=8)
    ap.add_argument("--full", type=int, default=0)
    a = ap.parse_args()
    if a.list:
        for s in corpus():
            print(repr(s))
        return 0
    if not os.access(a.nvcc, os.X_OK):
        print(f"SKIPPED: no nvcc at {a.nvcc}")
        return 77
    if not shutil.which("ninja"):
        print("SKIPPED: no ninja")
        return 77
    nv = re.search(r"V(\d+\.\d+\.\d+)", subprocess.run([a.nvcc, "--version"], capture_output=True, text=True).stdout).group(1)
    with tempfile.TemporaryDirectory() as work:
        cmakes = [CMake(c, a.nvcc, work) for c in (a.cmake or default_cmakes())]
        if a.check:
            return check(a, cmakes, nv, work)
        values = corpus()
        results, verdicts = record(cmakes, a.nvcc, values, a.jobs, work)
    versions = [c.version for c in cmakes]
    with open(a.output, "w", encoding="utf-8", newline="\n") as f:
        f.write("# cmake_architectures.tsv - how the real CMake reads CMAKE_CUDA_ARCHITECTURES (and CUDAARCHS), and whether\n"
                f"# nvcc {nv} (the compiler it identifies) takes the flags it derives. Generated by\n"
                "# scripts/toolkits/record-cmake-architectures.py; do not edit by hand. Stages: CMake's own validation\n"
                "# (cmake -P), the flags of a generated target (compile_commands.json), nvcc -c with those flags.\n"
                "# Columns: input (\\\\ \\t \\n \\r escaped); per CMake: outcome (flags | none | devices | refused) and\n"
                "# detail (the flags, or the start of CMake's first error); nvcc: accepts, or its first error line, for the flags.\n")
        f.write("\t".join(["input"] + [x for v in versions for x in (f"cmake {v}", "detail")] + [f"nvcc {nv}"]) + "\n")
        for i, s in enumerate(values):
            cols = [escape(s)]
            flags = None
            for v in versions:
                o, d = results[v][i]
                cols += [o, d]
                if o == "flags":
                    assert flags in (None, d), f"{s!r}: the CMakes derive different flags"
                    flags = d
            cols.append(verdicts[flags] if flags else "-")
            f.write("\t".join(cols) + "\n")
    counts = {v: {} for v in versions}
    for v in versions:
        for o, _ in results[v]:
            counts[v][o] = counts[v].get(o, 0) + 1
    print(f"{len(values)} values -> {a.output}: " + "; ".join(f"CMake {v}: {counts[v]}" for v in versions))
    return 0


def check(a, cmakes, nv, work):
    header, rows = read_tsv(a.check)
    if header[-1] != f"nvcc {nv}":
        print(f"SKIPPED: the record is of {header[-1]}, this nvcc is {nv}")
        return 77
    cols = {h: k for k, h in enumerate(header)}
    present = [c for c in cmakes if f"cmake {c.version}" in cols]
    for c in cmakes:
        if c not in present:
            print(f"skipped: CMake {c.version} (not recorded in {a.check})")
    if not present:
        print("SKIPPED: none of the recorded CMake versions is at hand")
        return 77
    pick = [k for k in range(len(rows)) if k % a.every == 0]
    values = [unescape(rows[k][0]) for k in pick]
    results, verdicts = record(present, a.nvcc, values, a.jobs, work)
    bad = 0
    for n, k in enumerate(pick):
        row = rows[k]
        for c in present:
            want = (row[cols[f"cmake {c.version}"]], row[cols[f"cmake {c.version}"] + 1])
            got = results[c.version][n]
            if got != want:
                bad += 1
                print(f"DIFF  CMake {c.version} {row[0]!r}: recorded {want}, now {got}")
        # The nvcc column is of the flags every CMake that derived flags derived (the recorder checks they
        # are the same): compared where a CMake at hand derived them.
        flags = next((results[c.version][n][1] for c in present if results[c.version][n][0] == "flags"), None)
        if flags and verdicts[flags] != row[-1]:
            bad += 1
            print(f"DIFF  nvcc {row[0]!r}: recorded {row[-1]}, now {verdicts[flags] if flags else '-'}")
    # A whole configure gives the stages' verdict: built with the same flags iff CMake gave flags nvcc accepts.
    # One value of each outcome: built, refused by nvcc, no flag, refused by CMake, native.
    col = cols[f"cmake {present[0].version}"]

    def kind(r):
        return ("built" if r[-1] == "accepts" else "nvcc") if r[col] == "flags" else r[col]
    full = [k for want in ("built", "nvcc", "none", "refused", "devices")
            for k in [next((k for k in pick if kind(rows[k]) == want), None)] if k is not None][:a.full]
    for n, k in enumerate(full):
        for c in present:
            o, d = rows[k][cols[f"cmake {c.version}"]], rows[k][cols[f"cmake {c.version}"] + 1]
            want = "built" if o in ("flags", "none") and rows[k][-1] in ("accepts", "-") else "refused"
            got, detail = full_configure(c, unescape(rows[k][0]), work, n)
            same = got == want and (got == "refused" or o == "none" or detail == d)
            print(f"{'same' if same else 'DIFF'}  whole configure, CMake {c.version} {rows[k][0]!r}: {got} {detail}")
            bad += not same
    print(f"{len(pick)} of {len(rows)} rows re-asked of CMake {', '.join(c.version for c in present)} and nvcc {nv}; "
          f"{len(full)} whole configures; {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
