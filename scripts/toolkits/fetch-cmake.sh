#!/usr/bin/env bash
# fetch-cmake.sh - a real CMake release from the PyPI `cmake` wheel, unpacked into a per-user cache,
# WITHOUT installing anything. Prints the path of its `cmake` executable.
#
# Usage:   fetch-cmake.sh [SPEC]
#   SPEC   4        the newest 4.x on the package index (default); offline: the newest cached 4.x
#          4.4.5    exactly that release
# Cache:   ${CUARCH_CMAKE_CACHE:-$HOME/.cache/cuarch/cmake}/<version>/cmake/data/bin/cmake (the wheel
#          kept beside it under wheels/); a cached release is reused without any network access.
# Environment: CUARCH_OFFLINE=1  never touch the network: the cache answers, or exit 3.
# Exit: 0 ok; 1 failure; 2 usage; 3 not available (offline and not cached, or no such release).
# Used by tests/conformance/check-cmake-versions.sh and check-cmake-compiler-binding.sh (offline: they
# skip, visibly, without a cache).
set -euo pipefail
CACHE=${CUARCH_CMAKE_CACHE:-$HOME/.cache/cuarch/cmake}
SPEC=${1:-4}
[[ $SPEC =~ ^[0-9]+(\.[0-9]+(\.[0-9]+)?)?$ ]] || { echo "usage: ${0##*/} [MAJOR | M.m.p]" >&2; exit 2; }

newest_cached() {  # the newest cached release matching SPEC (a prefix), or nothing
  local d best=""
  for d in "$CACHE"/"$SPEC"*/cmake/data/bin/cmake; do
    [[ -x $d ]] || continue
    local v=${d#"$CACHE"/}; v=${v%%/*}
    [[ $v == "$SPEC" || $v == "$SPEC".* ]] || continue
    best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n1)
  done
  [[ -n $best ]] && echo "$CACHE/$best/cmake/data/bin/cmake"
}

if [[ ${CUARCH_OFFLINE:-0} == 1 ]]; then
  newest_cached || { echo "${0##*/}: no CMake $SPEC in $CACHE (offline); run ${0##*/} $SPEC once with network" >&2; exit 3; }
  exit 0
fi
if [[ $SPEC =~ ^[0-9]+\.[0-9]+\.[0-9]+$ && -x $CACHE/$SPEC/cmake/data/bin/cmake ]]; then
  echo "$CACHE/$SPEC/cmake/data/bin/cmake"; exit 0
fi
case $SPEC in
  *.*.*) req="cmake==$SPEC" ;;
  *) req="cmake>=$SPEC.dev0,<$((${SPEC%%.*} + 1))" ;;
esac
mkdir -p "$CACHE/wheels"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 -d "$tmp" "$req" >&2; then
  newest_cached && exit 0
  echo "${0##*/}: pip could not download $req" >&2; exit 3
fi
whl=$(ls "$tmp"/cmake-*.whl | head -n1)
ver=$(basename "$whl"); ver=${ver#cmake-}; ver=${ver%%-*}
if [[ ! -x $CACHE/$ver/cmake/data/bin/cmake ]]; then
  cp "$whl" "$CACHE/wheels/"
  rm -rf "$CACHE/$ver.partial"; mkdir -p "$CACHE/$ver.partial"
  python3 -m zipfile -e "$whl" "$CACHE/$ver.partial"
  chmod +x "$CACHE/$ver.partial"/cmake/data/bin/*
  "$CACHE/$ver.partial/cmake/data/bin/cmake" --version | grep -q "cmake version $ver" || { echo "${0##*/}: the unpacked cmake is not $ver" >&2; exit 1; }
  rm -rf "${CACHE:?}/$ver"; mv "$CACHE/$ver.partial" "$CACHE/$ver"
fi
echo "$CACHE/$ver/cmake/data/bin/cmake"
