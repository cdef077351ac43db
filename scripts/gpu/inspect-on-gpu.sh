#!/usr/bin/env bash
# `cuarch inspect` on a real GPU machine (written for an H200: cc 9.0, driver 580 / CUDA 13.0), with
# binaries built elsewhere (tests/data/inspect-gpu/, by scripts/toolkits/build-inspect-gpu-binaries.sh:
# fatbins for sm_80, sm_86, sm_89+sm_120, sm_90, sm_90a, compute_75/90/90a/100/100f/120, sm_100a,
# sm_100f, sm_120 and mixes; cubins; PTX text, one of PTX ISA 9.9). Checks:
#  (a) for every binary, cuarch's verdict for device 0 (devices through NVML, the driver detected)
#      equals what cuModuleLoadData does with it (a ctypes loader calling libcuda in a child process);
#  (b) the installed torch's libtorch_cuda.so: cuarch reads it (time, code objects, images), says it
#      loads on this GPU, and the targets most code objects hold (every one: printed) equal
#      torch.cuda.get_arch_list();
#  (d) the same verdicts through `--inventory`: this machine described as a fleet would describe it
#      (`nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv`, written here) must give
#      every binary the verdict cuModuleLoadData gave;
#  (c) with CUOBJDUMP set (e.g. a copy of ~/.cache/cuarch/cuobjdump/13.2.51/nvidia/cu13/bin/cuobjdump
#      carried in the tree), the images equal cuobjdump's and the time ratio (issue 19 item 6).
# Prints one PASS/FAIL line per check; exit 1 if any failed, 77 ("skipped: no GPU") without NVML.
#
#   CUARCH_CLI=build/cuarch [CUOBJDUMP=path/to/cuobjdump] bash scripts/gpu/inspect-on-gpu.sh
# Outputs go to $OUT/inspect-on-gpu/ when OUT is set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${OUT:+$OUT/inspect-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
cli="${CUARCH_CLI:?CUARCH_CLI: a built cuarch}"
say() { printf '%s\n' "$*" | tee -a "$work/summary.txt"; }
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then say "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi

# The actual load: one child per binary, so a failed load cannot affect the next.
cat >"$work/load.py" <<'PY'
import ctypes, sys
cuda = ctypes.CDLL("libcuda.so.1")
def name(rc):
    s = ctypes.c_char_p()
    cuda.cuGetErrorName(rc, ctypes.byref(s))
    return (s.value or b"?").decode()
def check(rc, what):
    if rc != 0:
        print(f"setup {what} failed: {name(rc)}"); sys.exit(3)
check(cuda.cuInit(0), "cuInit")
dev = ctypes.c_int(); check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p(); check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
data = open(sys.argv[1], "rb").read()
if sys.argv[1].endswith(".ptx"): data += b"\0"
buf = ctypes.create_string_buffer(data, len(data))
mod = ctypes.c_void_p()
rc = cuda.cuModuleLoadData(ctypes.byref(mod), buf)
if rc == 0:
    fn = ctypes.c_void_p()
    rc2 = cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"k")
    cuda.cuModuleUnload(mod)
    print("loaded" if rc2 == 0 else f"loaded-no-kernel:{name(rc2)}")
else:
    print(f"refused:{name(rc)}")
PY

cat >"$work/compare.py" <<'PY'
import json, subprocess, sys, os
cli, load, files, work = sys.argv[1], sys.argv[2], sys.argv[3:-1], sys.argv[-1]
fails = 0
for path in files:
    p = subprocess.run([cli, "inspect", "--format", "json", path], capture_output=True, text=True)
    doc = json.loads(p.stdout) if p.stdout.strip() else {}
    if not doc.get("files"):
        print("FAIL: " + os.path.basename(path) + ": cuarch gave no verdict: " + p.stderr.strip()); fails += 1; continue
    f = doc["files"][0]
    dev = f["devices"][0]
    predicted = dev["loads"]
    via = ",".join(c["target"] for c in dev["chosen"]) or "-"
    actual = subprocess.run([sys.executable, load, path], capture_output=True, text=True).stdout.strip()
    ok = predicted == (actual == "loaded")
    inventory = os.path.join(work, "inventory.csv")
    if os.path.exists(inventory):  # (d): the node's verdict from the fleet's own description of it
        q = subprocess.run([cli, "inspect", "--format", "json", "--inventory", inventory, path], capture_output=True, text=True)
        node = (json.loads(q.stdout).get("files") or [{}])[0].get("devices", [{}])[0] if q.stdout.strip() else {}
        if node.get("loads") != (actual == "loaded"):
            print("FAIL: " + os.path.basename(path) + ": --inventory says loads=" + str(node.get("loads")) + ": " + q.stderr.strip())
            ok = False
    fails += 0 if ok else 1
    images = " ".join(i["target"] for o in f["code_objects"] for i in o["images"])
    print(("PASS" if ok else "FAIL") + ": " + os.path.basename(path) + " [" + images + "] on cc " + dev["cc"] + " driver " +
          str((doc.get("driver") or {}).get("version")) + ": cuarch " + ("loads via " + via if predicted else "cannot load") +
          ", cuModuleLoadData " + actual)
sys.exit(1 if fails else 0)
PY
smi_rc=0
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv >"$work/inventory.csv" ||
  { say "FAIL: nvidia-smi --query-gpu"; rm -f "$work/inventory.csv"; smi_rc=1; }
python3 "$work/compare.py" "$cli" "$work/load.py" "$root"/tests/data/inspect-gpu/* "$work" | tee -a "$work/summary.txt"
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
