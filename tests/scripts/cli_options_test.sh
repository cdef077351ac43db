#!/usr/bin/env bash
# The command line behaves as users expect of one: -h/--help and -V/--version (stdout, exit 0), a
# repeated option is an error, an option's value is never another option, `--` ends the options,
# a missing value / unknown option / unknown command is exit 2 naming it, and the help lists the
# library's own spellings. Needs no CUDA (--toolkit and --device-cc are given where it matters).
# Environment: CUARCH_CLI. Exit 77 (skipped) when it is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
version_hpp="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/include/cuarch/core/version.hpp"
out="$work/out" err="$work/err"
failures=0

# expect RC STDOUT_HAS STDERR_HAS -- ARGS...: exit status and text ('' = no check).
expect() {
  local want_rc="$1" want_out="$2" want_err="$3"; shift 4
  "$cli" "$@" >"$out" 2>"$err"
  local rc=$?
  if [[ $rc != "$want_rc" ]] || { [[ -n "$want_out" ]] && ! grep -qF -- "$want_out" "$out"; } ||
     { [[ -n "$want_err" ]] && ! grep -qF -- "$want_err" "$err"; }; then
    echo "FAIL: cuarch $* -> exit $rc (want $want_rc; stdout with '$want_out', stderr with '$want_err')" >&2
    sed 's/^/  stdout: /' "$out" >&2
    sed 's/^/  stderr: /' "$err" >&2
    failures=$((failures + 1))
  fi
}

# Help and version: stdout, exit 0, for the program and every command.
major=$(awk '/define CUARCH_VERSION_MAJOR/ {print $3}' "$version_hpp")
minor=$(awk '/define CUARCH_VERSION_MINOR/ {print $3}' "$version_hpp")
patch=$(awk '/define CUARCH_VERSION_PATCH/ {print $3}' "$version_hpp")
expect 0 "cuarch $major.$minor.$patch" "" -- --version
expect 0 "cuarch $major.$minor.$patch" "" -- -V
for h in -h --help; do
  expect 0 "resolve" "" -- "$h"
  for cmd in doctor resolve list check; do expect 0 "Usage: cuarch $cmd" "" -- "$cmd" "$h"; done
done
expect 0 "Usage: cuarch check" "" -- help check
expect 2 "" "Usage: cuarch" --                      # no command: the usage, on stderr
# The help spells the library's names (name maps), not a copy of them.
expect 0 "--format nvcc|nvrtc|cmake|torch|json" "" -- resolve --help
expect 0 "--dialect generic|torch|cmake|nvcc" "" -- resolve --help
expect 0 "strict|best-effort|ptx-fallback|verify-devices" "" -- resolve --help
expect 0 "--native-variant CHAIN|RULES" "" -- resolve --help
expect 0 "--timeout SECONDS" "" -- doctor --help
expect 0 "--timeout SECONDS" "" -- resolve --help

# A repeated option is an error naming it (a repeatable one says so in its help).
expect 2 "" "--archs was given 2 times" -- resolve --toolkit 13.0 --archs 9.0 --archs 10.0
expect 2 "" "--format was given 2 times" -- resolve --toolkit 13.0 --archs 9.0 --format torch --format=cmake
expect 2 "" "--json was given 2 times" -- doctor --json --json
expect 2 "" "--toolkit was given 2 times" -- list --toolkit 12.4 --toolkit 13.0
expect 0 "sm_90a: ok" "" -- check --toolkit 13.0 --archs 9.0a --archs 10.0  # --archs repeatable in check

# An option's value is never another option; "=" passes any text.
expect 2 "" "option --archs needs a value, but was followed by the option '--format'" -- resolve --toolkit 13.0 --archs --format json
expect 2 "" "option --toolkit needs a value" -- resolve --toolkit --archs 9.0
expect 2 "" "option --dialect needs a value" -- check --toolkit 13.0 --dialect -h sm_90
expect 2 "" "option --archs needs a value" -- resolve --toolkit 13.0 --archs -- 9.0
expect 0 "90;100a-real" "" -- resolve --toolkit 13.0 --archs "-arch=sm_90 -gencode=arch=compute_100a,code=sm_100a" --dialect nvcc --format cmake
expect 0 "compute_90a: ok" "" -- check --toolkit 12.4 --dialect nvcc --archs=-arch=sm_90a

# `--` ends the options: after it, only targets (check) or nothing (other commands).
expect 0 "sm_90a: ok" "" -- check --toolkit 12.4 --dialect nvcc -- -arch=sm_90a
expect 2 "" "is not a CUDA architecture" -- check --toolkit 12.4 -- --bogus
expect 2 "" "unexpected argument '--archs'" -- resolve --toolkit 13.0 --device-cc 9.0 -- --archs 9.0
expect 2 "" "unexpected argument 'x'" -- resolve --toolkit 13.0 --device-cc 9.0 -- x

# Missing values, unknown options and commands: exit 2, named.
expect 2 "" "option --toolkit needs a value" -- check sm_90 --toolkit
expect 2 "" "option --timeout needs a value" -- doctor --timeout
expect 2 "" "unknown option '--bogus'" -- resolve --toolkit 13.0 --bogus
expect 2 "" "unexpected argument 'extra'" -- list --toolkit 12.4 extra
expect 2 "" "unknown command 'frobnicate'" -- frobnicate
expect 2 "" "unknown option '--bogus'" -- --bogus
# Values of enumerated options are checked against the library's names.
expect 2 "" "--format: must be nvcc, nvrtc, cmake, torch or json, not 'yaml'" -- resolve --toolkit 13.0 --format yaml
expect 2 "" "--dialect must be generic|torch|cmake|nvcc, not 'bazel'" -- check --toolkit 13.0 --dialect bazel sm_90
expect 2 "" "not 'lenient'" -- resolve --toolkit 13.0 --policy best-effort,lenient
expect 2 "" "'b' at position 0 of 'b': a variant is 'a', 'f' or 'baseline'" -- resolve --toolkit 13.0 --native-variant b
expect 2 "" "'12.x=f' at position 4" -- resolve --toolkit 13.0 --native-variant 9=a,12.x=f
expect 2 "" "not 'bogus'" -- resolve --toolkit 13.0 --env torch,bogus
expect 0 "9.0a" "" -- resolve --toolkit 13.0 --device-cc 9.0 --native-variant a --format torch
expect 0 "9.0" "" -- resolve --toolkit 13.0 --device-cc 9.0 --native-variant baseline --format torch
# Per-device rules and chains; the JSON diagnostics say which rule applied.
expect 0 "90a-real;120f-real" "" -- resolve --toolkit 12.9 --device-cc 9.0,12.0 --native-variant 12.0=f,9=a,default=a --format cmake
expect 0 '"preference":"12.0=f,a"' "" -- resolve --toolkit 12.8 --device-cc 12.0 --native-variant 12.0=f,a --format json
# A release that never existed is answered, with a note (not an error).
expect 0 "sm_90a" "note: CUDA 12.7 was never released" -- list --toolkit 12.7
expect 0 "sm_90: ok with CUDA 12.7" "note: CUDA 12.7 was never released" -- check --toolkit 12.7 sm_90
# Substitution is opt-in: 12.1 with CUDA 12.8 fails by default, naming the candidate; compatible-minor takes it.
expect 1 "" "policy compatible-minor would use sm_120" -- resolve --toolkit 12.8 --device-cc 12.1
expect 0 "12.0" "without 12.1-specific features" -- resolve --toolkit 12.8 --device-cc 12.1 --policy compatible-minor --format torch

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_options_test: all checks passed"
