#!/usr/bin/env bash
# The real nvcc judges cuarch's own nvcc output, pair by pair (issue 17: the real tool is the oracle).
# For a sample of the pairs in tests/data/nvcc_pairs_13.0.tsv (every pair nvcc refused, plus every
# pair of one Blackwell compute capability and a stride through the rest; ~40, ~1 s each): cuarch
# must accept exactly what nvcc accepts, the flags cuarch writes for an accepted pair must compile,
# and a pair cuarch refuses must be refused by nvcc too (its targets' flags, written one by one).
# The whole table: scripts/toolkits/record-nvcc-pairs.sh re-records it; tests/nvcc_pairs_test.cpp
# checks cuarch against all 1035 pairs offline. Skipped (exit 77) where no nvcc 13.0 is found.
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
data="$src/tests/data/nvcc_pairs_13.0.tsv"
if [[ ! -x $nvcc ]]; then echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; fi
if ! "$nvcc" --version | grep -q 'release 13\.0'; then echo "SKIPPED: $nvcc is not CUDA 13.0 (the table records 13.0)"; exit 77; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo '__global__ void k(int* p) { *p = 1; }' >"$work/k.cu"
unset CUARCH_ARCHS TORCH_CUDA_ARCH_LIST CUDAARCHS
fail=0 n=0 i=0
while IFS=$'\t' read -r a b verdict _; do
  [[ $a == \#* || $a == first ]] && continue
  i=$((i + 1))
  same_cc=0; [[ ${a//[!0-9]/} == "${b//[!0-9]/}" && ${a//[!0-9]/} -ge 100 ]] && same_cc=1
  [[ $verdict == refused || ( $same_cc == 1 && $a == sm_* && $b == sm_* ) || $((i % 97)) == 0 ]] || continue
  n=$((n + 1))
  flags=$("$cli" resolve --toolkit 13.0 --archs "$a;$b" --format nvcc 2>"$work/err"); rc=$?
  if [[ $rc -eq 0 ]]; then
    # shellcheck disable=SC2086
    if (cd "$work" && "$nvcc" -c k.cu -o k.o $flags >"$work/log" 2>&1); then got=accepted; else got=refused; fi
    [[ $got == accepted ]] || { echo "FAIL: nvcc refused cuarch's flags for $a + $b: $flags"; cat "$work/log"; fail=1; continue; }
    [[ $verdict == accepted ]] || { echo "FAIL: cuarch accepted $a + $b, recorded nvcc refused it"; fail=1; continue; }
    echo "ok: $a + $b: cuarch and nvcc accept ($flags)"
  else
    fa=$("$cli" resolve --toolkit 13.0 --archs "$a" --format nvcc 2>/dev/null)
    fb=$("$cli" resolve --toolkit 13.0 --archs "$b" --format nvcc 2>/dev/null)
    if (cd "$work" && "$nvcc" -c k.cu -o k.o "$fa" "$fb" >"$work/log" 2>&1); then
      echo "FAIL: cuarch refused $a + $b, but nvcc compiles $fa $fb"; cat "$work/err"; fail=1; continue
    fi
    grep -q "$a and $b cannot be built in one nvcc compilation\|$b and $a cannot be built in one nvcc compilation" "$work/err" ||
      { echo "FAIL: cuarch's refusal of $a + $b does not name both:"; cat "$work/err"; fail=1; continue; }
    echo "ok: $a + $b: cuarch and nvcc refuse ($(grep -m1 fatal "$work/log"))"
  fi
done <"$data"
echo "$n pairs checked against $nvcc"
[[ $n -ge 20 ]] || { echo "FAIL: only $n pairs sampled"; fail=1; }
exit $fail
