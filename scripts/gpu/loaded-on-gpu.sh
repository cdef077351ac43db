#!/usr/bin/env bash
# Issue 36, item 3, on a GPU machine: cuarch.inspect_loaded() in a process that imported torch (its
# CUDA libraries mapped, CUDA not yet initialised). It must list them, judge them on device 0, leave
# CUDA uninitialised (torch says so, and a forked child still runs a matmul), and take the time it
# takes on every start: timed here, 3 calls. `cuarch inspect --pid` of the same process must list the
# same files with the same verdicts.
#
#   bash scripts/gpu/loaded-on-gpu.sh [path/to/cuarch]      (else CUARCH_CLI, else build-gpu/cuarch)
# Installs the cuarch wheel from build-gpu/wheels (or CUARCH_GPU_WHEELS) into a scratch folder.
# Exit 77 ("skipped: no GPU") without NVML or torch with CUDA. Outputs in $OUT/loaded-on-gpu/ when set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${OUT:+$OUT/loaded-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
cli="${1:-${CUARCH_CLI:-$root/build-gpu/cuarch}}"
wheels="${CUARCH_GPU_WHEELS:-$root/build-gpu/wheels}"
[[ -x $cli ]] || { echo "loaded-on-gpu.sh: no cuarch at '$cli'" >&2; exit 2; }
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then echo "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "skipped: no GPU (torch with CUDA not importable)"; exit 77; }
python3 -m pip install -q --no-index --no-deps --target "$work/site" --find-links "$wheels" cuarch || exit 2

PYTHONPATH="$work/site" python3 - "$cli" "$work" <<'PY'
import json, os, subprocess, sys, time
import torch
import cuarch

cli, work = sys.argv[1:3]
failed = []
took = []
for _ in range(3):
    t = time.perf_counter()
    doc = cuarch.inspect_loaded()
    took.append(time.perf_counter() - t)
json.dump(doc, open(os.path.join(work, "inspect_loaded.json"), "w"), indent=1)
files = {os.path.basename(f["path"]): f for f in doc["files"]}
with_code = {n: f for n, f in files.items() if f["has_cuda_code"]}
print(f"inspect_loaded: {len(files)} mapped files, {len(with_code)} with CUDA code; "
      f"{', '.join(f'{s:.3f}' for s in took)} s; ok={doc['ok']}")
for n, f in sorted(with_code.items()):
    d = f["devices"][0] if f["devices"] else None
    print(f"  {d['verdict'] if d else 'not judged':14s} {n}")
for want in ("libtorch_cuda.so", "libcudart.so"):
    if not any(n.startswith(want) for n in files):
        failed.append(f"{want} not listed among the mapped files")
if not with_code:
    failed.append("no mapped file with CUDA code")
if torch.cuda.is_initialized():
    failed.append("CUDA initialised by inspect_loaded()")

# The same process through --pid, from outside.
p = subprocess.run([cli, "inspect", "--pid", str(os.getpid()), "--format", "json"], capture_output=True, text=True)
try:
    other = json.loads(p.stdout)
    theirs = {os.path.basename(f["path"]): (f["devices"][0]["verdict"] if f["devices"] else None)
              for f in other["files"] if f["has_cuda_code"]}
    ours = {n: (f["devices"][0]["verdict"] if f["devices"] else None) for n, f in with_code.items()}
    print(f"inspect --pid: exit {p.returncode}, {len(theirs)} files with CUDA code; same verdicts: {theirs == ours}")
    if theirs != ours:
        failed.append(f"--pid differs: {sorted(set(theirs.items()) ^ set(ours.items()))[:6]}")
except (ValueError, KeyError, IndexError) as e:
    failed.append(f"--pid gave no document ({e}): {p.stderr.strip()[:300]}")

# A forked child can still use CUDA: nothing above initialised it in this process.
pid = os.fork()
if pid == 0:
    try:
        a = torch.randn(256, 256, device="cuda")
        torch.cuda.synchronize()
        os._exit(0 if float((a @ a).abs().sum()) > 0 else 3)
    except BaseException as e:  # noqa: BLE001 - the child reports through its exit status
        print(f"child: {e}", file=sys.stderr)
        os._exit(4)
_, status = os.waitpid(pid, 0)
print(f"forked child's matmul: exit {os.waitstatus_to_exitcode(status)}")
if status != 0:
    failed.append("a forked child could not use CUDA")
a = torch.randn(64, 64, device="cuda")
print(f"the parent's matmul after: {float((a @ a).abs().sum()) > 0}")
print("PASS" if not failed else "FAIL: " + "; ".join(failed))
sys.exit(1 if failed else 0)
PY
