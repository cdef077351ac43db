#!/usr/bin/env bash
# CUARCH_DEVICE_REQUIRE (include/cuarch/device.hpp) with the real nvcc and the real NVRTC: device
# passes for targets that provide a required feature set compile; the others fail with cuarch's
# message naming the requirement and the target being built; the host pass compiles to nothing.
# No GPU needed (nothing runs on a device). Skipped (77) without a CUDA toolkit.
set -u
src="${CUARCH_SOURCE_DIR:?}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc="$cuda/bin/nvcc"
[[ -x "$nvcc" && -f "$cuda/include/nvrtc.h" ]] || { echo "skipped: no CUDA toolkit at $cuda (set CUDA_HOME)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0

cat >"$work/k.cu" <<'CU'
#include <cuarch/device.hpp>
CUARCH_DEVICE_REQUIRE("sm_90a", "sm_100f");
__global__ void k(int* p) {
  CUARCH_DEVICE_REQUIRE("9.0a", "10.0f");
  *p = 1;
}
CU
cat >"$work/nonexistent.cu" <<'CU'
#include <cuarch/device.hpp>
CUARCH_DEVICE_REQUIRE("sm_80a");
CU

# expect <name> <source> <pass|fail> <regex or ''> <nvcc args...>
expect() {
  local name="$1" file="$2" want="$3" regex="$4"
  shift 4
  local out rc
  out="$("$nvcc" -I"$src/include" "$@" -c "$work/$file" -o "$work/out.o" 2>&1)"
  rc=$?
  if [[ "$want" == pass && $rc -ne 0 ]] || [[ "$want" == fail && $rc -eq 0 ]]; then
    echo "FAIL ($name): expected nvcc to $want, rc=$rc"; echo "$out" | head -20; fail=1; return
  fi
  if [[ -n "$regex" ]] && ! grep -Eq "$regex" <<<"$out"; then
    echo "FAIL ($name): output lacks /$regex/"; echo "$out" | head -20; fail=1; return
  fi
  echo "ok ($name): $want"
}

expect sm_90a   k.cu pass '' -gencode=arch=compute_90a,code=sm_90a
expect sm_100a  k.cu pass '' -gencode=arch=compute_100a,code=sm_100a
expect sm_103f  k.cu pass '' -gencode=arch=compute_103f,code=sm_103f
expect sm_90    k.cu fail 'CUARCH_DEVICE_REQUIRE\("sm_90a", "sm_100f"\) is not met by the target being built: __CUDA_ARCH__=900, baseline' \
  -gencode=arch=compute_90,code=sm_90
expect sm_120f  k.cu fail '__CUDA_ARCH__=1200, family-specific \(f\)' -gencode=arch=compute_120f,code=sm_120f
# The fix names the targets the kernel requires, spelled as nvcc flags (not a fixed example target).
expect fix_names_required k.cu fail 'fix: build one of "sm_90a", "sm_100f" too: -gencode=arch=compute_<T>,code=sm_<T>' \
  -gencode=arch=compute_90,code=sm_90
# -arch=sm_90a also embeds compute_90 PTX (a baseline pass): the check refuses that pass.
expect arch_shorthand k.cu fail '__CUDA_ARCH__=900, baseline' -arch=sm_90a
expect nonexistent nonexistent.cu fail 'CUARCH_DEVICE_REQUIRE\("sm_80a"\): a target that does not exist' \
  -gencode=arch=compute_90a,code=sm_90a

# The host pass of a plain C++ compiler: the macro checks spellings and compiles to nothing.
printf '#include <cuarch/device.hpp>\nCUARCH_DEVICE_REQUIRE("sm_90a");\nint main() { return 0; }\n' >"$work/host.cpp"
if "${CXX:-c++}" -std=c++17 -Wall -Wextra -Werror -I"$src/include" "$work/host.cpp" -o "$work/host"; then
  echo "ok (host pass): compiles"
else
  echo "FAIL (host pass): a plain C++ TU including device.hpp does not compile"; fail=1
fi

# NVRTC: the same rules through the real library.
if "${CXX:-c++}" -std=c++17 -Wall -Wextra -I"$cuda/include" "$src/tests/device/nvrtc_device_require.cpp" \
     -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc -o "$work/nvrtc_device_require" 2>"$work/build.log"; then
  "$work/nvrtc_device_require" "$src/include" || fail=1
else
  echo "FAIL (nvrtc): could not build the NVRTC check"; cat "$work/build.log"; fail=1
fi
exit $fail
