"""The package's metadata, as an index shows it: scripts/check-package-metadata.py on a fresh sdist
(scripts/build-wheels.sh runs it on every wheel too, with `twine check`), the checker's refusals, and
the long description's Python example, which must give what its comments say."""

import ast
import email.parser
import os
import re
import subprocess
import sys
import tarfile

import pytest

import cuarch
from conftest import REPO

CHECKER = os.path.join(REPO, "scripts", "check-package-metadata.py")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdist")
    build = "import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", build, str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"building the sdist failed: {done.stderr}"
    return str(out / done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def pkg_info(sdist):
    with tarfile.open(sdist) as t:
        (member,) = [m for m in t.getmembers() if re.fullmatch(r"[^/]+/PKG-INFO", m.name)]
        return email.parser.Parser().parsestr(t.extractfile(member).read().decode("utf-8"))


def test_the_sdist_passes_the_metadata_check(sdist):
    done = subprocess.run([sys.executable, CHECKER, sdist], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Metadata-Version 2.4, License-Expression MIT" in done.stdout


def test_the_long_description_is_the_index_readme(pkg_info):
    with open(os.path.join(REPO, "python", "README.md"), encoding="utf-8") as f:
        assert pkg_info.get_payload().strip() == f.read().strip()


OLD = """Metadata-Version: 2.1
Name: cuarch
Version: 0.1.0
License: MIT License
         Permission is hereby granted...
Classifier: License :: OSI Approved :: MIT License
Classifier: Typing :: Typed
Requires-Python: >=3.10
Description-Content-Type: text/markdown

# cuarch
[docs/usage.md](docs/usage.md) and [examples/front_door.cpp](examples/front_door.cpp), <img src="logo.png">
[the schema](https://example.invalid/schema.json) is absolute.
"""


def test_the_check_refuses_what_the_old_metadata_had(tmp_path):
    path = tmp_path / "PKG-INFO"
    path.write_text(OLD)
    done = subprocess.run([sys.executable, CHECKER, str(path)], capture_output=True, text=True)
    assert done.returncode == 1
    for problem in ["Metadata-Version 2.1: PEP 639", "License-Expression is None", "a legacy License field",
                    "classifier 'License :: OSI Approved :: MIT License'", "no Author",
                    "3 relative link(s) in the long description, dead on an index: docs/usage.md, examples/front_door.cpp, logo.png"]:
        assert f"FAIL: {path}: {problem}" in done.stderr, (problem, done.stderr)


def test_the_descriptions_python_example_gives_what_its_comments_say(pkg_info):
    blocks = re.findall(r"```python\n(.*?)```", pkg_info.get_payload(), re.S)
    assert blocks, "no Python example"
    namespace = {}
    exec("import os, cuarch", namespace)
    checked = 0
    for line in blocks[0].splitlines():
        code, _, comment = line.partition("  # ")
        if not comment or not code.strip() or "=" in code.split("(")[0]:
            exec(code, namespace)  # a statement: run it
            continue
        value = leading_literal(comment)
        if value is None:
            exec(code, namespace)
            continue
        assert eval(code, namespace) == value, line
        checked += 1
    assert checked >= 4, f"only {checked} commented values checked"


def leading_literal(comment):
    """The Python literal a comment starts with ("['sm_90a']; raises ..." gives ['sm_90a']), or None."""
    for end in range(len(comment), 0, -1):
        try:
            return ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError):
            continue
    return None
