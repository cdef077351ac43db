#!/usr/bin/env bash
# cuarch inspect on real wheels no one here wrote (issues 19, 32): every image of every *.so* and *.a in
# a small pinned set of PyPI wheels must equal cuobjdump's listing, in order
# (scripts/toolkits/compare-inspect-real.sh): CuPy 14.2.0's cupy-cuda13x and cupy-cuda12x (130 files, 6
# with CUDA code: cub, thrust, _generator_api), and NVIDIA's CUDA runtime (libcudadevrt.a) and nvJPEG
# (libnvjpeg.so) wheels for CUDA 13 and 12, whose images are compressed with flag 0x8000 (CUDA 13) and
# 0x2000 (CUDA 12). 139 files, 10 with CUDA code, 29 code objects, 376 images; 5.5–8 s on a warm cache here.
# The set (222 MB, sha256-pinned) and cuobjdump 13.2.51 are fetched into ~/.cache/cuarch on the first
# run (scripts/toolkits/fetch-tool-wheels.sh --inspect small, --cuobjdump) and reused after.
# Skipped (exit 77), visibly, only when they are not cached and cannot be fetched (offline, or
# CUARCH_OFFLINE=1); a download whose sha256 differs fails. CUARCH_TEST_CUOBJDUMP picks a cuobjdump.
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
fetch="$src/scripts/toolkits/fetch-tool-wheels.sh"
cache=$(bash "$fetch" --inspect small)
rc=$?
((rc == 77)) && { echo "SKIPPED: the pinned wheels cannot be fetched ($fetch --inspect small, above)"; exit 77; }
((rc == 0)) || { echo "FAIL: $fetch --inspect small exit $rc"; exit 1; }
cuobjdump="${CUARCH_TEST_CUOBJDUMP:-}"
if [[ -z $cuobjdump ]]; then
  cuobjdump=$(bash "$fetch" --cuobjdump)
  rc=$?
  ((rc == 77)) && { echo "SKIPPED: no cuobjdump, and it cannot be fetched ($fetch --cuobjdump, above)"; exit 77; }
  ((rc == 0)) || { echo "FAIL: $fetch --cuobjdump exit $rc"; exit 1; }
fi
[[ -x $cuobjdump ]] || { echo "FAIL: cuobjdump $cuobjdump is not executable"; exit 1; }
dirs=()
for d in cupy_cuda13x-14.2.0 cupy_cuda12x-14.2.0 nvidia_cuda_runtime-13.5.37 nvidia_cuda_runtime_cu12-12.9.79 \
  nvidia_nvjpeg-13.3.2.43 nvidia_nvjpeg_cu12-12.4.0.76; do
  dirs+=("$cache/$d")
done
out=$(bash "$src/scripts/toolkits/compare-inspect-real.sh" --cuarch "$cli" --cuobjdump "$cuobjdump" "${dirs[@]}")
rc=$?
echo "$out" | grep -v '^same  *0 images'
# A comparison that found no CUDA code proves nothing: the wheels must still hold what was counted.
expected='139/139 files agree (10 with CUDA code: 29 code objects, 376 images)'
if [[ $rc -eq 0 ]] && ! echo "$out" | grep -qF "$expected"; then
  echo "FAIL: expected '$expected', as recorded in docs/inspect.md"
  exit 1
fi
exit $rc
