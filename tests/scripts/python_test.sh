#!/usr/bin/env bash
# The Python package end to end: a fresh virtual environment, `pip install <repository>`, the
# issue's done-when line, then the pytest suite (tests/python/) against the installed package.
#
# Kept fast when warm (CI budget): the build tools (scikit-build-core, nanobind) and pytest come
# from a wheelhouse under the build tree, filled from PyPI once, then installed with --no-index;
# the package's CMake build directory is kept between runs, and CMake takes nanobind's sources from
# a copy that is installed once (a fresh copy per run would have new file times and rebuild it all),
# so only what changed is recompiled. The venv itself is recreated every run (--clear): the
# install must work from nothing.
#
# Environment: CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR (ctest sets both); CUARCH_PYTHON (default
# python3). Exit 77 (skipped) only when there is no Python 3; everything else is a pass or a failure.
set -uo pipefail
repo=${CUARCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
python=${CUARCH_PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "skipped: no Python 3.10 or newer ($python)" >&2
  exit 77
fi
work=${CUARCH_BINARY_DIR:-}
if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
work=$work/python
venv=$work/venv wheelhouse=$work/wheelhouse build_dir=$work/build nanobind_copy=$work/nanobind
mkdir -p "$wheelhouse"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

step "fresh virtual environment: $venv"
"$python" -m venv --clear "$venv" || fail "$python -m venv failed (Debian: apt-get install python3-venv)"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)

build_tools=("scikit-build-core>=0.11" "nanobind>=2.0" "pytest")  # 0.11: PEP 639 metadata (pyproject.toml)
if ! "${pip[@]}" install -q --no-index --find-links "$wheelhouse" "${build_tools[@]}" 2>/dev/null; then
  step "filling the wheelhouse from the package index (once)"
  "${pip[@]}" download -q -d "$wheelhouse" "${build_tools[@]}" || fail "pip download ${build_tools[*]} failed"
  "${pip[@]}" install -q --no-index --find-links "$wheelhouse" "${build_tools[@]}" || fail "installing the build tools failed"
fi

nanobind_dir=$(cd "$work" && "$venv/bin/python" -c 'import nanobind; print(nanobind.cmake_dir())') || fail "nanobind is not importable"
version=$("$venv/bin/python" -c 'import nanobind; print(nanobind.__version__)')
if [[ ! -f $nanobind_copy/$version/cmake/nanobind-config.cmake ]]; then
  rm -rf "$nanobind_copy" && mkdir -p "$nanobind_copy" && cp -a "$(dirname "$nanobind_dir")" "$nanobind_copy/$version" ||
    fail "copying nanobind failed"
fi

step "pip install $repo"
# --no-build-isolation: the build tools just installed (no network); build-dir: incremental rebuilds.
"${pip[@]}" install -q --no-index --no-build-isolation --config-settings=build-dir="$build_dir" \
  --config-settings=cmake.define.nanobind_DIR="$nanobind_copy/$version/cmake" "$repo" ||
  fail "pip install of the repository failed"

step "done-when check"
want="['sm_90a', 'sm_120']"
got=$(cd "$work" && "$venv/bin/python" -c "import cuarch; print(cuarch.resolve('9.0a;12.0', toolkit='12.8').targets)") ||
  fail "the done-when line failed"
[[ $got == "$want" ]] || fail "done-when line printed '$got', want \"$want\""
echo "$got"
[[ -x $venv/bin/cuarch ]] || fail "no cuarch console script in $venv/bin"
"$venv/bin/cuarch" --version || fail "the cuarch console script failed"

step "pytest tests/python"
cd "$repo/tests/python" || fail "no tests/python"
export CUARCH_SOURCE_DIR=$repo
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rs .
