#!/usr/bin/env bash
# Fork at any moment, in Python, with the real NVRTC and a real GPU (issue 18): one thread resolves in a
# loop through the NVRTC the machine has (cold first load included), while the main thread forks N
# times at spread-out moments; each child resolves at once, then initialises CUDA (cuInit through
# libcuda) — it must neither hang nor fail. A child still running after 30 s counts as a hang and is
# killed. Needs the cuarch package importable by python3 (pip install the wheel).
#   bash scripts/gpu/fork-python-on-gpu.sh [N]      (default 60 forks; outputs in $OUT/fork-python-on-gpu/)
# Prints one PASS/FAIL line; exit 1 on a hang or a failed child, 77 ("skipped: no GPU") without NVML.
set -uo pipefail
work="${OUT:+$OUT/fork-python-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then echo "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi
python3 - "${1:-60}" <<'PY' 2>&1 | tee "$work/summary.txt"
import ctypes, os, signal, sys, threading, time, warnings
import cuarch

warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12's multi-threaded fork warning: the point here
forks = int(sys.argv[1])
stop = False
calls = 0

def loop():
    global calls
    while not stop:
        cuarch.resolve("9.0", compiler="nvrtc")
        calls += 1

def child():
    signal.alarm(25)
    r = cuarch.resolve("9.0", compiler="nvrtc")
    ok = r.compiler.kind.lower() == "nvrtc"
    cuda = ctypes.CDLL("libcuda.so.1")
    if cuda.cuInit(0) != 0:
        os._exit(3)
    n = ctypes.c_int()
    if cuda.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value < 1:
        os._exit(4)
    os._exit(0 if ok else 2)

t = threading.Thread(target=loop, daemon=True)
t.start()
hangs = failures = 0
codes = {}
start = time.monotonic()
for i in range(forks):
    time.sleep((i % 10) * 0.0007)  # spread the moments: the first load, warm loops
    pid = os.fork()
    if pid == 0:
        child()
    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            codes[code] = codes.get(code, 0) + 1
            failures += code != 0
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            hangs += 1
            break
        time.sleep(0.005)
stop = True
t.join(10)
print(f"{forks} forks in {time.monotonic() - start:.1f} s while another thread made {calls} resolves; "
      f"child exit codes {codes}; hangs {hangs}")
print(("PASS" if hangs == 0 and failures == 0 else "FAIL") + ": fork at any moment with the real NVRTC: every child resolved and ran cuInit")
sys.exit(0 if hangs == 0 and failures == 0 else 1)
PY
exit "${PIPESTATUS[0]}"
