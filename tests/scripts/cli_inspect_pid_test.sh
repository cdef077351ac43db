#!/usr/bin/env bash
# `cuarch inspect --pid PID` (issue 36, item 3): what a running process has mapped as code, judged
# before its first launch. A `sleep` with an nvcc 13.0 library preloaded (its kernel: sm_90a, with
# compute_90a PTX) is read through /proc/PID/maps: the library is listed with its verdict per
# device, the rest (sleep, libc, the CUDA runtime) counted as holding no CUDA code; the JSON is
# cuarch.inspect/1. A PID that is not a number, given with files, or of no process is an error
# naming it. Environment: CUARCH_CLI, CUARCH_SOURCE_DIR. Exit 77 when the CLI or CUDA 13's runtime
# (which the library needs to load) is absent.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
runtime=/usr/local/cuda/lib64
lib="$src/tests/data/inspect/libk_sm_90a.so"
[[ -e $runtime/libcudart.so.13 ]] || { echo "skipped: no CUDA 13 runtime in $runtime to load $lib with" >&2; exit 77; }
LD_LIBRARY_PATH=$runtime LD_PRELOAD=$lib sleep 60 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q libk_sm_90a "/proc/$pid/maps" 2>/dev/null && break; sleep 0.1; done
failures=0
check() {  # <what> <condition...>
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what; exit $rc; out: $(head -c 800 "$work/out"); err: $(head -c 400 "$work/err")" >&2; failures=$((failures + 1)); fi
}
"$cli" inspect --pid "$pid" --device-cc 9.0,8.0 --driver 13.0 >"$work/out" 2>"$work/err"
rc=$?
check "text: the preloaded library, loads on 9.0, CANNOT LOAD on 8.0, exit 1" \
  bash -c "[[ $rc == 1 ]] && grep -q '^$lib: elf, 1 code object' '$work/out' && grep -q 'cc 9.0: loads' '$work/out' &&
           grep -q 'cc 8.0: CANNOT LOAD' '$work/out' && grep -q 'files have no CUDA code' '$work/out'"
"$cli" inspect --pid "$pid" --device-cc 9.0 --driver 13.0 --format json >"$work/out" 2>"$work/err"
rc=$?
check "json: cuarch.inspect/1, the program first, the library with its verdict, exit 0" python3 - "$work/out" "$lib" "$rc" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
paths = [f["path"] for f in doc["files"]]
code = [f for f in doc["files"] if f["has_cuda_code"]]
ok = (doc["schema"] == "cuarch.inspect/1" and sys.argv[3] == "0" and os.path.basename(paths[0]) == "sleep"
      and [f["path"] for f in code] == [sys.argv[2]] and code[0]["devices"][0]["verdict"] == "loads")
sys.exit(0 if ok else 1)
PY
"$cli" inspect --pid x >"$work/out" 2>"$work/err"
rc=$?
check "--pid x: usage, exit 2" bash -c "[[ $rc == 2 ]] && grep -q \"takes a process ID (a positive number), not 'x'\" '$work/err'"
"$cli" inspect --pid "$pid" "$lib" >"$work/out" 2>"$work/err"
rc=$?
check "--pid with files: usage, exit 2" bash -c "[[ $rc == 2 ]] && grep -q 'or --pid, not both' '$work/err'"
"$cli" inspect --pid 4194321 --device-cc 9.0 >"$work/out" 2>"$work/err"
rc=$?
check "no such process: exit 1, /proc/PID/maps named, and why" \
  bash -c "[[ $rc == 1 ]] && grep -q '/proc/4194321/maps.*no process 4194321 is running here' '$work/err'"
[[ $failures == 0 ]] || exit 1
echo "all passed"
