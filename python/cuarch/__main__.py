"""`cuarch` console script and `python -m cuarch`: the C++ command line, shipped in the wheel.

Why exec the binary instead of a second command line in Python: the command line already exists
(tools/cuarch), with its options, help texts, exit codes (0 ok, 1 failed, 2 bad usage) and JSON; a
Python copy would drift from it. exec (not a subprocess) keeps one process, so signals, the exit
status, stdin/stdout and the environment are exactly the binary's. What the command line sees is
that fresh process, not the caller's Python process: for answers about *this* process (an NVRTC it
has already loaded), use the in-process API, cuarch.resolve() and cuarch.doctor().

The one thing the binary is told about this interpreter is its environment (sys.prefix), as
VIRTUAL_ENV where none is activated: the in-process API scans it for pip nvidia-* wheels the same
way (cuarch._interpreter_environment), so `venv/bin/python -m cuarch` sees the venv's NVRTC wheel
as cuarch.resolve() in that interpreter does.
"""

import os
import sys
from typing import Optional, Sequence

from . import _interpreter_environment


def executable() -> str:
    """The path of the command line inside the installed package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "cuarch")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line with argv (default sys.argv[1:]) in place of this process (exec): it
    returns only when the command line is missing (2, with the reason on stderr)."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = executable()
    if not os.access(path, os.X_OK):
        sys.stderr.write(
            f"cuarch: the command line is missing from this installation ({path} is not an executable file); "
            "reinstall the package: pip install --force-reinstall cuarch\n"
        )
        return 2
    environment = dict(os.environ)
    environment.update(_interpreter_environment())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(path, [path] + args, environment)
    return 2  # not reached: execve replaces the process or raises OSError


if __name__ == "__main__":
    sys.exit(main())
