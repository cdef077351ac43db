#!/usr/bin/env bash
# check-cmake-compiler-binding.sh WHICH - the nvcc that cuarch_resolve_cuda_architectures() judged is
# the nvcc CMake then compiles with (issue 31, item 1). The real CMake is the oracle: in each layout
# below a tiny project calls the helper (REQUEST native DEVICE_CC 12.1) and then enable_language(CUDA),
# and either
#   - configure succeeds and CMakeCache.txt's CMAKE_CUDA_COMPILER is the nvcc the helper's status line
#     named ("decided by nvcc X at PATH"), or
#   - configure stops at cuarch's call (its first CMake Error in cuarchCudaArchitectures.cmake) with the
#     message the case expects (for a conflict: both compilers and the fix, CMAKE_CUDA_COMPILER).
# Then `cuarch env --for cmake` in the seed layout: its output is eval'd and a fresh project that only
# calls enable_language(CUDA) must record the CUDACXX it printed.
# Layouts: an nvcc 12.8 (tests/fixtures/fake-nvcc, answers --version only) first on PATH, the real
# nvcc 13.x in CUDA_HOME (the seed); CUDACXX set (bare and with arguments); CMAKE_CUDA_COMPILER given
# (agreeing with COMPILER, and not); COMPILER a wrapper script of the real nvcc (a second working nvcc
# at another path); CUDA_PATH set; a project that changes CMAKE_CUDA_COMPILER after the helper (to that
# wrapper).
# WHICH: 3 = CUARCH_CMAKE (default: cmake on PATH; Debian's 3.25 here), 4 = the newest 4.x cached by
# scripts/toolkits/fetch-cmake.sh (exit 77, "SKIPPED", when none is cached: this script never
# downloads), or a path to a cmake executable.
# Env: CUARCH_CLI (the cuarch executable), CUARCH_RESOLVE_HELPER (optional prebuilt helper),
#      CUARCH_TEST_NVCC (default /usr/local/cuda/bin/nvcc).
# Exit: 0 every case as expected; 1 a mismatch; 77 skipped (no nvcc 13.x, no ninja, no such CMake).
set -u
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
which=${1:-3}
[[ -x $nvcc ]] || { echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; }
"$nvcc" --version | grep -q 'release 13\.' || { echo "SKIPPED: $nvcc is not CUDA 13.x (the cases expect 13.x)"; exit 77; }
command -v ninja >/dev/null || { echo "SKIPPED: no ninja"; exit 77; }
case $which in
  3) cmake=${CUARCH_CMAKE:-$(command -v cmake)} ;;
  4) cmake=$(CUARCH_OFFLINE=1 "$src/scripts/toolkits/fetch-cmake.sh" 4 2>/dev/null) || {
       echo "SKIPPED: CMake 4.x (none cached; run scripts/toolkits/fetch-cmake.sh 4 once to cache the PyPI wheel)"; exit 77; } ;;
  *) cmake=$which ;;
esac
[[ -x $cmake ]] || { echo "SKIPPED: no cmake at '$cmake'"; exit 77; }
ver=$("$cmake" --version | sed -n 's/^cmake version \([0-9][0-9.]*\).*/\1/p')
real_root=$(cd "$(dirname "$nvcc")/.." && pwd -P)

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
helper=${CUARCH_RESOLVE_HELPER:-}
if [[ -z $helper ]]; then  # one helper for every case, as a build tree builds it once
  helper=$work/cuarch_resolve_architectures
  "${CXX:-c++}" -std=c++17 -O0 -I"$src/include" "$src/cmake/cuarch_resolve_architectures.cpp" -o "$helper" -ldl ||
    { echo "FAIL: could not build cuarch's CMake helper"; exit 1; }
fi

# The layouts' pieces: PATH's nvcc 12.8 (the fake), and a second working nvcc at another path (a
# wrapper script of the real one) for a project that switches compilers after the helper.
mkdir -p "$work/path12.8" "$work/wrapper/bin" "$work/project" "$work/plain"
cp "$src/tests/fixtures/fake-nvcc/nvcc-12.8" "$work/path12.8/nvcc"
fake=$work/path12.8/nvcc
printf '#!/bin/sh\nexec %s "$@"\n' "$nvcc" >"$work/wrapper/bin/nvcc"; chmod +x "$work/wrapper/bin/nvcc"
wrapper=$work/wrapper/bin/nvcc
echo '__global__ void k(int* p) { *p = 1; }' >"$work/project/k.cu"
cat >"$work/project/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.24)
set(CUARCH_MODULE_INCLUDE_DIR "${CUARCH_ROOT}/include")
include("${CUARCH_ROOT}/cmake/cuarchCudaArchitectures.cmake")
project(cuarch_compiler_binding LANGUAGES CXX)
set(args REQUEST native DEVICE_CC 12.1)
if(COMPILER)
  list(APPEND args COMPILER "${COMPILER}")
endif()
cuarch_resolve_cuda_architectures(CMAKE_CUDA_ARCHITECTURES ${args})
if(SWITCH_TO)  # a project that picks another compiler after asking cuarch
  set(CMAKE_CUDA_COMPILER "${SWITCH_TO}")
endif()
enable_language(CUDA)
EOF
cat >"$work/plain/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.24)
project(cuarch_env_binding LANGUAGES CUDA)
EOF

# Every case runs under this environment plus its own: nothing CUDA-related from the caller.
base_env=(env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT -u CUDACXX -u CUDAARCHS -u CUDAHOSTCXX -u CUARCH_ARCHS
  -u CUARCH_NVCC -u TORCH_CUDA_ARCH_LIST -u NVCC_PREPEND_FLAGS -u NVCC_APPEND_FLAGS "PATH=$work/path12.8:$PATH")
realpath_or() { realpath -m -- "$1"; }
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt" 2>/dev/null | head -n1; }

status=0 ran=0
# name | environment (space-separated K=V, ROOT = the real toolkit root) | -D arguments | expected:
#   bound           configures; the cache's compiler = the helper's named nvcc
#   bound:<path>    the same, and that nvcc is <path> (NVCC, FAKE, WRAPPER substituted)
#   stop:<ERE>[ && <ERE>...]   stops at cuarch's call, the message matching every <ERE> (words,
#                   whitespace squeezed)
cases="seed: 12.8 on PATH, 13.0 in CUDA_HOME|CUDA_HOME=ROOT||bound:NVCC
CUDACXX = the real nvcc|CUDA_HOME=ROOT CUDACXX=NVCC||bound:NVCC
CUDACXX with arguments|CUDA_HOME=ROOT CUDACXX=NVCC~-Xcompiler=-Wall||bound:NVCC
CUDACXX = PATH's 12.8|CUDA_HOME=ROOT CUDACXX=FAKE||stop:decided by nvcc 12\.8\.93 at $fake \(CUDACXX\)
CMAKE_CUDA_COMPILER given|CUDA_HOME=ROOT|-DCMAKE_CUDA_COMPILER=NVCC|bound:NVCC
COMPILER given, no CMAKE_CUDA_COMPILER|CUDA_HOME=ROOT|-DCOMPILER=NVCC|bound:NVCC
COMPILER = a wrapper script of the real nvcc|CUDA_HOME=ROOT|-DCOMPILER=WRAPPER|bound:WRAPPER
COMPILER and CMAKE_CUDA_COMPILER differ|CUDA_HOME=ROOT|-DCOMPILER=NVCC -DCMAKE_CUDA_COMPILER=FAKE|stop:$fake && $nvcc && CMAKE_CUDA_COMPILER
CUDA_PATH set|CUDA_PATH=ROOT||bound
switched after the helper|CUDA_HOME=ROOT|-DSWITCH_TO=WRAPPER|stop:$wrapper.*CMAKE_CUDA_COMPILER"
subst() { local s=${1//NVCC/$nvcc}; s=${s//FAKE/$fake}; s=${s//WRAPPER/$wrapper}; s=${s//ROOT/$real_root}; echo "${s//\~/ }"; }
while IFS='|' read -r name envs defs expect; do
  ran=$((ran + 1))
  b="$work/build-$ran"
  what="CMake $ver, $name"
  e=(); for kv in $envs; do e+=("$(subst "$kv")"); done
  d=(); for kv in $defs; do d+=("$(subst "$kv")"); done
  "${base_env[@]}" "${e[@]}" "$cmake" -S "$work/project" -B "$b" -G Ninja "-DCUARCH_ROOT=$src" \
    "-DCUARCH_RESOLVE_HELPER=$helper" "${d[@]}" >"$b.log" 2>&1
  rc=$?
  log=$(tr -s ' \t\n' ' ' <"$b.log")  # CMake wraps long messages: match words, not lines
  named=$(grep -o 'decided by nvcc [0-9.]* at [^ ]*' <<<"$log" | head -n1 | sed 's/.* at //')
  if [[ $expect == stop:* ]]; then
    first=$(grep -m1 '^CMake Error' "$b.log")
    if [[ $rc -eq 0 ]]; then
      echo "FAIL: $what: expected configure to stop at cuarch's call, it configured with CMAKE_CUDA_COMPILER=$(cache_value "$b" CMAKE_CUDA_COMPILER) (cuarch: $named)"
      status=1; continue
    fi
    if [[ $first != *cuarchCudaArchitectures.cmake* ]]; then
      echo "FAIL: $what: configure stopped outside cuarch's call: $first"; sed 's/^/  /' "$b.log"; status=1; continue
    fi
    missing=""
    while read -r re; do grep -Eq -- "$re" <<<"$log" || missing+=" /$re/"; done < <(sed 's/ && /\n/g' <<<"${expect#stop:}")
    if [[ -n $missing ]]; then
      echo "FAIL: $what: cuarch's message lacks$missing:"; sed 's/^/  /' "$b.log"; status=1; continue
    fi
    echo "ok: $what: stops at cuarch's call: $(grep -o 'CMake Error at [^ ]*cuarchCudaArchitectures.cmake.*' <<<"$log" | cut -c1-300)"
    continue
  fi
  cached=$(cache_value "$b" CMAKE_CUDA_COMPILER)
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: $what: configure failed (cuarch named '$named', the cache has CMAKE_CUDA_COMPILER='$cached'):"
    grep -A12 -m1 '^CMake Error' "$b.log" | sed 's/^/  /'; status=1; continue
  fi
  if [[ -z $named || $(realpath_or "$cached") != $(realpath_or "$named") ]]; then
    echo "FAIL: $what: CMake compiles with CMAKE_CUDA_COMPILER='$cached', cuarch judged '$named'"; status=1; continue
  fi
  want=${expect#bound}; want=${want#:}
  if [[ -n $want && $(realpath_or "$named") != $(realpath_or "$(subst "$want")") ]]; then
    echo "FAIL: $what: cuarch judged '$named', expected $(subst "$want")"; status=1; continue
  fi
  arg1=$(cache_value "$b" CMAKE_CUDA_COMPILER_ARG1)
  if [[ $name == "CUDACXX with arguments" && ${arg1# } != "-Xcompiler=-Wall" ]]; then  # CMake keeps the blank
    echo "FAIL: $what: CUDACXX's arguments are not CMAKE_CUDA_COMPILER_ARG1 ('$arg1'), as CMake would have them"; status=1; continue
  fi
  echo "ok: $what: CMAKE_CUDA_COMPILER=$cached, as judged ($(grep -o 'cuarch: CUDA architectures .*' "$b.log" | head -n1 | cut -c1-300))"
done <<<"$cases"

# `cuarch env --for cmake` in the seed layout: what it prints is what CMake then compiles with.
ran=$((ran + 1))
what="CMake $ver, eval \"\$(cuarch env --for cmake)\" in the seed layout"
b="$work/build-env"
if out=$("${base_env[@]}" "CUDA_HOME=$real_root" "$cli" env --for cmake --device-cc 12.1 2>"$b.err"); then
  "${base_env[@]}" "CUDA_HOME=$real_root" bash -c 'eval "$1" || exit 9; echo "CUDACXX=${CUDACXX-<unset>}"; exec "$2" -S "$3" -B "$4" -G Ninja' \
    _ "$out" "$cmake" "$work/plain" "$b" >"$b.log" 2>&1
  rc=$?
  printed=$(sed -n 's/^CUDACXX=//p' "$b.log" | head -n1)
  cached=$(cache_value "$b" CMAKE_CUDA_COMPILER)
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: $what: configure failed (env printed CUDACXX=$printed):"; sed 's/^/  /' "$b.log"; status=1
  elif [[ $printed == "<unset>" || -z $printed || $(realpath_or "$cached") != $(realpath_or "${printed%% *}") ]]; then
    echo "FAIL: $what: env printed CUDACXX='$printed', CMake compiles with '$cached'"; echo "$out" | sed 's/^/  /'; status=1
  else
    echo "ok: $what: CUDACXX=$printed, CMAKE_CUDA_COMPILER=$cached"
  fi
else
  echo "FAIL: $what: cuarch env failed:"; sed 's/^/  /' "$b.err"; status=1
fi
echo "$ran cases with CMake $ver ($cmake)"
exit $status
