#!/usr/bin/env bash
# cuarch inspect against the live tools (issue 19: the real tool is the oracle): a sample of the forms
# of tests/data/inspect/corpus.tsv is built again with this machine's nvcc, and cuobjdump's listing
# of each fresh artefact (`cuobjdump -all`: kind, arch with a/f, code version, compressed) must equal
# what `cuarch inspect --format json` lists, image by image, in order. The whole corpus is checked
# offline by tests/inspect_test.cpp; scripts/toolkits/record-inspect-corpus.sh re-records it.
# Skipped (exit 77) without nvcc 13.0. cuobjdump: CUARCH_TEST_CUOBJDUMP, else next to nvcc, else
# cuobjdump 13.2.51's wheel in ~/.cache/cuarch/cuobjdump, fetched there on the first run
# (scripts/toolkits/fetch-tool-wheels.sh --cuobjdump, sha256-pinned); skipped, visibly, only when it is
# not cached and cannot be fetched (offline, or CUARCH_OFFLINE=1).
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
if [[ ! -x $nvcc ]]; then echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; fi
if ! "$nvcc" --version | grep -q 'release 13\.0'; then echo "SKIPPED: $nvcc is not CUDA 13.0 (the corpus records 13.0)"; exit 77; fi
cuobjdump="${CUARCH_TEST_CUOBJDUMP:-$(dirname "$nvcc")/cuobjdump}"
if [[ -z ${CUARCH_TEST_CUOBJDUMP:-} && ! -x $cuobjdump ]]; then
  fetch="$src/scripts/toolkits/fetch-tool-wheels.sh"
  cuobjdump=$(bash "$fetch" --cuobjdump)
  rc=$?
  ((rc == 77)) && { echo "SKIPPED: no cuobjdump, and it cannot be fetched ($fetch --cuobjdump, above)"; exit 77; }
  ((rc == 0)) || { echo "FAIL: $fetch --cuobjdump exit $rc"; exit 1; }
fi
if [[ ! -x $cuobjdump ]]; then echo "FAIL: cuobjdump $cuobjdump is not executable"; exit 1; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo '__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }' >"$work/k.cu"
fail=0 n=0
# Every third form of the corpus (fatbins, objects, libraries); bare cubins and PTX are the offline test's.
while IFS=$'\t' read -r name args _; do
  [[ $name == \#* || $name == *.cubin || $name == *.ptx || $name == exe_* || $name == host_only.o ]] && continue
  n=$((n + 1)); ((n % 3 == 1)) || continue
  # shellcheck disable=SC2086
  if ! (cd "$work" && eval "\"$nvcc\" $args -o \"$name\"") >"$work/log" 2>&1; then
    echo "FAIL: nvcc $args: $(head -3 "$work/log")"; fail=1; continue
  fi
  theirs=$("$cuobjdump" -all "$work/$name" 2>/dev/null | awk '
    /^Fatbin (elf|ptx|nvvm) code:/ { if (w != "") out = out " " w; w = $2; next }
    /^arch = / { w = w ":" $3; next }
    /^code version = / { v = $4; gsub(/[][]/, "", v); sub(/,/, ".", v); w = w ":" v; next }
    /^compressed$/ { w = w ":z"; next }
    END { if (w != "") out = out " " w; sub(/^ /, "", out); print out }')
  ours=$("$cli" inspect --format json --device-cc 9.0 --driver 13.0 "$work/$name" | python3 -c '
import json, sys
f = json.load(sys.stdin)["files"][0]
print(" ".join({"sass": "elf", "ptx": "ptx", "lto": "nvvm"}[i["kind"]] + ":sm_" + i["target"].split("_", 1)[1] + ":" +
               i["code_version"] + (":z" if i["compressed"] else "") for o in f["code_objects"] for i in o["images"]))')
  if [[ $ours == "$theirs" ]]; then echo "ok   $name: $ours"; else echo "FAIL $name ($args): cuarch '$ours', cuobjdump '$theirs'"; fail=1; fi
done <"$src/tests/data/inspect/corpus.tsv"
exit $fail
