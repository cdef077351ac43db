#!/usr/bin/env bash
# Consistent edges (issue 16, item 7): the same mistake reads the same whichever way it came in, and
# every command words its input the same way on stderr.
#   a. --cuda-home DIR and CUDA_HOME=DIR pointing nowhere: same exit status, same error code;
#   b. control characters from any input are escaped on stderr (as the doctor escapes them) in
#      check, list, resolve and doctor;
#   e. a toolkit older than the table: the same error code and document type (the command's own
#      failure document) from list, check and resolve, the exit status equal to "exit_status".
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset CUARCH_ARCHS TORCH_CUDA_ARCH_LIST CUDAARCHS CUARCH_NVCC CUARCH_NVRTC CUDACXX CUDA_HOME CUDA_PATH VIRTUAL_ENV CONDA_PREFIX
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
# field <json> <dotted key>: one value of a JSON document (python3 reads it).
field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); [d:=d[k] for k in sys.argv[2].split(".")]; print(d)' "$1" "$2" 2>/dev/null; }

# ---- a. a toolkit root pointing nowhere, named by flag or by variable ---------------------------
nowhere="$work/no-such-cuda"
flag_doc=$(PATH=/usr/bin:/bin "$cli" resolve --archs 9.0 --cuda-home "$nowhere" --format json 2>/dev/null)
flag_rc=$?
var_doc=$(PATH=/usr/bin:/bin CUDA_HOME="$nowhere" "$cli" resolve --archs 9.0 --format json 2>/dev/null)
var_rc=$?
flag_code=$(field "$flag_doc" error.code)
var_code=$(field "$var_doc" error.code)
[[ $flag_rc == "$var_rc" && -n "$flag_code" && $flag_code == "$var_code" ]] ||
  bad "a: --cuda-home nowhere (exit $flag_rc, $flag_code) and CUDA_HOME nowhere (exit $var_rc, $var_code) differ"
[[ "$(field "$flag_doc" error.exit_status)" == "$flag_rc" ]] || bad "a: exit $flag_rc is not the document's exit_status"
echo "ok: a ($flag_rc, $flag_code)"

# ---- b. control characters escaped on stderr, every command -------------------------------------
esc=$'\x1b'
bel=$'\x07'
check_escaped() {  # check_escaped <what> -- <args...>
  local what=$1
  shift 2
  local err
  err=$("$cli" "$@" 2>&1 >/dev/null)
  if [[ $err == *"$esc"* || $err == *"$bel"* ]]; then
    bad "b: $what: a raw control character on stderr: $(printf '%q' "$err")"
  elif [[ $err != *'\e'* && $err != *'\x07'* ]]; then
    bad "b: $what: the input is not shown escaped: $(printf '%q' "$err")"
  else
    echo "ok: b $what"
  fi
}
check_escaped "check, a malformed target" -- check --toolkit 12.8 "9.0${esc}[31m"
check_escaped "check, a bad toolkit" -- check --toolkit "12.${bel}" 9.0
check_escaped "list, a bad toolkit" -- list --toolkit "12.${bel}"
check_escaped "list, a bad format" -- list --toolkit 12.8 --format "js${esc}"
check_escaped "resolve, a bad policy" -- resolve --policy "b${esc}"
check_escaped "resolve, an unknown option" -- resolve --archs 9.0 --toolkit 12.8 "--bogus${esc}"
check_escaped "doctor, an unknown option" -- doctor "--bogus${esc}"
check_escaped "an unknown command" -- "bogus${esc}"

# ---- e. a toolkit older than the table ------------------------------------------------------------
declare -A code schema
for cmd in list check resolve; do
  case $cmd in
    list) args=(list --toolkit 10.2) ;;
    check) args=(check --toolkit 10.2 7.0) ;;
    resolve) args=(resolve --toolkit 10.2 --archs 7.0) ;;
  esac
  doc=$("$cli" "${args[@]}" --format json 2>/dev/null)
  rc=$?
  code[$cmd]=$(field "$doc" error.code)
  schema[$cmd]=$(field "$doc" schema)
  [[ -n "${code[$cmd]}" && "$(field "$doc" error.exit_status)" == "$rc" ]] ||
    bad "e: $cmd --toolkit 10.2: exit $rc, document exit_status $(field "$doc" error.exit_status) (code ${code[$cmd]})"
  echo "ok: e $cmd: exit $rc, ${schema[$cmd]} ${code[$cmd]}"
done
[[ ${code[list]} == "${code[check]}" && ${code[check]} == "${code[resolve]}" ]] ||
  bad "e: error codes differ: list ${code[list]}, check ${code[check]}, resolve ${code[resolve]}"
# The same type: each command's own failure document (as for a malformed --toolkit of list and
# check), never a usage document for one and a result for another.
[[ ${schema[list]} == cuarch.list/1 && ${schema[check]} == cuarch.check/1 && ${schema[resolve]} == cuarch.resolve/1 ]] ||
  bad "e: document types differ: list ${schema[list]}, check ${schema[check]}, resolve ${schema[resolve]}"
[[ ${code[resolve]} == invalid_version ]] || bad "e: a toolkit older than the table is invalid_version, not ${code[resolve]}"

exit $fail
