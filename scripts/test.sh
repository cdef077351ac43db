#!/usr/bin/env bash
# THE test command: installs dependencies, configures, builds and runs every test.
#   bash scripts/test.sh [extra cmake configure args...]
# Environment:
#   CUARCH_BUILD_DIR   build directory (default: build, relative to the repository root)
#   CUARCH_BUILD_TYPE  CMAKE_BUILD_TYPE (default Release, as users build: -O3 -DNDEBUG, so a warning
#                      or a bug that only optimisation shows fails here too; a configure argument
#                      -DCMAKE_BUILD_TYPE=... given to this script wins)
#   CUARCH_JOBS        parallel jobs for build and ctest (default: nproc)
#   CTEST_ARGS         extra ctest arguments, e.g. CTEST_ARGS="-L unit" or "-R arch"
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${CUARCH_BUILD_DIR:-build}"
jobs="${CUARCH_JOBS:-$(nproc 2>/dev/null || echo 2)}"

bash scripts/install-deps.sh

generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" && -z "${CMAKE_GENERATOR:-}" ]] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi

# ccache, where the machine has it, makes a rebuild of unchanged sources (a fresh clone, a CI run)
# a cache hit. The environment variables reach every nested CMake build too: the wheels, the package
# tests, the sanitizer builds. CCACHE_BASEDIR makes paths relative and CCACHE_NOHASHDIR leaves the
# build folder out of the key (only the debug info's compile folder can name another clone), so two
# clones share hits.
if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER:-} ]] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
fi

echo "== configure ($build_dir, ${CUARCH_BUILD_TYPE:-Release})"
cmake -S . -B "$build_dir" "${generator[@]}" "-DCMAKE_BUILD_TYPE=${CUARCH_BUILD_TYPE:-Release}" -DCUARCH_BUILD_TESTS=ON -DCUARCH_BUILD_TOOLS=ON -DCUARCH_BUILD_EXAMPLES=ON "$@"
echo "== build (-j$jobs)"
cmake --build "$build_dir" -j "$jobs"
echo "== test"
# shellcheck disable=SC2086  # CTEST_ARGS is a list of words on purpose
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ${CTEST_ARGS:-}
