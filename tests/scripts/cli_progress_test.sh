#!/usr/bin/env bash
# A word while cuarch waits (issue 35): when a probe takes over a second, a progress line on stderr
# names it ("cuarch: probing PATH (--version)..."), only when stderr is a terminal, and the line is
# gone before the output. A fake nvcc that takes 2 s to answer; a terminal from `script` (util-linux).
# Environment: CUARCH_CLI. Exit 77 (skipped) when it is not built or `script` is absent.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
if ! command -v script >/dev/null; then
  echo "skipped: no script(1) (util-linux) to give cuarch a terminal" >&2
  exit 77
fi
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

fixtures="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/fixtures/fake-nvcc"
cat >"$work/nvcc" <<EOF
#!/bin/sh
# nvcc 12.8 that takes 2 s to answer (a cold network file system, a wrapper)
/bin/sleep 2
exec "$fixtures/nvcc-12.8" "\$@"
EOF
chmod +x "$work/nvcc"
args=(resolve --isolated --nvcc "$work/nvcc" --device-cc 9.0 --format cmake)
printf -v line '%q ' "$cli" "${args[@]}"

# stderr a terminal: the progress line, then the answer.
script -qec "$line" /dev/null </dev/null >"$work/tty" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "under script: exit $rc"
grep -qF "cuarch: probing $work/nvcc (--version)..." "$work/tty" || fail "under script: no progress line naming the probe"
grep -qF "90a-real" "$work/tty" || fail "under script: no answer"
# The line is erased before the answer (carriage return, erase to the end of the line).
tr '\r' '\n' <"$work/tty" | grep -q $'^\e\[K90a-real' || fail "under script: the progress line is not erased before the output"

# stderr not a terminal (a pipe, a file): nothing but what was there before.
"$cli" "${args[@]}" >"$work/out" 2>"$work/err" </dev/null
rc=$?
[[ $rc == 0 && $(cat "$work/out") == "90a-real" ]] || fail "piped: exit $rc, output '$(cat "$work/out")'"
[[ ! -s "$work/err" ]] || { fail "piped: something on stderr"; sed 's/^/  /' "$work/err" >&2; }
# stdout a terminal but stderr a file: still nothing on stderr.
script -qec "$line 2>$(printf %q "$work/err2")" /dev/null </dev/null >"$work/tty2" 2>&1
[[ ! -s "$work/err2" ]] || { fail "stderr a file under script: something on stderr"; sed 's/^/  /' "$work/err2" >&2; }
grep -q "probing" "$work/tty2" && fail "stderr a file under script: the progress line reached the terminal"

if [[ "$failures" != 0 ]]; then
  echo "--- under script:" >&2; cat -v "$work/tty" >&2
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_progress_test: all checks passed"
