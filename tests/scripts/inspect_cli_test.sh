#!/usr/bin/env bash
# cuarch inspect on the command line (issue 32): an error said once; with no device known and none
# named, the files are listed and nothing is judged (exit 0, or 2 for a file it cannot read); and
# fixes applied for real: a few corpus forms are built with nvcc 13.0, judged where they fail, and
# built again with each fix's targets (or judged under its driver) until they load. Ways that need
# another CUDA major to build (fix_ways[].build_major) are applied by tests/inspect_test.cpp alone.
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
data="$src/tests/data/inspect"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

# A missing file: its error once, in the report (stdout), not again on stderr.
"$cli" inspect "$work/missing.so" --device-cc 9.0 >"$work/out" 2>"$work/err"; rc=$?
check "missing file: exit 2" '[[ $rc == 2 ]]'
check "missing file: said once" '[[ $(cat "$work/out" "$work/err" | grep -c "missing.so") == 1 ]]'

# No device visible and none named: list, judge nothing, say so.
head -c 3000 "$data/sm_90.o" >"$work/cut.o"
CUDA_VISIBLE_DEVICES= "$cli" inspect "$data/sm_80.o" >"$work/out" 2>"$work/err"; rc=$?
if grep -q '^  cc ' "$work/out"; then
  echo "skip no-device checks: a device is visible despite CUDA_VISIBLE_DEVICES="
else
  check "no device: exit 0 ($(cat "$work/err"))" '[[ $rc == 0 ]]'
  check "no device: listed" 'grep -q "sm_80.o: elf, 1 code object" "$work/out"'
  check "no device: nothing judged, said" 'grep -q "^nothing judged" "$work/out"'
  CUDA_VISIBLE_DEVICES= "$cli" inspect "$data/sm_80.o" "$work/cut.o" >"$work/out" 2>&1; rc=$?
  check "no device, a cut file: exit 2" '[[ $rc == 2 ]]'
  check "no device, a cut file: reported" 'grep -q "cut.o: unreadable" "$work/out"'
  CUDA_VISIBLE_DEVICES= "$cli" inspect "$data/sm_80.o" --format json >"$work/out" 2>/dev/null
  check "no device: JSON ok, no devices" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"ok\"] and d[\"devices\"]==[] and d[\"files\"][0][\"has_cuda_code\"]" "$work/out"'
fi

# Every fix works, built for real.
if [[ ! -x $nvcc ]] || ! "$nvcc" --version | grep -q 'release 13\.0'; then
  echo "SKIPPED the rebuilds: no nvcc 13.0 at $nvcc (set CUARCH_TEST_NVCC)"
  exit $((fail ? 1 : 0))
fi
echo '__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }' >"$work/k.cu"
# args | device | driver
while IFS='|' read -r args device driver; do
  (cd "$work" && eval "\"$nvcc\" -c k.cu $args -o a.o") || { echo "FAIL nvcc $args"; fail=1; continue; }
  "$cli" inspect "$work/a.o" --device-cc "$device" --driver "$driver" --format json >"$work/a.json"
  # One line per way: "driver|extra nvcc flags", or "skip" for a build with another major.
  python3 - "$work/a.json" >"$work/ways" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["files"][0]["devices"][0]
assert d["verdict"] == "cannot_load", d["verdict"]
for way in d["failing"][0]["fix_ways"]:
    if way["build_major"] is not None:
        print("skip"); continue
    flags = []
    for t in way["add"]:
        n = t.split("_", 1)[1]
        flags.append(f"-gencode arch=compute_{n},code={t}")
    print(f"{way['driver'] or ''}|{' '.join(flags)}")
PY
  [[ -s $work/ways ]] || { echo "FAIL $args on $device/$driver: no fix ways"; fail=1; }
  while IFS='|' read -r way_driver flags; do
    [[ $way_driver == skip ]] && continue
    (cd "$work" && eval "\"$nvcc\" -c k.cu $args $flags -o b.o") || { echo "FAIL nvcc $args $flags"; fail=1; continue; }
    "$cli" inspect "$work/b.o" --device-cc "$device" --driver "${way_driver:-$driver}" >"$work/out" 2>&1; rc=$?
    check "$args on cc $device under $driver, fixed by [${way_driver:+driver $way_driver}${flags}]: loads" '[[ $rc == 0 ]] || { cat "$work/out"; false; }'
  done <"$work/ways"
done <<'CASES'
-gencode arch=compute_80,code=sm_80|7.5|13.0
-gencode arch=compute_90,code=compute_90|10.0|12.8
-gencode arch=compute_100a,code=sm_100a|10.3|13.0
-arch=sm_90 --no-compress|9.0|12.9
-gencode arch=compute_120,code=[sm_120,compute_120]|8.6|13.0
CASES
exit $((fail ? 1 : 0))
