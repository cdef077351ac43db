"""The console script, `python -m cuarch` and the recipes under examples/python/."""

import json
import os
import subprocess
import sys

import pytest

from conftest import EXAMPLES, clean_env, console_script


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=kw.pop("env", clean_env()), timeout=kw.pop("timeout", 120), **kw)


def test_console_script_and_module_run_the_same_command_line():
    script = console_script()
    assert script, "the cuarch console script is not installed"
    args = ["resolve", "--toolkit", "12.8", "--archs", "9.0a;12.0", "--format", "torch"]
    a = run([script, *args])
    b = run([sys.executable, "-m", "cuarch", *args])
    assert (a.returncode, a.stdout) == (b.returncode, b.stdout) == (0, "9.0a;12.0\n")
    # Exit codes pass through: 1 unresolvable, 2 malformed.
    assert run([script, "resolve", "--toolkit", "12.4", "--archs", "12.0a"]).returncode == 1
    assert run([sys.executable, "-m", "cuarch", "resolve", "--toolkit", "12.4", "--archs", "8.0a"]).returncode == 2
    v = run([script, "--version"])
    import cuarch

    assert v.returncode == 0 and v.stdout.strip() == f"cuarch {cuarch.__version__}"


def test_jit_module_recipe_builds_and_caches(tmp_path, local_cuda):
    cmd = [sys.executable, os.path.join(EXAMPLES, "jit_module.py"), "--archs", "9.0a;12.0", "--cache", str(tmp_path),
           "--nvcc", os.path.join(local_cuda, "bin", "nvcc")]
    first = run(cmd, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "targets: sm_90a sm_120" in first.stdout and "built: " in first.stdout
    fatbins = list(tmp_path.glob("*/axpy.fatbin"))
    assert len(fatbins) == 1 and fatbins[0].stat().st_size > 0
    second = run(cmd)
    assert second.returncode == 0 and "cache hit: " in second.stdout
    # Another target set is another cache entry, never the stale one.
    third = run(cmd[:3] + ["9.0a"] + cmd[4:], timeout=300)
    assert third.returncode == 0 and "built: " in third.stdout and len(list(tmp_path.glob("*/axpy.fatbin"))) == 2
    # What the compiler cannot build is refused before nvcc runs, with the reason.
    refused = run(cmd[:3] + ["sm_70"] + cmd[4:])
    assert refused.returncode == 1 and "removed_in_toolkit" in refused.stderr or "nothing_resolved" in refused.stderr


def test_torch_extension_recipe():
    pytest.importorskip("torch", reason="skipped: torch not installed")
    done = run([sys.executable, os.path.join(EXAMPLES, "torch_extension.py")], timeout=900)
    if done.returncode == 77:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "extension built and ran: ok" in done.stdout


def test_torch_extension_recipe_skips_visibly_without_torch():
    try:
        import torch  # noqa: F401

        pytest.skip("skipped: torch is installed (the recipe itself is tested)")
    except ImportError:
        pass
    done = run([sys.executable, os.path.join(EXAMPLES, "torch_extension.py")])
    assert done.returncode == 77 and done.stdout.strip() == "skipped: torch not installed"


def test_module_and_console_script_see_their_own_venvs_nvrtc_wheel(tmp_path, nvrtc_12_4):
    """`venv/bin/python -m cuarch` and the venv's `cuarch` script see the NVRTC wheel of that venv,
    unactivated, as cuarch.doctor() in that interpreter does (issue 31, item 9)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    import cuarch

    # The venv imports this installation of cuarch (a .pth), and holds the real nvidia-cuda-nvrtc-cu12
    # 12.4 wheel as pip lays it out: nvidia/cuda_nvrtc/lib and its dist-info.
    with open(os.path.join(site, "cuarch-under-test.pth"), "w") as f:
        f.write(os.path.dirname(os.path.dirname(os.path.abspath(cuarch.__file__))) + "\n")
    wheel = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(nvrtc_12_4))))
    for name in os.listdir(wheel):
        if name == "nvidia" or name.endswith(".dist-info"):
            os.symlink(os.path.join(wheel, name), os.path.join(site, name))
    found = os.path.join(site, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12")
    script = venv / "bin" / "cuarch"  # what pip writes for the console script
    script.write_text(f"#!{python}\nimport sys\nfrom cuarch.__main__ import main\nsys.exit(main())\n")
    script.chmod(0o755)

    env = clean_env(PATH="/usr/bin:/bin")
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "CUARCH_NVRTC", "PYTHONPATH"):
        env.pop(name, None)

    def nvrtc_paths(document):
        return {c["path"] for c in json.loads(document)["candidates"] if c.get("source") == "NVRTC"}

    in_process = run([python, "-c", "import cuarch, json; print(json.dumps(cuarch.doctor()))"], env=env)
    assert in_process.returncode == 0, in_process.stderr
    assert found in nvrtc_paths(in_process.stdout), in_process.stdout
    for cmd in ([python, "-m", "cuarch"], [str(script)]):
        done = run(cmd + ["doctor", "--json"], env=env)
        assert found in nvrtc_paths(done.stdout), (cmd, done.stdout[-2000:], done.stderr)
        assert nvrtc_paths(done.stdout) == nvrtc_paths(in_process.stdout)
    # An activated environment is the caller's word: the interpreter's own is not added then.
    other = tmp_path / "other"
    other.mkdir()
    done = run([python, "-m", "cuarch", "doctor", "--json"], env=dict(env, VIRTUAL_ENV=str(other)))
    assert found not in nvrtc_paths(done.stdout)
