"""Many threads resolving at once get the same answers as one thread (the GIL is released)."""

import concurrent.futures
import threading

import cuarch

REQUESTS = [
    dict(archs="9.0a;12.0", toolkit="12.8"),
    dict(archs="native", toolkit="13.0", devices="8.6,12.0"),
    dict(archs="9.0a;12.0a", toolkit="12.4", policy="best-effort"),
    dict(archs="all", toolkit="12.4"),
    dict(archs="12.0a", toolkit="12.4"),  # fails
]


def answer(req):
    try:
        return cuarch.resolve(**req).to_json()
    except cuarch.ResolveError as e:
        return ("error", e.code, e.to_json())


def test_many_threads_identical_results():
    expected = [answer(r) for r in REQUESTS]
    start = threading.Barrier(16)

    def work(i):
        start.wait()
        return [answer(REQUESTS[(i + k) % len(REQUESTS)]) for k in range(40)]

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(work, range(16)))
    for i, got in enumerate(results):
        for k, value in enumerate(got):
            assert value == expected[(i + k) % len(REQUESTS)]


def test_detection_in_threads_agrees(local_cuda):
    req = dict(archs="9.0", compiler="nvrtc", cuda_home=local_cuda)
    first = cuarch.resolve(**req)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: cuarch.resolve(**req), range(16)))
    assert all(r.to_json() == first.to_json() and r.compiler == first.compiler for r in got)
