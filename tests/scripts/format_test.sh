#!/usr/bin/env bash
# format_test.sh - the tree satisfies its .clang-format: every tracked C/C++ file is already formatted.
# Fix with: clang-format -i $(git ls-files '*.hpp' '*.cpp' '*.c' '*.h')
# Exit: 0 formatted; 1 a file is not (the first differences are shown); 77 no clang-format / not a checkout.
set -uo pipefail
src=${CUARCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$src" || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "skipped: no clang-format"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "skipped: not a git checkout (the files to check are git's)"; exit 77; }
mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.c' '*.h')
if ! out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
  echo "FAIL: not formatted as .clang-format says ($(clang-format --version | head -n 1)):"
  echo "$out" | head -40
  exit 1
fi
echo "ok: ${#files[@]} files formatted"
