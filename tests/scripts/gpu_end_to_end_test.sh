#!/usr/bin/env bash
# The real path on a real GPU, as one ctest test: detect -> resolve `native` -> NVRTC compile -> load ->
# launch -> check (examples/jit_kernel), and `cuarch doctor` finding the driver and every device.
# Without a GPU it reports "skipped: no GPU" (exit 77, ctest shows it as skipped) - never a silent pass.
set -u
bin="${CUARCH_BINARY_DIR:?}"
jit="$bin/examples/jit_kernel"
cli="${CUARCH_CLI:-$bin/cuarch}"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [[ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]]; then
  echo "skipped: no GPU (no libcuda.so.1 on this machine)"
  exit 77
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU (nvidia-smi lists none)"
  exit 77
fi
[[ -x "$jit" ]] || { echo "FAIL: $jit was not built (CUDA toolkit missing at configure time?)"; exit 1; }
fail=0
timeout 120 "$jit" || { echo "FAIL: jit_kernel native"; fail=1; }
timeout 120 "$jit" --archs compute_90 || { echo "FAIL: jit_kernel --archs compute_90 (driver JIT of PTX)"; fail=1; }
doctor=$(timeout 120 "$cli" doctor --json) || { echo "FAIL: cuarch doctor --json"; fail=1; }
python3 - "$doctor" <<'PY' || fail=1
import json, subprocess, sys
report = json.loads(sys.argv[1])
text = json.dumps(report)
ccs = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True).stdout.split()
missing = [cc for cc in ccs if f'"{cc}"' not in text]
if missing:
    print("FAIL: doctor --json lacks the compute capabilities", missing); sys.exit(1)
print("doctor reports every device nvidia-smi lists:", ccs)
PY
exit $fail
