#!/usr/bin/env bash
# `cuarch inspect` on a real GPU machine (written for an H200: cc 9.0, driver 580 / CUDA 13.0), with
# binaries built elsewhere and carried in the working tree (no nvcc, no network there):
#   tests/data/inspect/            nvcc 13.0: objects of every form, compressed and not, -rdc, -dlto,
#                                  executables (PTX-only ones too), shared libraries, archives, cubins, PTX;
#   tests/data/inspect/nvcc-12.4/  nvcc 12.4: the same kinds (compressed with flag 0x2000);
#   tests/data/inspect/ptxas-12.8/ cubins by ptxas 12.8;
#   tests/data/inspect-gpu/        fatbins for single targets and mixes, cubins, PTX (one of ISA 9.9)
#   (scripts/toolkits/record-inspect-corpus.sh and build-inspect-gpu-binaries.sh built them). Checks:
#  (a) for every binary, cuarch's verdict for device 0 (devices through NVML, the driver detected:
#      `verdict` where the JSON has it, else `loads`) equals what the driver does: can kernel k run?
#      scripts/gpu/inspect-launch.py finds the CUDA code itself (ELF sections, fatbins, ar members) and
#      hands it to libcuda as the runtime does: cuModuleLoadData of each fatbin/cubin/PTX (a device link
#      first for -rdc objects), cuModuleGetFunction k, a launch and a synchronise; one child per binary.
#      One line per binary, then a count. A verdict of "unknown" fails too: it is not evidence.
#  (d) the same verdicts through `--inventory`: this machine described as a fleet would describe it
#      (`nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv`, written here);
#  (b) the installed torch's libtorch_cuda.so: cuarch reads it (time, code objects, images), says it
#      loads on this GPU, and the targets most code objects hold (every one: printed) equal
#      torch.cuda.get_arch_list();
#  (c) with CUOBJDUMP set (e.g. a copy of ~/.cache/cuarch/cuobjdump/13.2.51/nvidia/cu13/bin/cuobjdump
#      carried in the tree), the images equal cuobjdump's and the time ratio (issue 19 item 6).
# Exit 1 if any check failed, 77 ("skipped: no GPU") without NVML. Needs python3 (torch for (b)).
#
#   bash scripts/gpu/inspect-on-gpu.sh [path/to/cuarch]      (else CUARCH_CLI, else build/cuarch)
# Outputs go to $OUT/inspect-on-gpu/ when OUT is set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${OUT:+$OUT/inspect-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
cli="${1:-${CUARCH_CLI:-$root/build/cuarch}}"
[[ -x $cli ]] || { echo "inspect-on-gpu.sh: no cuarch at '$cli' (pass its path, or set CUARCH_CLI)" >&2; exit 2; }
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
say() { printf '%s\n' "$*" | tee -a "$work/summary.txt"; }
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then say "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi

cat >"$work/compare.py" <<'PY'
import json, subprocess, sys, os
cli, launch, root, work = sys.argv[1:5]
files = sys.argv[5:]
inventory = os.path.join(work, "inventory.csv")
def verdict(dev):
    """loads | cannot | unknown: the JSON's `verdict` where it has one, else `loads`."""
    if dev is None:
        return "none"
    v = str(dev.get("verdict", "loads" if dev.get("loads") else "cannot load"))
    return "unknown" if v.startswith("unknown") else "loads" if v == "loads" else "cannot"
def predicted(args, path):
    p = subprocess.run([cli, "inspect", "--format", "json"] + args + [path], capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
        f = doc["files"][0]
    except (ValueError, KeyError, IndexError):
        return None, None, None, "cuarch gave no document: " + p.stderr.strip()[:200]
    if f.get("error"):
        return None, None, None, "cuarch: " + f["error"].get("message", "")
    if not f.get("has_cuda_code"):
        return "none", f, doc, ""
    return verdict((f.get("devices") or [None])[0]), f, doc, ""
counts = {"agree": 0, "disagree": 0, "unknown": 0}
for path in files:
    name = os.path.relpath(path, root)
    ours, f, doc, why = predicted([], path)
    try:
        r = subprocess.run([sys.executable, launch, path], capture_output=True, text=True, timeout=120)
        actual = r.stdout.strip() or "no answer: " + r.stderr.strip()[-200:]
    except subprocess.TimeoutExpired:
        actual = "no answer in 120 s"
    driver = "none" if actual == "none" else "loads" if actual.startswith("runs") else "cannot"
    if ours == "unknown":
        status = "UNKNOWN"
    elif ours == driver:
        status = "PASS"
    else:
        status = "FAIL"
    extra = ""
    if os.path.exists(inventory) and status == "PASS" and ours != "none":  # (d): the node's verdict, from the fleet's own description
        node, _, _, w = predicted(["--inventory", inventory], path)
        if node != ours:
            status, extra = "FAIL", f"; --inventory says {node} {w}"
    counts["unknown" if status == "UNKNOWN" else "agree" if status == "PASS" else "disagree"] += 1
    images = " ".join(i["target"] + ("(z)" if i["compressed"] else "") for o in (f or {}).get("code_objects", []) for i in o["images"])
    dev = ((f or {}).get("devices") or [{}])[0]
    drv = str(((doc or {}).get("driver") or {}).get("version"))
    print(f"{status}: {name} [{images}] cc {dev.get('cc', '?')} driver {drv}: cuarch {ours}{(' (' + why + ')') if why else ''}, "
          f"driver: {actual}{extra}", flush=True)
print(f"{len(files)} binaries: {counts['agree']} agree, {counts['disagree']} disagree, {counts['unknown']} judged unknown")
sys.exit(0 if counts["disagree"] == 0 and counts["unknown"] == 0 else 1)
PY
smi_rc=0
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv >"$work/inventory.csv" ||
  { say "FAIL: nvidia-smi --query-gpu"; rm -f "$work/inventory.csv"; smi_rc=1; }
binaries=()
for f in "$root"/tests/data/inspect/* "$root"/tests/data/inspect/*/* "$root"/tests/data/inspect-gpu/*; do
  [[ -f $f && $f != */corpus.tsv ]] && binaries+=("$f")
done
python3 "$work/compare.py" "$cli" "$root/scripts/gpu/inspect-launch.py" "$root" "$work" "${binaries[@]}" | tee -a "$work/summary.txt"
binaries_rc=${PIPESTATUS[0]}
failures=$((binaries_rc != 0 || smi_rc != 0))

# (b) and (c): the installed torch.
torch_dir=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null)
lib="$torch_dir/lib/libtorch_cuda.so"
if [[ -z $torch_dir || ! -f $lib ]]; then
  say "SKIP: no torch with lib/libtorch_cuda.so"
else
  python3 - "$cli" "$lib" "${CUOBJDUMP:-}" "$work" <<'PY' | tee -a "$work/summary.txt"
import json, subprocess, sys, time, os
cli, lib, cuobjdump, work = sys.argv[1:5]
import torch
arch_list = torch.cuda.get_arch_list()
t0 = time.perf_counter()
p = subprocess.run([cli, "inspect", "--format", "json", lib], capture_output=True, text=True)
t_cuarch = time.perf_counter() - t0
open(os.path.join(work, "libtorch_cuda.json"), "w").write(p.stdout)
doc = json.loads(p.stdout)
f = doc["files"][0]
objs = [o for o in f["code_objects"] if o["judged"]]
n_img = sum(len(o["images"]) for o in f["code_objects"])
# The issue's libtorch_cuda.so (2.11) has 444 code objects with sm_75/80/86/90/100/120 and a few
# arch-specific ones (59 sm_100a only, ...): the targets every code object holds are then none, so the
# comparison is with the targets most code objects hold (> half), and both are printed.
count = {}
for o in objs:
    for t in {i["target"] for i in o["images"]}:
        count[t] = count.get(t, 0) + 1
every = sorted(t for t, n in count.items() if n == len(objs))
common = sorted(t for t, n in count.items() if 2 * n > len(objs))
print(f"info: {lib}: {os.path.getsize(lib)/1e6:.0f} MB, {len(objs)} code objects, {n_img} images, cuarch {t_cuarch:.2f} s, exit {p.returncode}")
print(f"info: targets in every code object: {every}; in most: {common}; torch.cuda.get_arch_list(): {arch_list}")
print("info: code objects per target: " + ", ".join(f"{t} {n}" for t, n in sorted(count.items(), key=lambda x: -x[1])))
dev = f["devices"][0]
# Code objects that fail here must be torch's per-architecture ones (sm_100a only, ...), never one
# that holds the targets of get_arch_list(): those are what torch launches on any GPU it supports.
for g in dev["failing"]:
    print(f"info: {g['count']} code objects hold only {g['targets']}: none loads on cc {dev['cc']}")
general_ok = all(not set(common) <= set(g["targets"]) for g in dev["failing"])
print(("PASS" if general_ok else "FAIL") + f": libtorch_cuda.so on cc {dev['cc']}: every code object with the common targets loads "
      f"(by SASS {dev['by_sass']}, by PTX JIT {dev['by_ptx_jit']}; failing {sum(g['count'] for g in dev['failing'])}, all per-architecture)")
print(("PASS" if set(common) == set(arch_list) else "FAIL") + ": the targets most code objects hold equal torch.cuda.get_arch_list()")
ok = general_ok and set(common) == set(arch_list)
if cuobjdump:
    t0 = time.perf_counter()
    out = subprocess.run([cuobjdump, "-all", lib], capture_output=True, text=True, errors="replace").stdout
    t_theirs = time.perf_counter() - t0
    words, w = [], None
    for line in out.splitlines():
        if line.startswith("Fatbin ") and line.endswith(" code:"):
            if w: words.append(w)
            w = line.split()[1]
        elif w and line.startswith("arch = "): w += ":" + line.split()[2]
        elif w and line.startswith("code version = "): w += ":" + line.split("[")[1].rstrip("]").replace(",", ".")
        elif w and line == "compressed": w += ":z"
    if w: words.append(w)
    ours = []
    for o in f["code_objects"]:
        for i in o["images"]:
            ours.append({"sass": "elf", "ptx": "ptx", "lto": "nvvm"}[i["kind"]] + ":sm_" + i["target"].split("_", 1)[1] + ":" + i["code_version"] + (":z" if i["compressed"] else ""))
    same = ours == words
    ok = ok and same
    print(("PASS" if same else "FAIL") + f": images equal cuobjdump's ({len(ours)} vs {len(words)}); cuobjdump -all {t_theirs:.2f} s, cuarch {t_cuarch:.2f} s, ratio {t_cuarch / t_theirs:.3f}")
else:
    print("info: CUOBJDUMP not set: images not compared with cuobjdump")
sys.exit(0 if ok else 1)
PY
  [[ ${PIPESTATUS[0]} == 0 ]] || failures=$((failures + 1))
fi
say "outputs in $work"
exit $((failures > 0))
