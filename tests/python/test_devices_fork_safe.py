"""cuarch.resolve("native") in a JIT library's process: the devices come from NVML, which initialises
no CUDA; where NVML cannot answer, cuInit answers and a CuarchWarning says that a process forked
afterwards cannot use CUDA; cuinit_fallback=False forbids that, and NVML's failure is the answer.
Stubs (tests/fixtures/build-stubs.sh: a libcuda with no NVML beside it), each case in a fresh
interpreter so that no stub stays loaded in the test process."""

import os

import pytest

from conftest import clean_env, run_python


@pytest.fixture(scope="session")
def stub_driver(stubs):
    return os.path.join(stubs, "lib", "libcuda.so.1")


CODE = """
import warnings, cuarch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    try:
        r = cuarch.resolve("native", toolkit="13.0", cuinit_fallback={fallback})
        print("targets", r.targets)
    except cuarch.ResolveFailure as e:
        print("failure", e.code, str(e))
for w in seen:
    print("warning", w.message)
"""


def run_native(stub_driver, fallback):
    env = clean_env(CUARCH_LIBCUDA=stub_driver, CUARCH_STUB_DEVICES="9.0", CUARCH_STUB_DRIVER_VERSION="13000")
    done = run_python(CODE.format(fallback=fallback), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cuinit_answers_where_nvml_cannot_and_says_so(stub_driver):
    out = run_native(stub_driver, True)
    assert "targets ['sm_90a']" in out
    assert "a process forked after this cannot use CUDA" in out


def test_cuinit_fallback_off_never_initialises_cuda(stub_driver):
    out = run_native(stub_driver, False)
    assert "failure no_device" in out
    assert "cuInit was not tried" in out
    assert "targets [" not in out
