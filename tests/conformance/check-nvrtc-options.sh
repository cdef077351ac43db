#!/usr/bin/env bash
# check-nvrtc-options.sh - every option set cuarch writes for NVRTC (nvrtc_compiles) compiles with the
# local NVRTC and gives what its form promises (issue 17): tests/conformance/nvrtc_options_probe.cpp,
# one compile per target the knowledge table says that release builds (sm_ -> CUBIN, compute_ ->
# PTX only, lto_ -> LTO IR via --gpu-architecture=compute_XY -dlto).
# Usage:  tests/conformance/check-nvrtc-options.sh [/ABS/PATH/libnvrtc.so.N]   (default: the local 13)
# Exit: 0 all compiled as promised; 1 a failure; 77 skipped (no library, no compiler).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src="${CUARCH_SOURCE_DIR:-$(cd "$here/../.." && pwd)}"
lib=${1:-/usr/local/cuda/lib64/libnvrtc.so.13}
[[ -e $lib ]] || { echo "SKIPPED: no NVRTC at $lib"; exit 77; }
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null || { echo "SKIPPED: no C++ compiler '$cxx'"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$cxx" -std=c++17 -O1 -I"$src/include" "$here/nvrtc_options_probe.cpp" -o "$work/probe" -ldl ||
  { echo "FAIL: could not build the probe"; exit 1; }
LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/probe" "$lib" >"$work/out" 2>&1
rc=$?
grep -v '^ok' "$work/out"
exit $rc
