#!/usr/bin/env bash
# library_deadline_test run as the GPU staging runs a test: the binary, the command line and
# tests/fixtures copied elsewhere, the source and build trees out of sight (bind-mounted over with an
# empty directory in a private mount namespace), and the copies named by CUARCH_SOURCE_DIR and
# CUARCH_CLI. It must run its cases, not skip them. Exit 77: no mount namespace here (needs root).
set -uo pipefail
src=${CUARCH_SOURCE_DIR:?CUARCH_SOURCE_DIR: the source tree}
bin=${CUARCH_BINARY_DIR:?CUARCH_BINARY_DIR: the build tree}
cli=${CUARCH_CLI:-}
[[ -n $cli ]] || { echo "skipped: the command line is not built"; exit 77; }
test_bin=$(ls "$bin"/tests/library_deadline_test_cxx* 2>/dev/null | head -n 1)
[[ -n $test_bin ]] || { echo "skipped: library_deadline_test is not built"; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: no private mount namespace (needs root)"; exit 77; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tree/tests" "$stage/empty"
cp -r "$src/tests/fixtures" "$stage/tree/tests/"
cp "$test_bin" "$stage/library_deadline_test"
cp "$cli" "$stage/cuarch"
hide=("$src")
[[ $bin/ == "$src"/* ]] || hide+=("$bin")
out=$(cd "$stage" && CUARCH_SOURCE_DIR="$stage/tree" CUARCH_CLI="$stage/cuarch" unshare -m bash -c '
  empty=$1; shift 1
  while [[ $1 != -- ]]; do mount --bind "$empty" "$1" || exit 3; shift; done
  exec ./library_deadline_test' bash "$stage/empty" "${hide[@]}" -- 2>&1)
rc=$?
echo "$out" | tail -n 4
if ((rc != 0)) || grep -q SKIPPED <<<"$out"; then
  grep -A5 -E 'SKIPPED|FAILED' <<<"$out" | head -n 30
  echo "FAIL: the staged library_deadline_test (exit $rc) did not run every case"
  exit 1
fi
echo "PASS: the staged library_deadline_test ran from $stage"
