#!/usr/bin/env bash
# check-cmake-versions.sh - the real CMake is the oracle for what cuarch_resolve_cuda_architectures()
# hands it (issue 17). For each CMake at hand (the one on PATH, 3.25 here; the newest cached 4.x from
# scripts/toolkits/fetch-cmake.sh, skipped visibly when not cached) and each request below, a tiny
# project resolves CMAKE_CUDA_ARCHITECTURES with cuarch before enable_language(CUDA), then builds one
# kernel with the real nvcc. Each case must either
#   - configure and build, with the -gencode set CMake gives nvcc (compile_commands.json) equal to
#     the set `cuarch resolve --format nvcc` writes for the same request, or
#   - stop at cuarch's own call (the first CMake error is in cuarchCudaArchitectures.cmake) with the
#     reason, never later inside CMake (enable_language) or nvcc,
# and which of the two is fixed per case and CMake version (docs/conformance.md, "CMake").
# Env: CUARCH_CLI (the cuarch executable), CUARCH_RESOLVE_HELPER (optional prebuilt helper),
#      CUARCH_CMAKE (the first CMake; default: cmake on PATH),
#      CUARCH_TEST_NVCC (default /usr/local/cuda/bin/nvcc), CUARCH_TEST_CMAKES (space-separated
#      cmake executables instead of the default two).
# Exit: 0 every case as expected; 1 a mismatch; 77 skipped (no nvcc 13.x, no ninja).
set -u
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
[[ -x $nvcc ]] || { echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; }
"$nvcc" --version | grep -q 'release 13\.' || { echo "SKIPPED: $nvcc is not CUDA 13.x (the cases expect 13.x)"; exit 77; }
command -v ninja >/dev/null || { echo "SKIPPED: no ninja"; exit 77; }
unset CUARCH_ARCHS TORCH_CUDA_ARCH_LIST CUDAARCHS CUDAHOSTCXX
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

cmakes=${CUARCH_TEST_CMAKES:-}
if [[ -z $cmakes ]]; then
  cmakes=${CUARCH_CMAKE:-$(command -v cmake)}
  if four=$(CUARCH_OFFLINE=1 "$src/scripts/toolkits/fetch-cmake.sh" 4 2>/dev/null); then
    [[ $("$four" --version) == "$("$cmakes" --version)" ]] || cmakes+=" $four"
  else
    echo "skipped: CMake 4.x (none cached; run scripts/toolkits/fetch-cmake.sh 4 once to cache the PyPI wheel)"
  fi
fi

helper=${CUARCH_RESOLVE_HELPER:-}
if [[ -z $helper ]]; then  # one helper for every case, as a build tree builds it once
  helper=$work/cuarch_resolve_architectures
  "${CXX:-c++}" -std=c++17 -O0 -I"$src/include" "$src/cmake/cuarch_resolve_architectures.cpp" -o "$helper" -ldl ||
    { echo "FAIL: could not build cuarch's CMake helper"; exit 1; }
fi

mkdir -p "$work/project"
echo '__global__ void k(int* p) { *p = 1; }' >"$work/project/k.cu"
cat >"$work/project/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.24)
set(CUARCH_MODULE_INCLUDE_DIR "${CUARCH_ROOT}/include")
include("${CUARCH_ROOT}/cmake/cuarchCudaArchitectures.cmake")
project(cuarch_cmake_conformance LANGUAGES CXX)
set(args REQUEST "${REQUEST}" COMPILER "${CMAKE_CUDA_COMPILER}")
if(DEVICE_CC)
  list(APPEND args DEVICE_CC "${DEVICE_CC}")
endif()
if(NATIVE_VARIANT)
  list(APPEND args NATIVE_VARIANT "${NATIVE_VARIANT}")
endif()
cuarch_resolve_cuda_architectures(CMAKE_CUDA_ARCHITECTURES ${args})
enable_language(CUDA)
add_library(k OBJECT k.cu)
EOF

# The (arch, code) pairs of nvcc flags, one "compute_X>code" a line, sorted: cuarch's
# -gencode=arch=A,code=C and CMake's [\"]--generate-code=arch=A,code=[C1,C2][\"] alike.
pairs() {
  python3 -c '
import re, sys
out = set()
for m in re.finditer(r"(?:-gencode|--generate-code)=arch=([^,\s\"]+),code=(\[[^\]]*\]|[^\s\"]+)", sys.stdin.read()):
    for c in m.group(2).strip("[]").split(","):
        out.add(m.group(1) + ">" + c)
print("\n".join(sorted(out)))'
}

# name | REQUEST | DEVICE_CC | NATIVE_VARIANT | expected: pass, fail:<ERE>, or f:<ERE> (passes where
# CMake takes the `f` suffix, 4.0.2 on; elsewhere fails at cuarch's call matching <ERE>)
cases='120f|120f|||f:sm_120f cannot be written in CMake [0-9.]+ CUDA_ARCHITECTURES.*CMake 4\.0\.2
100;100f|100;100f|||fail:sm_100 and sm_100f cannot be built in one nvcc compilation
native 12.0|native|12.0||pass
native f|native|10.0,12.0|f|f:sm_100f cannot be written in CMake [0-9.]+ CUDA_ARCHITECTURES
90a;120|90a;120|||pass
mixed forms|80-virtual;90a-real;103f|||f:sm_103f cannot be written in CMake [0-9.]+
all-major|all-major|||pass'

status=0 ran=0
for cmake in $cmakes; do
  ver=$("$cmake" --version | sed -n 's/^cmake version \([0-9][0-9.]*\).*/\1/p')
  takes_f=0; printf '%s\n%s\n' 4.0.2 "$ver" | sort -V -C && takes_f=1
  while IFS='|' read -r name request device variant expect; do
    ran=$((ran + 1))
    case $expect in f:*) if [[ $takes_f == 1 ]]; then expect=pass; else expect=fail:${expect#f:}; fi ;; esac
    b="$work/build-$ran"
    "$cmake" -S "$work/project" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "-DCUARCH_ROOT=$src" \
      "-DCUARCH_RESOLVE_HELPER=$helper" "-DCMAKE_CUDA_COMPILER=$nvcc" "-DREQUEST=$request" \
      "-DDEVICE_CC=$device" "-DNATIVE_VARIANT=$variant" >"$b.log" 2>&1
    rc=$?
    log=$(tr -s ' \t\n' ' ' <"$b.log")  # CMake wraps long messages: match words, not lines
    what="CMake $ver, '$name'"
    if [[ $rc -ne 0 ]]; then
      first=$(grep -m1 '^CMake Error' "$b.log")
      if [[ $first != *cuarchCudaArchitectures.cmake* ]]; then
        echo "FAIL: $what: configure failed outside cuarch's call: $first"; cat "$b.log"; status=1; continue
      fi
      if [[ $expect == pass ]]; then echo "FAIL: $what: expected to build, cuarch stopped it:"; cat "$b.log"; status=1; continue; fi
      if ! grep -Eq "${expect#fail:}" <<<"$log"; then
        echo "FAIL: $what: cuarch's message lacks /${expect#fail:}/:"; cat "$b.log"; status=1; continue
      fi
      echo "ok: $what: stops at cuarch's call: $(grep -o 'cuarch: cannot resolve.*' <<<"$log" | cut -c1-220)"
      continue
    fi
    if [[ $expect != pass ]]; then echo "FAIL: $what: expected cuarch to stop it (/${expect#fail:}/), it configured"; status=1; continue; fi
    if ! "$cmake" --build "$b" >"$b.build.log" 2>&1; then
      echo "FAIL: $what: configured, then the build failed:"; cat "$b.build.log"; status=1; continue
    fi
    cmake_pairs=$(python3 -c 'import json,sys; print("\n".join(e["command"] for e in json.load(open(sys.argv[1])) if e["file"].endswith("k.cu")))' \
      "$b/compile_commands.json" | pairs)
    args=(resolve --archs "$request" --dialect cmake --env none --compiler nvcc --nvcc "$nvcc" --format nvcc)
    [[ -n $device ]] && args+=(--device-cc "$device")
    [[ -n $variant ]] && args+=(--native-variant "$variant")
    flags=$("$cli" "${args[@]}" 2>"$b.cli.log") || { echo "FAIL: $what: cuarch resolve failed:"; cat "$b.cli.log"; status=1; continue; }
    cuarch_pairs=$(pairs <<<"$flags")
    if [[ -z $cmake_pairs || $cmake_pairs != "$cuarch_pairs" ]]; then
      echo "FAIL: $what: CMake's -gencode set differs from cuarch's nvcc flags"
      diff <(echo "$cmake_pairs") <(echo "$cuarch_pairs") | sed 's/^/  /'; status=1; continue
    fi
    resolved=$(grep -o "cuarch: CUDA architectures .*" "$b.log" | head -n1)
    echo "ok: $what: builds, $(wc -l <<<"$cmake_pairs") -gencode pairs as cuarch's ($resolved)"
  done <<<"$cases"
done
echo "$ran cases with: $cmakes"
exit $status
