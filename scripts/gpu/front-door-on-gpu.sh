#!/usr/bin/env bash
# The front door on a real GPU machine (written for an H200: driver 580, CUDA 13.0), with binaries
# built elsewhere (no build here: a device call is short), so one call checks:
#  (a) `cuarch resolve --archs native` through NVML: sm_90a on an H200, no warning, exit 0;
#  (b) the C++ front door (tests/front_door_driver) gives the same document for the same request;
#  (c) the seed on this machine: a fake nvcc 12.8 first on PATH, CUDA_HOME at the real 13.0: the answer
#      stands, with a tool_compiler_disagrees warning, and following its fix leaves none;
#  (d) `cuarch doctor` reads the devices through NVML and reports no problem.
# Prints one PASS/FAIL line per check; exit 1 if any failed, 77 ("skipped: no GPU") without NVML.
#
#   CUARCH_CLI=build/cuarch CUARCH_FRONT_DOOR_DRIVER=build/tests/front_door_driver \
#     bash scripts/gpu/front-door-on-gpu.sh
# Outputs go to $OUT/front-door-on-gpu/ when OUT is set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${OUT:+$OUT/front-door-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
cli="${CUARCH_CLI:?CUARCH_CLI: a built cuarch}"
driver="${CUARCH_FRONT_DOOR_DRIVER:?CUARCH_FRONT_DOOR_DRIVER: a built tests/front_door_driver}"
failures=0
say() { printf '%s\n' "$*" | tee -a "$work/summary.txt"; }
check() { if eval "$2"; then say "PASS: $1"; else say "FAIL: $1"; failures=$((failures + 1)); fi; }

if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then say "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi
"$cli" doctor >"$work/doctor.txt" 2>&1
"$cli" resolve --archs native --format json >"$work/native.json" 2>"$work/native.err"
native_rc=$?
"$driver" archs=native >"$work/driver.json" 2>"$work/driver.err"
driver_rc=$?
targets() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(t["name"] for t in d["targets"]) if d["ok"] else d["error"]["code"], sorted(w["kind"] for w in d.get("warnings", [])))' "$1"; }
check "native through NVML: exit 0, $(targets "$work/native.json" 2>/dev/null)" '[[ $native_rc == 0 ]] && grep -q sm_90a "$work/native.json"'
check "the C++ front door agrees with the command line" '[[ $driver_rc == $native_rc && "$(targets "$work/driver.json")" == "$(targets "$work/native.json")" ]]'
check "the doctor reads the devices through NVML" 'grep -q "NVML" "$work/doctor.txt"'

# The seed: a fake nvcc 12.8 first on PATH, the real 13.0 in CUDA_HOME.
cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
fake="$work/fake-bin"
mkdir -p "$fake" && ln -sf "$root/tests/fixtures/fake-nvcc/nvcc-12.8" "$fake/nvcc"
PATH="$fake:/usr/bin:/bin" CUDA_HOME="$cuda" "$cli" resolve --archs 12.0f >"$work/seed.out" 2>"$work/seed.err"
seed_rc=$?
check "the seed: sm_120f by CUDA_HOME's nvcc, with the PATH warning" '[[ $seed_rc == 0 ]] && grep -q "tool_compiler_disagrees" "$work/seed.err"'
PATH="$cuda/bin:$fake:/usr/bin:/bin" CUDA_HOME="$cuda" "$cli" resolve --archs 12.0f >"$work/fixed.out" 2>"$work/fixed.err"
fixed_rc=$?
check "the fix followed: no warning" '[[ $fixed_rc == 0 ]] && ! grep -q "warning:" "$work/fixed.err"'
say "outputs in $work"
exit $((failures > 0))
