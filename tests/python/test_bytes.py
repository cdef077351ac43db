"""Bytes in, bytes out: Python takes any bytes in environment variables and paths, as os.environ and
os.fsencode do (a non-UTF-8 byte is a lone surrogate in a str, surrogateescape), and hands back what
the library says without raising on it. Errors are always the package's own types (issue 33, item 5).
Most cases run in a fresh interpreter whose environment holds b"\\xff" in PATH, LD_LIBRARY_PATH and
CUDA_HOME: the byte must reach the library as the byte, not break the call."""

import ast
import os
import shutil
import subprocess
import textwrap

import pytest

import cuarch
from conftest import REPO, clean_env, run_python

DATA = os.path.join(REPO, "tests", "data", "inspect")
FAKE_NVCC_12_8 = os.path.join(REPO, "tests", "fixtures", "fake-nvcc", "nvcc-12.8")


def non_utf8_env(**extra):
    """clean_env() as bytes, with b"\\xff" in PATH, LD_LIBRARY_PATH and CUDA_HOME."""
    env = {os.fsencode(k): os.fsencode(v) for k, v in clean_env(**extra).items()}
    env[b"PATH"] = env.get(b"PATH", b"/usr/bin:/bin") + b":/nonexistent/bin\xff"
    env[b"LD_LIBRARY_PATH"] = b"/nonexistent/lib\xff"
    env[b"CUDA_HOME"] = b"/nonexistent/cuda\xff"
    return env


def run(code, env):
    done = run_python(textwrap.dedent(code), env=env)
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stdout + done.stderr
    return done


def test_every_call_works_with_a_non_utf8_environment():
    run(
        """
        import os, cuarch
        assert os.environb[b"CUDA_HOME"] == b"/nonexistent/cuda\\xff"
        assert cuarch.resolve("9.0", toolkit="13.0").targets == ["sm_90"]
        doc = cuarch.doctor()
        assert doc["schema"] == "cuarch.doctor/1"
        # The library saw the byte itself: the document keeps it as hex beside the replaced text.
        assert doc["environment"]["CUDA_HOME_bytes"] == b"/nonexistent/cuda\\xff".hex(), doc["environment"]
        assert cuarch.inspect(os.path.join(%r, "sm_90.o"), devices="9.0")["ok"] is True
        print("OK")
        """
        % DATA,
        non_utf8_env(),
    )


def test_env_and_compiler_paths_come_back_as_bytes(cli, tmp_path):
    # An nvcc (the fake 12.8) in a toolkit root whose name holds b"\xff": the paths that come back
    # (the compiler's, env()'s CUDA_HOME, env()'s shell text) give the very bytes under os.fsencode,
    # and the shell text is the command line's bytes.
    root = os.path.join(os.fsencode(str(tmp_path)), b"cuda\xff")
    os.makedirs(os.path.join(root, b"bin"))
    nvcc = os.path.join(root, b"bin", b"nvcc")
    shutil.copy(FAKE_NVCC_12_8, nvcc)
    env = non_utf8_env()
    done = run(
        """
        import os, warnings, cuarch
        warnings.simplefilter("ignore")
        nvcc = %r
        path = cuarch.resolve("9.0", nvcc=nvcc).compiler.path
        got = cuarch.env("torch", "9.0", nvcc=os.fsdecode(nvcc))
        text = cuarch.env("torch", "9.0", nvcc=nvcc, format="shell")
        print(repr([os.fsencode(text), os.fsencode(path), os.fsencode(got["CUDA_HOME"])]))
        print("OK")
        """
        % nvcc,
        env,
    )
    text, path, cuda_home = ast.literal_eval(done.stdout.splitlines()[-2])
    shell = subprocess.run([cli, "env", "--for", "torch", "--archs", "9.0", "--nvcc", nvcc, "--format", "shell"],
                           capture_output=True, env=env, timeout=120)
    assert shell.returncode == 0, shell.stderr
    assert text == shell.stdout and b"\xff" in text, (text, shell.stdout)
    assert (path, cuda_home) == (nvcc, root)


def test_inspect_a_file_with_a_non_utf8_name(tmp_path):
    # The name as bytes, as str (surrogateescape, as os.listdir gives it) and as a pathlib.Path.
    name = os.path.join(os.fsencode(str(tmp_path)), b"kernel\xff.o")
    shutil.copyfile(os.path.join(DATA, "sm_90.o"), name)
    run(
        """
        import os, pathlib, cuarch
        name = %r
        for path in (name, os.fsdecode(name), pathlib.Path(os.fsdecode(name)), [name]):
            doc = cuarch.inspect(path, devices="9.0")
            assert doc["ok"] is True and doc["files"][0]["devices"][0]["loads"], doc
            # The document is valid UTF-8 (U+FFFD in "path"); the name's bytes are kept beside it.
            assert doc["files"][0]["path_bytes"] == name.hex(), doc["files"][0]
        print("OK")
        """
        % name,
        non_utf8_env(),
    )


def test_errors_holding_invalid_bytes_are_the_packages_own(tmp_path):
    missing = os.path.join(os.fsencode(str(tmp_path)), b"missing\xff.o")
    # An nvcc whose --version holds bytes that are not UTF-8: the library's message quotes them.
    noisy = tmp_path / "nvcc"
    noisy.write_text('#!/bin/sh\nprintf "Cuda compilation tools, release \\377\\376, V\\377\\n"\n')
    noisy.chmod(0o755)
    done = run(
        """
        import os, cuarch
        for path in (%r, os.fsdecode(%r)):
            try:
                cuarch.inspect(path, devices="9.0")
            except cuarch.ResolveInputError as e:
                assert e.code == "unreadable_input", e.code
                # The byte is visible in the message, and printing it never fails.
                assert "missing\\\\xff.o" in str(e), ascii(str(e))
                print(str(e).encode("utf-8").decode())
            else:
                raise AssertionError("no error for a missing file")
        for call, shown in (
            (lambda: cuarch.resolve("9.0", nvcc=b"/nonexistent/bin\\xff/nvcc"), "bin\\\\xff/nvcc"),
            (lambda: cuarch.resolve("9.0", cuda_home=os.environ["CUDA_HOME"]), "cuda\\\\xff"),
            (lambda: cuarch.resolve("9.0", nvcc=%r), "release \\\\xff\\\\xfe"),  # its --version's bytes
        ):
            try:
                call()
            except cuarch.ResolveFailure as e:
                assert shown in str(e), ascii(str(e))
                print(e.code, str(e).encode("utf-8").decode())
            else:
                raise AssertionError("no error: " + shown)
        print("OK")
        """
        % (missing, missing, str(noisy)),
        non_utf8_env(),
    )
    assert "Traceback" not in done.stderr


def test_a_null_byte_in_a_path_is_refused():
    # The system reads a name up to its first null byte: the library would open another file than
    # the one named (inspect judged "sm_90.o" for "sm_90.o\0junk"). Refused as os.open refuses it.
    for path in (os.path.join(DATA, "sm_90.o") + "\0junk", b"/usr/bin/nvcc\0x"):
        with pytest.raises(ValueError, match="embedded null byte"):
            cuarch.inspect(path, devices="9.0")
        with pytest.raises(ValueError, match="nvcc: embedded null byte"):
            cuarch.resolve("9.0", nvcc=path)
