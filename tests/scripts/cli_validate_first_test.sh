#!/usr/bin/env bash
# The command line validates the request before it detects, loads or runs anything: a malformed
# token is exit 2 at once, even on a machine whose toolkits would hang or crash a probe. Here every
# place detection would look is hostile: CUDA_HOME and PATH hold an nvcc that sleeps 30 s, and
# LD_LIBRARY_PATH holds a libnvrtc.so.13 (and .12) whose loading kills the process with SIGSEGV.
# Each bad request must exit 2 within 2 s, with the reason naming the bad input.
# Environment: CUARCH_CLI (the built command line), CC or CXX (to build the crashing library; without
# a compiler only the hanging-nvcc half runs). Exit 77 (skipped) when the command line is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timing_bound.sh"  # prompt_bound_ms: bounds that hold under load
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
failures=0

# A toolkit whose nvcc hangs (30 s, longer than any bound asserted here).
mkdir -p "$work/cuda/bin" "$work/lib"
printf '#!/bin/sh\nsleep 30\necho "Cuda compilation tools, release 12.8, V12.8.93"\n' >"$work/cuda/bin/nvcc"
chmod +x "$work/cuda/bin/nvcc"
# An NVRTC whose constructor crashes the process that loads it.
crashing_nvrtc=0
compiler="${CC:-${CXX:-}}"
if [[ -z "$compiler" ]]; then for c in cc gcc c++ g++ clang; do command -v "$c" >/dev/null 2>&1 && { compiler="$c"; break; }; done; fi
if [[ -n "$compiler" ]]; then
  printf '#include <signal.h>\n__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }\nint nvrtcVersion(int* a, int* b) { *a = 13; *b = 0; return 0; }\n' >"$work/crash.c"
  if "$compiler" -x c -shared -fPIC -o "$work/lib/libnvrtc.so.13" "$work/crash.c" 2>"$work/cc.log"; then
    cp "$work/lib/libnvrtc.so.13" "$work/lib/libnvrtc.so.12"
    cp "$work/lib/libnvrtc.so.13" "$work/lib/libnvrtc.so"
    crashing_nvrtc=1
  else
    echo "note: could not build the crashing libnvrtc ($compiler); testing the hanging nvcc only" >&2
    sed 's/^/  /' "$work/cc.log" >&2
  fi
fi

# fast_usage_error WANT_TEXT -- ARGS...: runs `cuarch ARGS` in the hostile environment; exit 2 in < 2 s.
fast_usage_error() {
  local want_text="$1"; shift 2
  local start end rc
  start=$(date +%s%N)
  (env CUDA_HOME="$work/cuda" PATH="$work/cuda/bin:$PATH" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout 20 "$cli" "$@" >"$work/out" 2>"$work/err") 2>/dev/null  # no "Segmentation fault" noise from bash
  rc=$?
  end=$(date +%s%N)
  local ms=$(((end - start) / 1000000))
  local bound
  bound=$(prompt_bound_ms 0 2000)  # the nvcc it must not run hangs 30 s
  if [[ $rc != 2 || $ms -ge $bound ]] || ! grep -qF -- "$want_text" "$work/err"; then
    echo "FAIL ($what): cuarch $* -> exit $rc in ${ms} ms (want exit 2 in < $bound ms, stderr containing: $want_text)" >&2
    sed 's/^/  stderr: /' "$work/err" >&2
    failures=$((failures + 1))
  else
    echo "ok ($what): cuarch $* -> exit 2 in ${ms} ms"
  fi
}

# The environment is hostile indeed (so the checks above can fail): a request that does detect
# runs into the hanging nvcc or the crashing NVRTC.
(env CUDA_HOME="$work/cuda" PATH="$work/cuda/bin:$PATH" LD_LIBRARY_PATH="$work/lib" \
  timeout 3 "$cli" resolve --archs sm_90a --timeout 1 >/dev/null 2>&1) 2>/dev/null
rc=$?
if [[ $rc == 0 ]]; then
  echo "FAIL: a valid request resolved in the hostile environment; the test proves nothing" >&2
  failures=$((failures + 1))
fi

# Each case twice: with the hanging nvcc only, then with the crashing NVRTC on the loader path too.
run_all() {
  fast_usage_error "sm_90b" -- resolve --archs sm_90b
  fast_usage_error "sm_90b" -- resolve --archs sm_90b --format nvrtc
  fast_usage_error "sm_90b" -- resolve --archs "9.0a;sm_90b" --compiler nvcc
  fast_usage_error "8.0a" -- resolve --archs 8.0a --nvcc "$work/cuda/bin/nvcc"
  fast_usage_error "sm_" -- resolve --archs "sm_;9.0" --cuda-home "$work/cuda"
  fast_usage_error "Ampere" -- resolve --archs Ampere --dialect cmake
  fast_usage_error "12.0x" -- resolve --device-cc 12.0x
  fast_usage_error "sm_90b" -- resolve --archs sm_90b --nvrtc "$work/lib/libnvrtc.so.13" --driver detected --format json
  CUARCH_ARCHS="sm_90b" fast_usage_error "CUARCH_ARCHS" -- resolve
  fast_usage_error "sm_90b" -- check --toolkit 13.0 sm_90b
  fast_usage_error "sm_90b" -- check --toolkit 13.0 --archs sm_90b
}
libdir="" what="hanging nvcc" run_all
if [[ $crashing_nvrtc == 1 ]]; then libdir="$work/lib" what="hanging nvcc, crashing NVRTC" run_all; fi

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed (crashing NVRTC in place: $crashing_nvrtc)" >&2
  exit 1
fi
echo "cli_validate_first_test: all checks passed (crashing NVRTC in place: $crashing_nvrtc)"
