"""The caller's process stays whole (issue 18): Ctrl-C stops a probe at once and kills it, no probe
outlives the interpreter (exit, SIGTERM, SIGKILL), daemon threads inside resolve() at exit, a module
imported twice, os.environ rewritten during calls, no thread left behind. Each scenario runs in a
fresh interpreter (conftest.run_python / subprocess), so a crash is a failure here, not of pytest."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import cuarch
from conftest import clean_env, prompt_bound, run_python


def sleeping_nvcc(tmp_path, seconds=30):
    """A fake nvcc that writes its pid to $CUARCH_TEST_PIDFILE and sleeps (exec: the same pid)."""
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(
        '#!/bin/sh\necho $$ > "$CUARCH_TEST_PIDFILE.tmp" && mv "$CUARCH_TEST_PIDFILE.tmp" "$CUARCH_TEST_PIDFILE"\n'
        f"exec sleep {seconds}\n"
    )
    nvcc.chmod(0o755)
    return str(nvcc)


def wait_for_pid(pidfile, bound=10.0):
    until = time.monotonic() + bound
    while time.monotonic() < until:
        try:
            text = open(pidfile).read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"the fake nvcc never wrote {pidfile}")


def gone(pid, bound=0.0):
    """Whether `pid` is gone (or a zombie) within `bound` seconds."""
    until = time.monotonic() + bound
    while True:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > until:
            return False
        time.sleep(0.01)


def kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, TypeError):
        pass


def start_python(code, pidfile, **popen):
    env = clean_env(CUARCH_TEST_PIDFILE=str(pidfile))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, text=True, **popen)


@pytest.mark.parametrize("call", ["resolve", "env"])
def test_ctrl_c_interrupts_a_probe_within_100_ms_and_kills_it(tmp_path, call):
    nvcc = sleeping_nvcc(tmp_path)
    pidfile = tmp_path / "pid"
    how = f'cuarch.resolve("9.0", nvcc={nvcc!r}, timeout=30)' if call == "resolve" else f'cuarch.env("cmake", "9.0", nvcc={nvcc!r}, timeout=30)'
    code = f"""
        import sys, time, cuarch
        try:
            {how}
            print("returned")
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
    """
    p = start_python(code, pidfile, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    probe = None
    try:
        probe = wait_for_pid(pidfile)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
    finally:
        p.kill()
        if probe and not gone(probe):
            kill_quietly(probe)
            pytest.fail("the probe outlived the interrupted call")
    words = out.split()
    assert words[:1] == ["interrupted"], (out, err)
    took = float(words[1]) - sent
    # Signals are checked every 50 ms (~70 ms measured): 0.25 s on an idle machine, more on a loaded one.
    bound = prompt_bound(0.05, 0.2)
    assert took < bound, f"KeyboardInterrupt came {took * 1000:.0f} ms after Ctrl-C (bound {bound * 1000:.0f} ms)"
    assert gone(probe), "the probe outlived the interrupted call"


@pytest.mark.parametrize("how", ["exit", "SIGTERM", "SIGKILL"])
def test_no_probe_outlives_the_interpreter(tmp_path, how):
    """A daemon thread inside resolve() while the interpreter exits, or is killed: the probe goes too."""
    nvcc = sleeping_nvcc(tmp_path)
    pidfile = tmp_path / "pid"
    code = f"""
        import os, threading, time, cuarch
        def work():
            try:
                cuarch.resolve("9.0", nvcc={nvcc!r}, timeout=30)
            except BaseException:
                pass
        threading.Thread(target=work, daemon=True).start()
        while not os.path.exists({str(pidfile)!r}):
            time.sleep(0.01)
        if {how!r} != "exit":
            time.sleep(60)
    """
    p = start_python(code, pidfile, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    probe = None
    try:
        probe = wait_for_pid(pidfile)
        if how != "exit":
            p.send_signal(getattr(signal, how))
        out, err = p.communicate(timeout=20)
        if how == "exit":
            assert p.returncode == 0, (p.returncode, err)
        assert gone(probe, bound=2.0), f"the probe outlived the interpreter ({how})"
    finally:
        p.kill()
        if probe and not gone(probe):
            kill_quietly(probe)


def test_daemon_threads_inside_resolve_at_exit_do_not_abort(tmp_path):
    """Calls that end while the interpreter finalizes used to take the GIL back in C++ frames and be
    ended by pthread_exit: 'terminate called without an active exception', exit 134."""
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\nsleep 0.5\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    nvcc.chmod(0o755)
    code = f"""
        import gc, os, threading, time, cuarch
        def work():
            try:
                cuarch.resolve("9.0", nvcc={str(nvcc)!r}, timeout=30)
            except Exception:
                pass
        for _ in range(4):
            threading.Thread(target=work, daemon=True).start()
        gc.disable()
        class Slow:  # collected while the interpreter finalizes: holds the finalization open 1.5 s
            def __del__(self, time=time):
                time.sleep(1.5)
        slow = Slow(); slow.me = slow; del slow
        time.sleep(0.1)
    """
    done = run_python(textwrap.dedent(code), timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])


def test_module_imported_again_after_removal():
    code = """
        import sys, cuarch
        first = cuarch.resolve("9.0", toolkit="12.8").targets
        for name in [n for n in sys.modules if n == "cuarch" or n.startswith("cuarch.")]:
            del sys.modules[name]
        import cuarch
        print(first, cuarch.resolve("9.0", toolkit="12.8").targets)
    """
    done = run_python(textwrap.dedent(code))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "['sm_90'] ['sm_90']"


def test_environ_rewritten_while_32_threads_resolve():
    """os.environ changing under calls in flight: no crash, no spurious failure (the module copies
    the variables it reads while it holds the GIL)."""
    code = """
        import os, threading, cuarch
        os.environ["CUARCH_ARCHS"] = "9.0;12.0"
        want = cuarch.resolve(toolkit="12.8", env="cuarch").targets
        stop = threading.Event()
        def rewrite():
            i = 0
            while not stop.is_set():
                os.environ["CUARCH_TEST_FILLER_%d" % (i % 64)] = "x" * (i % 4096)
                os.environ.pop("CUARCH_TEST_FILLER_%d" % ((i + 32) % 64), None)
                os.environ["CUARCH_ARCHS"] = "9.0;12.0"
                os.environ["CUDA_HOME"] = "/nonexistent/%d" % i
                i += 1
        bad = []
        def work():
            for _ in range(25):
                try:
                    got = cuarch.resolve(toolkit="12.8", env="cuarch").targets
                    if got != want:
                        bad.append(got)
                except Exception as e:
                    bad.append(repr(e))
        writer = threading.Thread(target=rewrite)
        writer.start()
        threads = [threading.Thread(target=work) for _ in range(32)]
        for t in threads: t.start()
        for t in threads: t.join()
        stop.set(); writer.join()
        print("bad", len(bad), bad[:3])
    """
    done = run_python(textwrap.dedent(code), timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "bad 0 []"


def test_probes_run_in_the_calls_environment_while_os_environ_changes(tmp_path):
    """nvcc --version runs in the environment the call copied under the GIL, the variables cuarch
    does not read included, while another thread rewrites os.environ (issue 33: before, 28-84 probes
    a minute failed with "status 14 ... Bad address", the child reading a freed `environ`)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "environ_stress.py")
    done = subprocess.run([sys.executable, script, "2", "8", str(tmp_path)], capture_output=True, text=True, env=clean_env(),
                          timeout=300)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-2000:])
    words = done.stdout.split()
    assert words[:2] == ["bad", "0"] and int(words[3]) > 0, done.stdout


ABANDONED_LOAD = """
import ctypes, sys, time, cuarch
stubs = sys.argv[1]
try:
    cuarch.resolve("9.0", compiler="nvrtc", nvrtc=stubs + "/nvrtc-slowctor/libnvrtc.so.12", timeout=1)
    print("first: answered")
except cuarch.ResolveFailure as e:
    print("first:", e.code)
r = cuarch.resolve("9.0", compiler="nvrtc", nvrtc=stubs + "/nvrtc/libnvrtc.so.12", timeout=10)
print("second:", r.targets)
ctypes.CDLL(stubs + "/lib/libcuda.so.1")
print("dlopen: ok", flush=True)
"""


def test_a_load_abandoned_at_its_deadline_does_not_hold_the_interpreter(stubs):
    """Issue 33 item 1: the stub NVRTC's constructor sleeps 10 minutes. Before, the abandoned
    dlopen() held glibc's loader lock: the next question about another library was refused, the
    host's own dlopen() blocked, and the interpreter never exited."""
    env = clean_env(CUARCH_STUB_CTOR_SLEEP_MS="600000")
    bound = prompt_bound(1.0, 4.0)
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", ABANDONED_LOAD, stubs], capture_output=True, text=True, env=env,
                              timeout=bound)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the interpreter was still running after {bound:.1f} s; it printed {e.stdout!r}")
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["first: deadline_exceeded", "second: ['sm_90']", "dlopen: ok"], done.stderr
    assert took < bound


def test_no_thread_left_behind():
    """Each call's worker thread is joined before it returns: the OS thread count is the same after
    resolve() and doctor() as before (Python 3.12 warns at os.fork() in a multi-threaded process)."""
    code = """
        import os, cuarch
        count = lambda: len(os.listdir("/proc/self/task"))
        before = count()
        cuarch.resolve("9.0", toolkit="12.8")
        try:
            cuarch.resolve("native", cuinit_fallback=False)
        except cuarch.ResolveError:
            pass  # no GPU here
        cuarch.doctor(timeout=5)
        print(before, count())
    """
    done = run_python(textwrap.dedent(code))
    assert done.returncode == 0, done.stderr[-2000:]
    before, after = done.stdout.split()
    assert before == after


def test_doctor_takes_a_timeout():
    assert "schema" in cuarch.doctor(timeout=5, isolated=True)
    with pytest.raises(TypeError):
        cuarch.doctor(timeout="5")
