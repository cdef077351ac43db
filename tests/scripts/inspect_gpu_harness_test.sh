#!/usr/bin/env bash
# The GPU check's own reader (scripts/gpu/inspect-launch.py, run by scripts/gpu/inspect-on-gpu.sh on
# the GPU machine only) still reads every binary it will be given there: on each file of
# tests/data/inspect (nvcc 13.0, nvcc-12.4, ptxas-12.8) and tests/data/inspect-gpu, its reader (no
# CUDA needed) must run, and find CUDA code exactly where `cuarch inspect` does. So a corpus file the
# harness cannot read fails here, on every build, not on the day the GPU is borrowed.
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null || { echo "SKIPPED: no python3"; exit 77; }
files=()
for f in "$src"/tests/data/inspect/* "$src"/tests/data/inspect/*/* "$src"/tests/data/inspect-gpu/*; do
  [[ -f $f && $f != */corpus.tsv ]] && files+=("$f")
done
"$cli" inspect --format json --device-cc 9.0 --driver 13.0 "${files[@]}" >"${TMPDIR:-/tmp}/inspect_gpu_harness.$$.json"
python3 - "$src/scripts/gpu/inspect-launch.py" "${TMPDIR:-/tmp}/inspect_gpu_harness.$$.json" "$src" <<'PY'
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("inspect_launch", sys.argv[1])
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)
doc = json.load(open(sys.argv[2]))
fail = 0
for f in doc["files"]:
    name = os.path.relpath(f["path"], sys.argv[3])
    try:
        found = harness.pieces(f["path"])
    except Exception as e:  # the harness must read every file it will be given
        print(f"FAIL {name}: inspect-launch.py cannot read it: {e!r}"); fail = 1; continue
    if bool(found) != f["has_cuda_code"]:
        print(f"FAIL {name}: cuarch has_cuda_code {f['has_cuda_code']}, harness found {[(m, len(p)) for m, p in found]}"); fail = 1
print(f"{len(doc['files'])} binaries read by the GPU harness" + ("" if fail else ", CUDA code where cuarch finds it"))
sys.exit(fail)
PY
rc=$?
rm -f "${TMPDIR:-/tmp}/inspect_gpu_harness.$$.json"
exit $rc
