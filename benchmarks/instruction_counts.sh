#!/usr/bin/env bash
# Instruction counts of the paths in instruction_counts/paths.cpp, this checkout against REV, both
# built with g++ -O2 from their own headers and counted by callgrind (deterministic: the table of
# docs/performance.md, "Re-measured after the fixes of 2026-12-02", came from this script).
#   bash benchmarks/instruction_counts.sh REV [CALLS]     (default 10000 calls; detect: 1 and 6)
# Per call = (count of N calls - count of the first) / (N - first): process start-up is not counted;
# "first" is 0 calls, or 1 for detect, whose first call also loads libraries.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rev="${1:?usage: instruction_counts.sh REV [CALLS]}"
calls="${2:-10000}"
work="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$work/tree-before" >/dev/null 2>&1; rm -rf "$work"' EXIT
git -C "$root" worktree add -q --detach "$work/tree-before" "$rev"
for tree in before after; do
  include="$root/include"; [[ $tree == before ]] && include="$work/tree-before/include"
  g++ -std=c++17 -O2 -I"$include" "$root/benchmarks/instruction_counts/paths.cpp" -o "$work/$tree" -ldl -lpthread
done
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
printf '%-18s %14s %14s %8s\n' path "before/call" "after/call" change
for path in resolve_table resolve_live cache_key parse_torch parse_generic parse_nvcc detect_every_role detect_jit_role; do
  first=0 n=$calls
  [[ $path == detect_* ]] && first=1 n=6
  per=()
  for tree in before after; do
    a=$(count "$work/$tree" "$path" "$first") b=$(count "$work/$tree" "$path" "$n")
    per+=($(((b - a) / (n - first))))
  done
  printf '%-18s %14s %14s %+7.1f%%\n' "$path" "${per[0]}" "${per[1]}" "$(echo "(${per[1]} - ${per[0]}) * 100 / ${per[0]}" | bc -l)"
done
