#!/usr/bin/env bash
# THE test command: installs dependencies, configures, builds and runs every test.
#   bash scripts/test.sh [extra cmake configure args...]
# Environment:
#   CUARCH_BUILD_DIR   build directory (default: build, relative to the repository root)
#   CUARCH_BUILD_TYPE  CMAKE_BUILD_TYPE (default RelWithDebInfo: the suite runs optimized, -O2, so a
#                      warning or a bug that only optimisation shows fails here too; a configure
#                      argument -DCMAKE_BUILD_TYPE=... given to this script wins)
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

echo "== configure ($build_dir, ${CUARCH_BUILD_TYPE:-RelWithDebInfo})"
cmake -S . -B "$build_dir" "${generator[@]}" "-DCMAKE_BUILD_TYPE=${CUARCH_BUILD_TYPE:-RelWithDebInfo}" -DCUARCH_BUILD_TESTS=ON -DCUARCH_BUILD_TOOLS=ON -DCUARCH_BUILD_EXAMPLES=ON "$@"
echo "== build (-j$jobs)"
cmake --build "$build_dir" -j "$jobs"
echo "== test"
# shellcheck disable=SC2086  # CTEST_ARGS is a list of words on purpose
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ${CTEST_ARGS:-}
