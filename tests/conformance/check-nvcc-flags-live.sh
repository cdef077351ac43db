#!/usr/bin/env bash
# check-nvcc-flags-live.sh - re-ask the local nvcc a sample of tests/data/nvcc_flags_13.0.tsv: every
# 8th row and every -rdc row (~65 compiles), each `nvcc -c k.cu -o k.o FLAGS` as recorded. The
# verdict (accepted/refused) must match the record, and where cuobjdump is at hand (next to nvcc, or
# cached under ~/.cache/cuarch/cuobjdump/) the images too. tests/nvcc_flags_test.cpp holds cuarch's
# reader to the whole record offline; this says the record still describes the nvcc installed here.
# Env: CUARCH_TEST_NVCC (default /usr/local/cuda/bin/nvcc). Exit: 0 match; 1 drift; 77 skipped.
set -u
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
nvcc="${CUARCH_TEST_NVCC:-/usr/local/cuda/bin/nvcc}"
data="$src/tests/data/nvcc_flags_13.0.tsv"
[[ -x $nvcc ]] || { echo "SKIPPED: no nvcc at $nvcc (set CUARCH_TEST_NVCC)"; exit 77; }
"$nvcc" --version | grep -q 'release 13\.0' || { echo "SKIPPED: $nvcc is not CUDA 13.0 (the record is 13.0)"; exit 77; }
cuobjdump=$(dirname "$nvcc")/cuobjdump
[[ -x $cuobjdump ]] || cuobjdump=$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo '__global__ void k(int* p) { *p = 1; }' >"$work/k.cu"
status=0 n=0 i=0
while IFS=$'\t' read -r flags verdict images _; do
  [[ $flags == \#* || $flags == flags ]] && continue
  i=$((i + 1))
  [[ $((i % 8)) == 0 || $flags == *-rdc* || $flags == *relocatable* ]] || continue
  n=$((n + 1))
  rm -f "$work/k.o"
  # shellcheck disable=SC2086
  if (cd "$work" && "$nvcc" -c k.cu -o k.o $flags >"$work/log" 2>&1); then got=accepted; else got=refused; fi
  if [[ $got != "$verdict" ]]; then
    echo "FAIL: '$flags': recorded $verdict, nvcc now $got"; head -2 "$work/log"; status=1; continue
  fi
  if [[ $got == accepted && -x ${cuobjdump:-} ]]; then
    now=$("$cuobjdump" -elf -ptx "$work/k.o" 2>/dev/null |
      awk '/^Fatbin (elf|ptx|nvvm) code/ { kind = $2 } /^arch = / && kind { k = kind == "nvvm" ? "lto" : kind; print k ":" $3; kind = "" }' |
      sort | tr '\n' ' ' | sed 's/ $//')
    [[ $now == "$images" ]] || { echo "FAIL: '$flags': recorded [$images], nvcc now embeds [$now]"; status=1; continue; }
  fi
done <"$data"
echo "$n sampled rows of $data re-asked of $nvcc$([[ -x ${cuobjdump:-} ]] && echo " (images read by $cuobjdump)"): $([[ $status == 0 ]] && echo "all match" || echo "drift")"
exit $status
