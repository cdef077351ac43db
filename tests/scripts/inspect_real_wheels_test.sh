#!/usr/bin/env bash
# cuarch inspect on real wheels no one here wrote (issue 19): every image of every *.so* in CuPy
# 14.2.0's cupy-cuda13x and cupy-cuda12x wheels (130 files, 6 with CUDA code, 63 images) must equal
# cuobjdump's listing, in order (scripts/toolkits/compare-inspect-real.sh; ~3 s). The NVIDIA library
# wheels are compared by hand (docs/inspect.md): too large for every build.
# Skipped (exit 77) when the wheels are not cached (scripts/toolkits/fetch-tool-wheels.sh --inspect
# cupy puts them in ~/.cache/cuarch/wheels-inspect) or no cuobjdump is (CUARCH_TEST_CUOBJDUMP, or the
# wheel under ~/.cache/cuarch/cuobjdump, as scripts/toolkits/record-nvcc-flags.sh says).
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cache="${CUARCH_CACHE:-$HOME/.cache/cuarch}/wheels-inspect"
cuobjdump="${CUARCH_TEST_CUOBJDUMP:-$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1)}"
dirs=("$cache/cupy_cuda13x-14.2.0" "$cache/cupy_cuda12x-14.2.0")
for d in "${dirs[@]}"; do
  [[ -d $d ]] || { echo "SKIPPED: $d is not cached (scripts/toolkits/fetch-tool-wheels.sh --inspect cupy)"; exit 77; }
done
[[ -x $cuobjdump ]] || { echo "SKIPPED: no cuobjdump (set CUARCH_TEST_CUOBJDUMP)"; exit 77; }
out=$(bash "$src/scripts/toolkits/compare-inspect-real.sh" --cuarch "$cli" --cuobjdump "$cuobjdump" "${dirs[@]}")
rc=$?
echo "$out" | grep -v '^same  *0 images'
# A comparison that found no CUDA code proves nothing: the wheels must still hold their 6 code objects.
if [[ $rc -eq 0 ]] && ! echo "$out" | grep -q '^130/130 files agree (6 with CUDA code: 6 code objects, 63 images)'; then
  echo "FAIL: expected 130 files, 6 with CUDA code (6 code objects, 63 images), as recorded in docs/inspect.md"
  exit 1
fi
exit $rc
