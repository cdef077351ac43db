"""What the Python package costs a process: `import cuarch`, and one resolve() on the warm path.

    python benchmarks/python_calls.py [RUNS]

Every figure is beside its baseline measured in the same run (this machine is shared and noisy):
`import cuarch` against `python -c pass` and `import json` (started interleaved, RUNS each, the
median); resolve() against the parts it is made of, each timed alone in this process (the best of
RUNS batches of 200 calls): the extension's own call (`_cuarch.resolve`: the options, the C++
front door, the JSON document), the copy of the environment, the parse of the document, and the
cheapest call into the extension there is. Last, the binding's own cost: the extension's call
against the same call made in C++ alone (`_cuarch._resolve_in_cpp`), alternating.
"""

import json
import statistics
import subprocess
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 9


def started(code):
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def per_call(f, batch=200):
    f()
    best = float("inf")
    for _ in range(RUNS):
        start = time.perf_counter()
        for _ in range(batch):
            f()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def main():
    rows = {"python -c pass": "pass", "import json": "import json", "import cuarch": "import cuarch"}
    times = {name: [] for name in rows}
    for _ in range(RUNS):
        for name, code in rows.items():
            times[name].append(started(code))
    base = statistics.median(times["python -c pass"])
    print(f"process start and import, median of {RUNS} (interleaved)")
    for name in rows:
        m = statistics.median(times[name])
        print(f"  {name:16} {m * 1e3:7.1f} ms   +{(m - base) * 1e3:5.1f} ms over python -c pass")
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, cuarch; print(sorted(m for m in sys.modules if m in ('json', 'typing', 'cuarch.documents', 're')))"],
        capture_output=True, text=True, check=True).stdout.strip()
    print(f"  modules `import cuarch` loaded, of json, re, typing, cuarch.documents: {loaded}")

    import cuarch
    from cuarch import _cuarch

    options = cuarch._options(archs="9.0a;12.0", toolkit="13.0")
    env = cuarch._environment()
    document = _cuarch.resolve(options=options, env=env).json
    parts = {
        "cuarch.resolve(), the API": lambda: cuarch.resolve("9.0a;12.0", toolkit="13.0"),
        "_cuarch.resolve(), the extension's call": lambda: _cuarch.resolve(options=options, env=env),
        "_environment(), the variables copied": cuarch._environment,
        "json.loads(document)": lambda: json.loads(document),
        "_cuarch.cache_digest('x'), the cheapest call": lambda: _cuarch.cache_digest("x"),
    }
    print(f"per call, best of {RUNS} batches of 200")
    whole = None
    for name, f in parts.items():
        t = per_call(f)
        whole = whole or t
        print(f"  {name:45} {t * 1e6:8.1f} us   {t / whole:5.2f} of the API call")

    # The binding's own cost: the extension's call against the same call made in C++ alone
    # (_resolve_in_cpp: the options and environment as the binding passes them, the front door and
    # the JSON document), alternating, the best of each.
    ext, cpp = float("inf"), float("inf")
    for _ in range(RUNS):
        ext = min(ext, per_call(lambda: _cuarch.resolve(options=options, env=env)))
        cpp = min(cpp, _cuarch._resolve_in_cpp(options, env, 200))
    print(f"the binding's cost per call, best of {RUNS} alternating rounds (target <= 10 us)")
    print(f"  _cuarch.resolve() {ext * 1e6:.1f} us - the C++ call {cpp * 1e6:.1f} us = {(ext - cpp) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
