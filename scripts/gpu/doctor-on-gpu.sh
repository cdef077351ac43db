#!/usr/bin/env bash
# `cuarch doctor` on a real GPU machine (written for an H200: cc 9.0, driver 580, CUDA 13.0 at
# /usr/local/cuda): builds the command line there, runs `cuarch doctor` and `cuarch doctor --json`,
# and checks that the report has
#   - the driver (libcuda.so.1) with its cuDriverGetVersion, equal to nvidia-smi's "CUDA Version",
#   - the CUDA runtime (cudaRuntimeGetVersion) and NVRTC (nvrtcVersion, its supported archs),
#   - every GPU nvidia-smi lists, with its compute capability (cc 9.0 expected: CUARCH_EXPECT_CC),
#   - no device the governing JIT compiler cannot build for,
# then runs it once more with CUDA_VISIBLE_DEVICES="" (the driver hides every GPU: a typed
# no_device error, never a default arch) and with --device-cc 12.0 (a list that is not this GPU).
#
# Run from the repository root:  bash scripts/gpu/doctor-on-gpu.sh
# Outputs (text, JSON, build log, summary) go to $OUT/doctor-on-gpu/ when OUT is set.
#
# Building: CMake's cuarch_cli target when CMake and fmt are there; otherwise g++ directly, with fmt
# as header-only from (first found) $FMT_INCLUDE_DIR, build-gpu-deps/include, /usr/include. A
# machine without fmt and without network can be given fmt's headers from this checkout's machine:
#   bash scripts/gpu/doctor-on-gpu.sh --stage-deps   # copies fmt's headers into build-gpu-deps/
# and build-gpu-deps then travels with the tree (it is git-ignored: name it among the carried paths).
# Exit status: 0 every check passed; 1 a check failed; 2 could not build, or no GPU.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2

if [[ "${1:-}" == "--stage-deps" ]]; then
  src="${FMT_INCLUDE_DIR:-/usr/include}"
  [[ -f "$src/fmt/format-inl.h" ]] || { echo "doctor-on-gpu: no fmt headers (with format-inl.h) in $src" >&2; exit 2; }
  mkdir -p build-gpu-deps/include
  rm -rf build-gpu-deps/include/fmt
  cp -r "$src/fmt" build-gpu-deps/include/fmt
  echo "doctor-on-gpu: staged fmt headers from $src in build-gpu-deps/include/fmt (carry build-gpu-deps)" >&2
  exit 0
fi

out="${OUT:+$OUT/doctor-on-gpu}"
work="${out:-$(mktemp -d)}"
mkdir -p "$work"
bin="$(mktemp -d)"
expect_cc="${CUARCH_EXPECT_CC:-9.0}"
log() { printf 'doctor-on-gpu: %s\n' "$*" | tee -a "$work/summary.txt" >&2; }

# ---- the machine, as NVIDIA's own tools see it ----------------------------------------------------
cuda="${CUDA_HOME:-/usr/local/cuda}"
{
  echo "== nvidia-smi"; nvidia-smi 2>&1 | head -n 12
  echo "== nvidia-smi --query-gpu"; nvidia-smi --query-gpu=index,name,compute_cap,driver_version --format=csv 2>&1
  echo "== nvcc"; "$cuda/bin/nvcc" --version 2>&1 | tail -n 2
  echo "== c++"; "${CXX:-c++}" --version 2>&1 | head -n 1
  echo "== cmake"; cmake --version 2>&1 | head -n 1
} >"$work/machine.txt"
cat "$work/machine.txt" >&2
smi_ccs="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' ')"
smi_cuda="$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
if [[ -z "$smi_ccs" ]]; then
  log "error: nvidia-smi lists no GPU: this script is for the GPU machine"
  exit 2
fi

# ---- build ----------------------------------------------------------------------------------------
cli=""
build_cmake() {
  command -v cmake >/dev/null 2>&1 || { echo "no cmake" >>"$work/build.log"; return 1; }
  local dir="$bin/build"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCUARCH_BUILD_TESTS=OFF -DCUARCH_BUILD_EXAMPLES=ON -DCUARCH_INSTALL=OFF \
    >>"$work/build.log" 2>&1 || return 1
  cmake --build "$dir" --target cuarch_cli -j "$(nproc 2>/dev/null || echo 2)" >>"$work/build.log" 2>&1 || return 1
  [[ -x "$dir/cuarch" ]] && "$dir/cuarch" doctor --help >/dev/null 2>&1 || return 1  # the doctor is in it
  cli="$dir/cuarch"
}
build_direct() {  # g++ on tools/cuarch/*.cpp; fmt from a library, or header-only
  local cxx="${CXX:-}" inc=""
  if [[ -z "$cxx" ]]; then for c in g++ c++ clang++; do command -v "$c" >/dev/null 2>&1 && { cxx="$c"; break; }; done; fi
  [[ -n "$cxx" ]] || { echo "no C++ compiler" >>"$work/build.log"; return 1; }
  local fmt_flags=()
  for d in "${FMT_INCLUDE_DIR:-}" "$root/build-gpu-deps/include" /usr/include /usr/local/include; do
    [[ -n "$d" && -f "$d/fmt/format-inl.h" ]] && { inc="$d"; break; }
  done
  if [[ -n "$inc" ]]; then
    fmt_flags=(-DFMT_HEADER_ONLY -I"$inc")  # needs no libfmt at all
  elif [[ -f /usr/include/fmt/core.h ]]; then
    fmt_flags=(-lfmt)
  else
    echo "no fmt headers (run --stage-deps where fmt is installed, and carry build-gpu-deps)" >>"$work/build.log"
    return 1
  fi
  echo "== $cxx -std=c++17 -O2 ... ${fmt_flags[*]}" >>"$work/build.log"
  "$cxx" -std=c++17 -O2 -Wall -Wextra -Iinclude tools/cuarch/*.cpp "${fmt_flags[@]}" -ldl -o "$bin/cuarch" >>"$work/build.log" 2>&1 || return 1
  cli="$bin/cuarch"
}
if [[ -n "${CUARCH_CLI:-}" && -x "${CUARCH_CLI}" ]]; then
  cli="$CUARCH_CLI"  # already built (scripts/gpu/all-on-gpu.sh)
  log "using the cuarch command line at $cli"
elif log "building the cuarch command line (CMake first)" && ! build_cmake; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1 && ! dpkg -s libfmt-dev >/dev/null 2>&1; then
    log "CMake build failed; trying apt-get install libfmt-dev (bounded: the machine may be offline)"
    timeout 120 apt-get install -y -q --no-install-recommends libfmt-dev >>"$work/build.log" 2>&1 && build_cmake
  fi
fi
if [[ -z "$cli" ]]; then
  log "CMake build unavailable; building with the compiler directly"
  build_direct
fi
if [[ -z "$cli" ]]; then
  tail -n 40 "$work/build.log" >&2
  log "error: could not build the cuarch command line (log: $work/build.log)"
  exit 2
fi
log "built $cli"

# ---- run ------------------------------------------------------------------------------------------
"$cli" doctor >"$work/doctor.txt" 2>"$work/doctor.err"; rc_text=$?
"$cli" doctor --json >"$work/doctor.json" 2>>"$work/doctor.err"; rc_json=$?
CUDA_VISIBLE_DEVICES="" "$cli" doctor --json >"$work/doctor-hidden.json" 2>>"$work/doctor.err"; rc_hidden=$?
"$cli" doctor --device-cc 12.0 >"$work/doctor-device-12.0.txt" 2>>"$work/doctor.err"; rc_given=$?
cat "$work/doctor.txt" >&2
failed=0
for pair in "doctor:$rc_text" "doctor --json:$rc_json" "CUDA_VISIBLE_DEVICES= doctor --json:$rc_hidden" "doctor --device-cc 12.0:$rc_given"; do
  [[ "${pair##*:}" == 0 ]] || { log "FAIL: cuarch ${pair%:*} exited ${pair##*:}"; failed=1; }
done

# ---- checks ---------------------------------------------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
  python3 - "$work" "$expect_cc" "$smi_cuda" "$smi_ccs" <<'PY' 2>&1 | tee -a "$work/summary.txt" >&2
import json, sys
work, expect_cc, smi_cuda, smi_ccs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
failed = []
def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failed.append(what)
r = json.load(open(f"{work}/doctor.json"))
cands = r["candidates"]
def role(name):
    i = r["roles"][name]["candidate"]
    return cands[i] if i is not None else None
drv, rt, jit = role("driver"), role("runtime"), role("jit_compiler")
check(drv is not None and drv["version"] and "cuDriverGetVersion" in drv["raw"],
      f"driver reported: {drv and drv['version']} from {drv and drv['path']} ({drv and drv['raw']})")
if smi_cuda and drv:
    check(drv["version"] == smi_cuda, f"driver's CUDA version {drv['version']} == nvidia-smi's 'CUDA Version: {smi_cuda}'")
check(rt is not None and rt["version"] and "cudaRuntimeGetVersion" in rt["raw"],
      f"CUDA runtime reported: {rt and rt['version']} from {rt and rt['path']}")
check(jit is not None and jit["source"] == "NVRTC" and jit["version"] and jit["supported_sm_numbers"],
      f"NVRTC reported: {jit and jit['version']} from {jit and jit['path']}, supported {jit and jit['supported_sm_numbers']}")
devs = r["devices"]["driver"]
check(isinstance(devs, list) and len(devs) == len(smi_ccs), f"driver devices: {devs}; nvidia-smi: {smi_ccs}")
if isinstance(devs, list):
    check(sorted(d["cc"] for d in devs) == sorted(smi_ccs), "device compute capabilities match nvidia-smi")
    check(any(d["cc"] == expect_cc and d["source"] == "driver" for d in devs), f"a device of cc {expect_cc} reported by the driver")
    check(all(d["name"] for d in devs), "every device has its name: " + ", ".join(d["name"] for d in devs))
    if jit and jit["supported_sm_numbers"]:
        sm = int(expect_cc.replace(".", ""))
        check(sm in jit["supported_sm_numbers"], f"NVRTC lists sm_{sm}")
kinds = {f["kind"] for f in r["findings"]}
check("device_not_buildable" not in kinds or not any(f["kind"] == "device_not_buildable" and f["what"].startswith("JIT") for f in r["findings"]),
      "the JIT compiler can build every device")
check(r["roles"]["jit_compiler"]["why"] != "" and r["roles"]["driver"]["why"] != "", "roles say why")
h = json.load(open(f"{work}/doctor-hidden.json"))
eff = h["devices"]["effective"]
check(isinstance(eff, dict) and eff["error"]["code"] == "no_device" and "CUDA_VISIBLE_DEVICES" in eff["error"]["raw"],
      f"CUDA_VISIBLE_DEVICES=\"\": a no_device error naming it: {eff}")
given = open(f"{work}/doctor-device-12.0.txt").read()
check("given_devices_vs_driver" in given, "--device-cc 12.0 on this GPU: flagged as not what the driver shows")
print(f"{len(failed)} check(s) failed" if failed else "all checks passed")
sys.exit(1 if failed else 0)
PY
  [[ "${PIPESTATUS[0]}" == 0 ]] || failed=1
else
  log "no python3: checking with grep only"
  grep -q '"cuDriverGetVersion: ' "$work/doctor.json" || { log "FAIL: no driver version"; failed=1; }
  grep -q '"cudaRuntimeGetVersion: ' "$work/doctor.json" || { log "FAIL: no runtime version"; failed=1; }
  grep -q '"nvrtcVersion: ' "$work/doctor.json" || { log "FAIL: no NVRTC version"; failed=1; }
  grep -q "\"cc\":\"$expect_cc\",\"name\":\"[^\"]*\",\"source\":\"driver\"" "$work/doctor.json" || { log "FAIL: no cc $expect_cc device"; failed=1; }
fi

if [[ "$failed" == 0 ]]; then
  log "all checks passed (outputs in $work)"
  exit 0
fi
log "some checks failed (outputs in $work)"
exit 1
