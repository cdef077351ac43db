"""What an idle cuarch adds to a host's fork() (issue 33 item 3; docs/performance.md).

cuarch installs its fork handlers (pthread_atfork, sources/posix/process_lock.hpp) at its first
detection, not at import. Two kinds of fresh interpreter, run alternately in one run on this machine:
  absent: `import cuarch`, the same NVRTC mapped by ctypes and a resolve that detects nothing
          (toolkit="13.0"): the same modules and libraries mapped, no handler;
  idle:   `import cuarch` and one resolve that loads an NVRTC (the stub of tests/fixtures), so the
          handler is installed, then nothing under way.
Each times `os.fork()` in the parent (the child leaves with os._exit at once) FORKS times; a round's
figure is its median. The result is, per kind, the median and the fastest of its rounds, and the
ratios of each (the fastest is the least disturbed by other work on a shared machine).

  python3 benchmarks/fork_cost.py [--rounds 15] [--forks 300] [--nvrtc PATH]
(the package importable by this python3; without --nvrtc the stubs are built with
tests/fixtures/build-stubs.sh, which needs a C compiler). Exit 1 when both ratios are over --limit
(default 1.05).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, os, sys, time
import cuarch
kind, forks, nvrtc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == "idle":
    cuarch.resolve("9.0", compiler="nvrtc", nvrtc=nvrtc, timeout=10)
else:  # the same library mapped and a call made on the same kind of worker thread, but no detection
    import ctypes
    ctypes.CDLL(nvrtc)
    cuarch.resolve("9.0", toolkit="13.0")
times = []
for _ in range(forks):
    start = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    times.append(time.perf_counter_ns() - start)
    os.waitpid(pid, 0)
times.sort()
print(json.dumps({"median_ns": times[len(times) // 2]}))
"""


def one_round(kind, forks, nvrtc):
    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(forks), nvrtc], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"fork_cost: the {kind} interpreter failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)["median_ns"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--forks", type=int, default=300)
    p.add_argument("--nvrtc", default="")
    p.add_argument("--limit", type=float, default=1.05)
    a = p.parse_args()
    nvrtc = a.nvrtc
    if not nvrtc:
        stubs = tempfile.mkdtemp(prefix="cuarch-fork-cost-")
        subprocess.run(["bash", os.path.join(ROOT, "tests", "fixtures", "build-stubs.sh"), stubs], check=True, capture_output=True)
        nvrtc = os.path.join(stubs, "nvrtc", "libnvrtc.so.12")
    rounds = {"absent": [], "idle": []}
    for _ in range(a.rounds):
        for kind in rounds:  # alternately: the machine's load falls on both alike
            rounds[kind].append(one_round(kind, a.forks, nvrtc))
    print(f"fork() in a Python process, {a.rounds} rounds x {a.forks} forks (each round: its median):")
    for kind, words in (("absent", "cuarch imported, no handler"), ("idle", "handler installed, idle")):
        r = rounds[kind]
        print(f"  {kind:6} ({words:27}): median {statistics.median(r) / 1000:.1f} us, fastest {min(r) / 1000:.1f} us")
    by_median = statistics.median(rounds["idle"]) / statistics.median(rounds["absent"])
    by_fastest = min(rounds["idle"]) / min(rounds["absent"])
    print(f"  idle/absent: {by_median:.3f} by the median, {by_fastest:.3f} by the fastest round (limit {a.limit})")
    return 0 if min(by_median, by_fastest) <= a.limit else 1

if __name__ == "__main__":
    sys.exit(main())
