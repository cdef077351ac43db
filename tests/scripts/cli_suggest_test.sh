#!/usr/bin/env bash
# A mistyped command line is answered in one line with what was probably meant (issue 35): "did you
# mean" for commands, options and `env --for` values, taken from the command line's own table and the
# library's list of tools; a mistyped command is one line and where help is, never the whole help.
# `doctor --format json|text` as every other command (with --json kept), and no build path in the
# doctor's report. Needs no CUDA. Environment: CUARCH_CLI. Exit 77 (skipped) when it is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
out="$work/out" err="$work/err"
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/  stdout: /' "$out" >&2; sed 's/^/  stderr: /' "$err" >&2; failures=$((failures + 1)); }

# said RC LINES 'STDERR' -- ARGS...: exit status RC, exactly LINES lines on stderr (0: any), and
# STDERR among them (a fixed string).
said() {
  local want_rc="$1" want_lines="$2" want_err="$3"; shift 4
  "$cli" "$@" >"$out" 2>"$err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$err")
  if [[ $rc != "$want_rc" ]] || ! grep -qF -- "$want_err" "$err" || [[ $want_lines != 0 && $lines != "$want_lines" ]]; then
    fail "cuarch $* -> exit $rc, $lines stderr line(s) (want $want_rc, $want_lines, with '$want_err')"
  fi
}

# Commands: one line naming it, the suggestion, and where help is (2 lines in all).
said 2 2 "cuarch: unknown command 'reslove'; did you mean 'resolve'?" -- reslove
said 2 2 "(see: cuarch --help)" -- reslove
said 2 2 "did you mean 'doctor'?" -- docter
said 2 2 "did you mean 'inspect'?" -- inpsect --device-cc 9.0 x
said 2 2 "did you mean 'list'?" -- lst
said 2 2 "unknown command 'frobnicate'" -- frobnicate   # nothing near: no suggestion, still one line
if grep -q "did you mean" "$err"; then fail "frobnicate has no near command, yet a suggestion"; fi
said 2 2 "cuarch: unknown option '--hepl'; did you mean '--help'?" -- --hepl
said 2 2 "did you mean '--version'?" -- --verison
# Options of the command given (and only of that command).
said 2 2 "cuarch resolve: unknown option '--arch'; did you mean '--archs'?" -- resolve --arch 9.0
said 2 2 "unknown option '--arch=9.0'; did you mean '--archs'?" -- resolve --arch=9.0
said 2 2 "did you mean '--format'?" -- resolve --archs 9.0 --fromat json
said 2 2 "did you mean '--toolkit'?" -- list --tolkit 12.8
said 2 2 "did you mean '--device-cc'?" -- doctor --device-c 9.0
said 2 2 "did you mean '--for'?" -- env --fro torch
said 2 2 "unknown option '--bogus'" -- resolve --toolkit 13.0 --bogus
if grep -q "did you mean" "$err"; then fail "--bogus has no near option, yet a suggestion"; fi
# --for values: the library's list of tools; env takes its tool only through --for.
said 2 2 "not 'torh'; did you mean 'torch'?" -- env --for torh
said 2 2 "not 'flashinfr'; did you mean 'flashinfer'?" -- env --for=flashinfr
said 2 2 "not 'tvmffi'; did you mean 'tvm-ffi'?" -- env --for tvmffi
said 2 2 "cuarch env: unexpected argument 'torh'; did you mean '--for torch'?" -- env torh
said 2 2 "unexpected argument 'cmake'; did you mean '--for cmake'?" -- env cmake
# JSON callers get the same words in the error document.
"$cli" reslove --format json >"$out" 2>"$err"
grep -qF "did you mean 'resolve'?" "$out" || fail "reslove --format json: the document lacks the suggestion"

# doctor --format json|text; --json is the same as --format json.
common=(--isolated --no-device-query --device-cc 9.0)
"$cli" doctor --format json "${common[@]}" >"$out" 2>"$err" && grep -q '"schema":"cuarch.doctor/1"' "$out" ||
  fail "doctor --format json: not the cuarch.doctor/1 document"
"$cli" doctor --json "${common[@]}" >"$work/alias" 2>"$err" && grep -q '"schema":"cuarch.doctor/1"' "$work/alias" ||
  fail "doctor --json: not the cuarch.doctor/1 document"
"$cli" doctor --format=text "${common[@]}" >"$out" 2>"$err" && grep -q "^cuarch doctor" "$out" ||
  fail "doctor --format=text: not the text report"
said 2 2 "--format must be text|json, not 'yaml'" -- doctor --format yaml
said 2 2 "did you mean 'json'?" -- doctor --format jsno
said 2 2 "--json and --format: give one of them" -- doctor --json --format text
"$cli" doctor --help >"$out" 2>"$err"
grep -qF -- "--format text|json" "$out" || fail "doctor --help does not name --format text|json"

# No build path in the doctor's report (text or JSON): what it names must be true of an installed binary.
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
for fmt in text json; do
  "$cli" doctor --format "$fmt" --no-device-query >"$out" 2>"$err" || fail "doctor --format $fmt: exit $?"
  # (the executable itself may lie in the build tree: naming it is true wherever it is installed)
  if grep -ohF -- "$src/" "$out" "$err" >/dev/null &&
     grep -oh -- "$src/[^\" ]*" "$out" "$err" | grep -qvxF "$(realpath "$cli")"; then
    fail "doctor --format $fmt names the source tree $src"
  fi
done

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_suggest_test: all checks passed"
