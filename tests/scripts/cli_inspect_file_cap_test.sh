#!/usr/bin/env bash
# The file cap of `cuarch inspect DIR` is never silent (issue 32): a directory holding 100,001 empty
# files (one more than max_code_files) is exit 2, with an error that names the directory, the cap and
# the fix, in the text and in the JSON document; before, the files past the cap were dropped without
# a word and the exit was 0. Environment: CUARCH_CLI. Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
mkdir "$work/many"
(cd "$work/many" && seq 100001 | xargs touch) || { echo "FAIL: could not create the files" >&2; exit 1; }
failures=0
"$cli" inspect "$work/many" --device-cc 9.0 >"$work/out" 2>"$work/err"
rc=$?
# The error is part of the report (stdout), as every unreadable file's is, said once.
if [[ $rc == 2 ]] && cat "$work/out" "$work/err" | grep -q "$work/many.*more than 100000 files.*name its subdirectories"; then
  echo "ok: text: exit 2, the error names the directory, the cap and the fix"
else
  echo "FAIL: text: exit $rc; output: $(head -c 600 "$work/out" "$work/err")" >&2
  failures=$((failures + 1))
fi
"$cli" inspect "$work/many" --device-cc 9.0 --format json >"$work/out" 2>"$work/err"
rc=$?
if [[ $rc == 2 ]] && grep -q '"unreadable_input"' "$work/out" && grep -q 'more than 100000 files' "$work/out"; then
  echo "ok: json: exit 2, the document holds the error"
else
  echo "FAIL: json: exit $rc; stdout: $(head -c 600 "$work/out")" >&2
  failures=$((failures + 1))
fi
[[ $failures == 0 ]] || exit 1
echo "all passed"
