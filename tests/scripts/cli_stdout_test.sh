#!/usr/bin/env bash
# The command line's stdout belongs to its output (issue 18, item C). A library cuarch loads while it
# detects (here a stub NVRTC named by --nvrtc) runs code in this process: its constructor may print to
# stdout, or call exit(0). Neither may turn into a success with corrupt or empty output:
#   a. a constructor that prints: stdout holds exactly the JSON document (the print goes to stderr);
#      the same for `cuarch doctor --json` and for the nvcc format (one line);
#   b. a constructor that calls exit(0): the library is tried in a child first (trial_load.hpp), which
#      it ends instead: refused and named (resolve: a failure document and a non-zero exit; doctor:
#      the report says so); one that calls exit(0) in cuarch's own process only (not in the child):
#      a non-zero exit, nothing on stdout, a message naming what happened.
# Needs a C compiler ($CC, else cc). Environment: CUARCH_CLI. Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "skipped: no C compiler ($cc)" >&2; exit 77; }
failures=0
fail() { echo "FAIL: $*" >&2; head -c 600 "$work/out" | sed 's/^/  stdout: /' >&2; head -c 600 "$work/err" | sed 's/^/  stderr: /' >&2; failures=$((failures + 1)); }

# A stub NVRTC 12.8 whose constructor misbehaves as STUB_CTOR says: "print" (buffered printf and a
# write(2) to fd 1, as a library's banner would), "exit" (exit(0)) or "exit-in-pid" (exit(0) only in
# the process whose pid is STUB_PID).
cat >"$work/stub.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void misbehave(void) {
  const char* what = getenv("STUB_CTOR");
  if (what && strcmp(what, "print") == 0) {
    printf("BANNER from a library constructor (stdio)\n");
    const char raw[] = "BANNER from a library constructor (write)\n";
    if (write(1, raw, sizeof raw - 1) < 0) abort();
  }
  if (what && strcmp(what, "exit") == 0) exit(0);
  const char* pid = getenv("STUB_PID");
  if (what && strcmp(what, "exit-in-pid") == 0 && pid && atol(pid) == (long)getpid()) exit(0);
}
int nvrtcVersion(int* major, int* minor) { *major = 12; *minor = 8; return 0; }
int nvrtcGetNumSupportedArchs(int* n) { *n = 3; return 0; }
int nvrtcGetSupportedArchs(int* a) { a[0] = 80; a[1] = 90; a[2] = 120; return 0; }
const char* nvrtcGetErrorString(int r) { return r ? "NVRTC_ERROR" : "NVRTC_SUCCESS"; }
EOF
mkdir -p "$work/nvrtc"
"$cc" -shared -fPIC -O1 -o "$work/nvrtc/libnvrtc.so.12" "$work/stub.c" -Wl,-soname,libnvrtc-ctor-stub.so.12 ||
  { echo "FAIL: cannot build the stub NVRTC" >&2; exit 1; }
stub="$work/nvrtc/libnvrtc.so.12"
is_json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if isinstance(d, dict) and "schema" in d else 1)' "$1" 2>/dev/null; }

# ---- a. a constructor that prints ---------------------------------------------------------------
STUB_CTOR=print "$cli" resolve --nvrtc "$stub" --archs 9.0 --format json >"$work/out" 2>"$work/err"
rc=$?
if [[ $rc == 0 ]] && is_json "$work/out" && grep -q "BANNER.*stdio" "$work/err" && grep -q "BANNER.*write" "$work/err"; then
  echo "ok: a. resolve --format json: stdout is the document, the banner went to stderr"
else
  fail "a. resolve --format json with a printing constructor (exit $rc)"
fi
STUB_CTOR=print "$cli" resolve --nvrtc "$stub" --archs 9.0 --format nvcc >"$work/out" 2>"$work/err"
rc=$?
if [[ $rc == 0 && "$(cat "$work/out")" == "-gencode=arch=compute_90,code=sm_90" ]]; then
  echo "ok: a. resolve --format nvcc: stdout is the one line"
else
  fail "a. resolve --format nvcc with a printing constructor (exit $rc)"
fi
STUB_CTOR=print "$cli" doctor --nvrtc "$stub" --no-device-query --json >"$work/out" 2>"$work/err"
rc=$?
if [[ $rc == 0 ]] && is_json "$work/out" && grep -q "BANNER" "$work/err"; then
  echo "ok: a. doctor --json: stdout is the report"
else
  fail "a. doctor --json with a printing constructor (exit $rc)"
fi

# ---- b. a constructor that calls exit(0) --------------------------------------------------------
STUB_CTOR=exit "$cli" resolve --nvrtc "$stub" --archs 9.0 --format json >"$work/out" 2>"$work/err"
rc=$?
if [[ $rc != 0 ]] && is_json "$work/out" && grep -q '"code":"library_not_found"' "$work/out" &&
  grep -q "$stub.*ended before dlopen() returned" "$work/err"; then
  echo "ok: b. resolve: exit(0) in a library's constructor ends only the child that tried it: refused, named (exit $rc)"
else
  fail "b. resolve: exit(0) in a library constructor (exit $rc)"
fi
STUB_CTOR=exit "$cli" doctor --nvrtc "$stub" --no-device-query --json >"$work/out" 2>"$work/err"
rc=$?
if is_json "$work/out" && grep -q "ended before dlopen() returned" "$work/out"; then
  echo "ok: b. doctor: the report names the library a constructor's exit(0) refused (exit $rc)"
else
  fail "b. doctor: exit(0) in a library constructor (exit $rc)"
fi
for cmd in "resolve --nvrtc $stub --archs 9.0 --format json" "doctor --nvrtc $stub --no-device-query --json"; do
  # exec: the command line has the subshell's pid, which the stub exits in (not in the trial child)
  # shellcheck disable=SC2086 # the words of $cmd are the arguments
  (export STUB_CTOR=exit-in-pid STUB_PID=$BASHPID && exec "$cli" $cmd) >"$work/out" 2>"$work/err"
  rc=$?
  if [[ $rc != 0 && ! -s "$work/out" ]] && grep -q "exit()" "$work/err"; then
    echo "ok: b. ${cmd%% *}: exit(0) in cuarch's own load is exit $rc, stdout empty, said on stderr"
  else
    fail "b. ${cmd%% *}: exit(0) in a library constructor in cuarch's own process (exit $rc)"
  fi
done

# c. Run with stdout and stderr closed (2>&-, as a daemon or a careless wrapper does), every command
# ends with its exit status. fmt::print threw on the closed stderr, and each one, a valid resolve
# included, ended with SIGABRT (exit 134): found on the GPU machine.
for case in "2|doctor --bogus" "2|resolve --archs sm_12x --toolkit 13.0" "1|resolve --archs 9.0 --toolkit 13.0" \
  "1|list --toolkit 13.0 --format json" "1|check --toolkit 12.4 sm_100f"; do
  want=${case%%|*} args=${case#*|}
  # shellcheck disable=SC2086 # the words of $args are the arguments
  ("$cli" $args 1>&- 2>&-)
  rc=$?
  if [[ $rc == "$want" ]]; then
    echo "ok: c. cuarch $args with stdout and stderr closed: exit $rc"
  else
    : >"$work/out" >"$work/err"
    fail "c. cuarch $args with stdout and stderr closed: exit $rc, want $want (no output could reach anyone)"
  fi
done

[[ $failures == 0 ]] || { echo "$failures failure(s)" >&2; exit 1; }
echo "all passed"
