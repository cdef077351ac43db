"""Threads resolving while another rewrites os.environ (issue 33 item 2): every `nvcc --version`
probe must run in the environment the call copied under the GIL. Not a pytest module: run by
test_process_whole.py for 2 s with 8 threads, and on a machine with many cores for the issue's long
run, e.g. 600 s with 16 threads:

  python3 environ_stress.py SECONDS THREADS DIR    (DIR: where the fake nvcc is written)

Prints "bad <failures> of <calls> probes in <seconds> s with <threads> threads; <rewrites> rewrites"
and the first two failures; exit 0 only when nothing failed."""

import os
import sys
import threading
import time

import cuarch

seconds, threads, where = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nvcc = os.path.join(where, "nvcc")
with open(nvcc, "w") as f:  # fails unless it sees the variable the call's environment holds
    f.write('#!/bin/sh\n[ "$CUARCH_TEST_PROBE_MARK" = call ] || { echo "mark: $CUARCH_TEST_PROBE_MARK" >&2; exit 3; }\n'
            'echo "Cuda compilation tools, release 12.8, V12.8.93"\n')
os.chmod(nvcc, 0o755)
os.environ["CUARCH_TEST_PROBE_MARK"] = "call"
stop = threading.Event()
rewrites = [0]


def rewrite():
    while not stop.is_set():
        for k in range(32):
            os.environ["CUARCH_TEST_FILLER_%d" % k] = "x" * 200
        for k in range(32):
            del os.environ["CUARCH_TEST_FILLER_%d" % k]
        rewrites[0] += 1


bad, calls = [], []


def work():
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            cuarch.resolve("9.0", nvcc=nvcc)
        except Exception as e:  # any failure is the finding
            bad.append(repr(e)[:300])
        calls.append(1)


writer = threading.Thread(target=rewrite)
writer.start()
workers = [threading.Thread(target=work) for _ in range(threads)]
for t in workers:
    t.start()
for t in workers:
    t.join()
stop.set()
writer.join()
print(f"bad {len(bad)} of {len(calls)} probes in {seconds:g} s with {threads} threads; {rewrites[0]} rewrites", bad[:2])
sys.exit(1 if bad or not calls else 0)
