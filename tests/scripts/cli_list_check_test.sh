#!/usr/bin/env bash
# `cuarch list` and `cuarch check`: output and exit codes (0 ok, 1 failed with reasons, 2 bad usage/input).
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
fail=0
expect() {  # expect <exit code> <stdout/stderr must contain ('' = no check)> -- <args...>
  local want_rc=$1 want_text=$2; shift 3
  local out rc
  out=$("$cli" "$@" 2>&1); rc=$?
  if [[ $rc -ne $want_rc ]]; then echo "FAIL: cuarch $* -> exit $rc, want $want_rc"; echo "$out"; fail=1; return; fi
  if [[ -n "$want_text" && "$out" != *"$want_text"* ]]; then echo "FAIL: cuarch $* lacks '$want_text':"; echo "$out"; fail=1; return; fi
  echo "ok: cuarch $* -> $rc"
}

# list: one target per line; 12.4 builds sm_90a but nothing of 10.0+, 13.0 dropped sm_70.
list124=$("$cli" list --toolkit 12.4)
[[ "$(echo "$list124" | head -1)" == "sm_50" ]] || { echo "FAIL: list 12.4 should start with sm_50"; fail=1; }
grep -qx 'sm_90a' <<<"$list124" || { echo "FAIL: 12.4 lists sm_90a"; fail=1; }
grep -q 'sm_100' <<<"$list124" && { echo "FAIL: 12.4 must not list sm_100"; fail=1; }
[[ $(wc -l <<<"$list124") -eq 30 ]] || { echo "FAIL: 12.4 builds 30 targets, listed $(wc -l <<<"$list124")"; fail=1; }
list130=$("$cli" list --toolkit 13.0)
grep -qx 'sm_70' <<<"$list130" && { echo "FAIL: 13.0 must not list sm_70"; fail=1; }
grep -qx 'sm_110f' <<<"$list130" || { echo "FAIL: 13.0 lists sm_110f"; fail=1; }
expect 0 'newer than cuarch' -- list --toolkit 99.0
expect 2 'required' -- list
expect 2 'not a valid version' -- list --toolkit twelve

# check: the motivating question and its reasons.
expect 1 'sm_120a needs CUDA >= 12.8 (have 12.4)' -- check --toolkit 12.4 sm_120a 9.0a
expect 0 'sm_90a: ok' -- check --toolkit 12.4 9.0a
expect 1 'sm_101 was renamed sm_110 in CUDA 13.0' -- check --toolkit 13.0 sm_101
expect 1 'sm_70 was removed in CUDA 13.0' -- check --toolkit 13.0 sm_70
expect 0 'sm_120a: ok' -- check --toolkit 13.0 sm_120a sm_100f
expect 2 "no 'a' variant exists for 8.0" -- check --toolkit 13.0 8.0a
expect 2 'unknown suffix' -- check --toolkit 13.0 compute_90b
expect 2 '+PTX' -- check --toolkit 13.0 12.0a+PTX
expect 2 'is a request' -- check --toolkit 13.0 native
expect 0 'compute_90a: ok' -- check --toolkit 12.4 --dialect nvcc --archs=-arch=sm_90a
expect 2 'unknown option' -- check --toolkit 12.4 --bogus sm_90
expect 2 'needs a value' -- check sm_90 --toolkit
expect 2 'unknown command' -- frobnicate
exit $fail
