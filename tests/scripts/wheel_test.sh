#!/usr/bin/env bash
# The release packages: scripts/build-wheels.sh builds the sdist and, from it, the manylinux_2_17
# wheels for x86_64 and aarch64 (cross-compiled), cp310, cp311 and cp312-abi3, and checks them
# (auditwheel show, the ELF machine, glibc symbol versions and libraries the binaries need, the
# files a wheel must hold; for x86_64 an install with --no-index into a fresh venv, import +
# resolve, the console script and python -m cuarch, the stub against nanobind's stubgen of the
# installed module, mypy --strict and pyright on tests/python/typed_user.py; for aarch64 the command
# line and the cp311 module under qemu-aarch64-static with Debian's arm64 Python 3.11, skipped,
# saying so, only where qemu or that userland cannot be fetched; twine check; a wheel for every
# claimed Python). Then this test makes sure those checks can fail: a mistyped user script must fail
# mypy and pyright, and a wheel without py.typed the check.
#
# Warm runs are fast: the pinned tools sit in a wheelhouse and venvs under the build tree, zig, the
# compiler wrappers, qemu and the arm64 userland in ~/.cache/cuarch/wheels, the sdist is unpacked
# onto the same source folder (only changed files rewritten), each wheel's CMake build tree is kept,
# and ccache hits across clones. The first run fills the caches from the package indexes.
#
# Environment: CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR (ctest sets both). Exit 77 (skipped) only
# without a Python 3.10+ or readelf; everything else is a pass or a failure.
set -uo pipefail
repo=${CUARCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
python=${CUARCH_PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || ! command -v readelf >/dev/null; then
  echo "skipped: needs Python 3.10 or newer ($python) and readelf" >&2
  exit 77
fi
work=${CUARCH_BINARY_DIR:-}
if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
work=$work/wheels
dist=$work/dist
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

CUARCH_WHEEL_WORK=$work CUARCH_DIST=$dist bash "$repo/scripts/build-wheels.sh" || fail "scripts/build-wheels.sh failed"

step "a mistyped user script fails mypy --strict and pyright (the annotations and the stub are in force)"
venv=$(ls -d "$work"/check/venv-cp3* | head -1)
[[ -x $venv/bin/python ]] || fail "no check venv under $work/check"
bad=$work/typed_user_wrong.py
cat > "$bad" <<'PY'
import cuarch
import cuarch._cuarch
count: int = cuarch.resolve("9.0a", toolkit="12.8").targets
digest: str = cuarch._cuarch.cache_digest(1)
lines = cuarch.env("torch", "9.0a", format="shel").splitlines()
PY
out=$("$work/tools/bin/mypy" --strict --cache-dir "$work/mypy-cache" --python-executable "$venv/bin/python" "$bad" 2>&1) &&
  fail "mypy --strict accepted $bad"
grep -q 'typed_user_wrong.py:3: error: Incompatible types in assignment' <<<"$out" || fail "mypy missed line 3: $out"
grep -q 'typed_user_wrong.py:4: error: Argument 1 to "cache_digest" has incompatible type "int"' <<<"$out" ||
  fail "mypy missed line 4 (the extension's stub): $out"
grep -q 'typed_user_wrong.py:5: error: No overload variant of "env" matches' <<<"$out" || fail "mypy missed line 5 (env's formats): $out"
if command -v node >/dev/null; then
  out=$(cd "$work/check" && "$work/tools/bin/pyright" --pythonpath "$venv/bin/python" "$bad" 2>&1) && fail "pyright accepted $bad"
  for line in 3 4 5; do grep -q "typed_user_wrong.py:$line:[0-9]* - error" <<<"$out" || fail "pyright missed line $line: $out"; done
else
  echo "skipped: pyright (it needs node, and none is on PATH)"
fi

step "a wheel without py.typed fails the check"
broken=$work/broken
rm -rf "$broken" && mkdir -p "$broken"
cp "$dist"/cuarch-*.tar.gz "$broken"/
wheel=$(ls "$dist"/cuarch-*-cp3*-cp3*-manylinux*.whl | head -1)
"$work/tools/bin/python" - "$wheel" "$broken/$(basename "$wheel")" <<'PY' || fail "rewriting the wheel"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as dst:
    for item in src.infolist():
        data = src.read(item.filename)
        if item.filename.endswith(".dist-info/RECORD"):  # a consistent wheel, short of one file
            data = b"".join(line for line in data.splitlines(True) if not line.startswith(b"cuarch/py.typed,"))
        if item.filename != "cuarch/py.typed":
            dst.writestr(item, data)
PY
out=$(CUARCH_WHEEL_WORK=$work bash "$repo/scripts/build-wheels.sh" --check "$broken" 2>&1) && fail "the check passed a wheel without py.typed"
grep -q 'lacks cuarch/py.typed' <<<"$out" || fail "the check failed, but not for py.typed: $out"

echo "wheel_test: ok ($(cd "$dist" && ls cuarch-* | tr '\n' ' '))"
