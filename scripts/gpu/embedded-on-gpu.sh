#!/usr/bin/env bash
# Issue 36, item 5, on a GPU machine: does `cuarch inspect` tell the truth about the NVIDIA libraries
# the installed torch loads? For every shared library under site-packages' nvidia/*/lib and torch/lib,
# cuarch's verdict for device 0 (devices through NVML, the driver detected), with its code objects
# (registered and embedded in data sections); then a call into each library torch can reach (cuFFT
# through torch.fft, cuBLAS and cuBLASLt through matmuls, cuSPARSE through a sparse product, cuSOLVER
# through a factorisation, cuDNN through a convolution), each in its own child, and whether it ran.
# A library cuarch calls "cannot_load" or "no_code_found" that runs is a false alarm: exit 1.
#
#   bash scripts/gpu/embedded-on-gpu.sh [path/to/cuarch]      (else CUARCH_CLI, else build/cuarch)
# Exit 77 ("skipped: no GPU") without NVML or torch with CUDA. Outputs in $OUT/embedded-on-gpu/ when set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${OUT:+$OUT/embedded-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
cli="${1:-${CUARCH_CLI:-$root/build/cuarch}}"
[[ -x $cli ]] || { echo "embedded-on-gpu.sh: no cuarch at '$cli'" >&2; exit 2; }
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then echo "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi
site=$(python3 -c 'import os, torch; assert torch.cuda.is_available(); print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null) ||
  { echo "skipped: no GPU (torch with CUDA not importable)"; exit 77; }

python3 - "$cli" "$site" "$work" <<'PY'
import glob, json, os, subprocess, sys, time
cli, site, work = sys.argv[1:4]
files = sorted({os.path.realpath(p) for p in glob.glob(f"{site}/nvidia/*/lib/*.so*") + glob.glob(f"{site}/torch/lib/*.so*")})
verdicts = {}
for path in files:
    t = time.perf_counter()
    p = subprocess.run([cli, "inspect", "--format", "json", path], capture_output=True, text=True)
    took = time.perf_counter() - t
    try:
        f = json.loads(p.stdout)["files"][0]
    except (ValueError, KeyError, IndexError):
        print(f"ERROR  {os.path.basename(path)}: no document: {p.stderr.strip()[:200]}"); continue
    if f["error"]:
        print(f"ERROR  {os.path.basename(path)}: {f['error']['message'][:200]}"); continue
    if not f["has_cuda_code"]:
        continue
    objs = f["code_objects"]
    emb = sum(1 for o in objs if o["embedded"])
    d = f["devices"][0] if f["devices"] else None
    v = d["verdict"] if d else "not judged"
    verdicts[os.path.basename(path)] = v
    here = f"{d['by_sass'] + d['by_ptx_jit']}/{d['code_objects']} registered, {d['embedded_here']}/{d['embedded_code_objects']} embedded load on cc {d['cc']}" if d else ""
    print(f"{v:14s} {os.path.basename(path)}: {len(objs) - emb} registered + {emb} embedded in {f['embedded_in'] or '-'}; {here}; {took:.2f} s")
json.dump(verdicts, open(os.path.join(work, "verdicts.json"), "w"), indent=1)
PY

# Each library through torch, one child each: a crash or a "no kernel image" in one says only that.
calls=(
  "cufft|x = torch.randn(1 << 16, device='cuda'); y = torch.fft.fft(x); torch.cuda.synchronize(); assert torch.allclose(torch.fft.ifft(y).real, x, atol=1e-3)"
  "cublas|a = torch.randn(512, 512, device='cuda'); b = a @ a; torch.cuda.synchronize(); assert torch.allclose(b.cpu(), a.cpu() @ a.cpu(), atol=1e-2)"
  "cublasLt|a = torch.randn(256, 512, device='cuda', dtype=torch.bfloat16); w = torch.randn(1024, 512, device='cuda', dtype=torch.bfloat16); bias = torch.randn(1024, device='cuda', dtype=torch.bfloat16); y = torch.nn.functional.linear(a, w, bias); torch.cuda.synchronize(); assert y.shape == (256, 1024)"
  "cusparse|i = torch.tensor([[0, 1, 2], [2, 0, 1]]); s = torch.sparse_coo_tensor(i, torch.ones(3), (3, 3)).cuda(); y = torch.sparse.mm(s, torch.ones(3, 4, device='cuda')); torch.cuda.synchronize(); assert y.sum().item() == 12"
  "cusolver|a = torch.randn(64, 64, device='cuda', dtype=torch.float64); s = a @ a.T + 64 * torch.eye(64, device='cuda', dtype=torch.float64); l = torch.linalg.cholesky(s); torch.cuda.synchronize(); assert torch.allclose(l @ l.T, s)"
  "cudnn|x = torch.randn(8, 3, 32, 32, device='cuda'); c = torch.nn.Conv2d(3, 16, 3).cuda(); y = c(x); torch.cuda.synchronize(); assert torch.backends.cudnn.is_available() and y.shape == (8, 16, 30, 30)"
)
ran=0 failed=0
for c in "${calls[@]}"; do
  name=${c%%|*} code=${c#*|}
  if out=$(python3 -c "import torch; $code; print(torch.cuda.get_device_name(0))" 2>&1); then
    echo "ran    $name (${out##*$'\n'})"; ran=$((ran + 1))
  else
    echo "FAILED $name: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ' | cut -c1-300)"; failed=$((failed + 1))
  fi
done
echo "$ran of ${#calls[@]} library calls ran"
# A false alarm: a library torch ran that cuarch said cannot load, or holds no code for this device.
alarms=$(python3 - "$work/verdicts.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
names = {"cufft": "libcufft", "cublas": "libcublas.", "cublasLt": "libcublasLt", "cusparse": "libcusparse.",
         "cusolver": "libcusolver.", "cudnn": "libcudnn"}
bad = [f for f, verdict in v.items() if verdict in ("cannot_load", "no_code_found")
       and any(f.startswith(p) for p in names.values())]
print(" ".join(bad))
PY
)
if [[ -n $alarms && $failed -eq 0 ]]; then echo "FALSE ALARMS (these ran through torch): $alarms"; exit 1; fi
[[ $failed -eq 0 ]] || exit 1
echo "no false alarm among the libraries torch called"
