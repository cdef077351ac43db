#!/usr/bin/env bash
# check-cmake-architectures-live.sh - tests/data/cmake_architectures.tsv still describes the CMake that
# runs the tests and this nvcc: every 12th value re-asked (CMake's own validation, the flags it derives,
# nvcc -c with them) and 4 values through a whole enable_language(CUDA) configure, which must give the
# staged verdict (scripts/toolkits/record-cmake-architectures.py --check). Every row is checked offline
# by tests/cmake_architectures_test.cpp. Skipped (exit 77) without nvcc 13.0.88 or ninja, or when this
# CMake's version is not one recorded.
set -u
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
exec python3 "$src/scripts/toolkits/record-cmake-architectures.py" --check "$src/tests/data/cmake_architectures.tsv" \
  --cmake "${CUARCH_CMAKE:-$(command -v cmake)}" --nvcc "${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}" --every 12 --full 4
