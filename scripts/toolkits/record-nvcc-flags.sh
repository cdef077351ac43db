#!/usr/bin/env bash
# record-nvcc-flags.sh - ask a real nvcc how it reads target flags (-arch, -code, -gencode and their
# long forms), and write tests/data/nvcc_flags_<release>.tsv (the oracle for cuarch's nvcc dialect,
# parse_arch_list(..., arch_dialect::nvcc) in include/cuarch/core/parse.hpp).
#
# Usage:  scripts/toolkits/record-nvcc-flags.sh [-o OUTPUT] [--nvcc PATH] [--cuobjdump PATH] [-j JOBS]
#           [--list]   (print the corpus, one flag string a line, and stop)
#           defaults: nvcc /usr/local/cuda/bin/nvcc; cuobjdump next to nvcc, else the newest one
#           unpacked under ~/.cache/cuarch/cuobjdump/ (see below); OUTPUT
#           tests/data/nvcc_flags_<nvcc release>.tsv; JOBS = nproc.
#
# Method: a fixed corpus of flag strings (single -arch for every target of the release, a/f
# included; -arch with -code; -gencode pairs across variants and compute capabilities; repeated
# flags; --gpu-architecture/--gpu-code/--generate-code long forms and space-separated values;
# all/all-major; malformed ones). Each is compiled for real, `nvcc -c k.cu -o k.o FLAGS` with k.cu
# one empty kernel (not --dryrun: ptxas and fatbinary have their say). Refused: nvcc's first
# fatal/error line is kept. Accepted: the images in k.o, from `cuobjdump -elf -ptx k.o` (the
# `arch = ` line under each `Fatbin elf|ptx|nvvm code` header; --list-elf drops the `f` of a
# family-specific cubin's name, the header does not), written sorted as e.g.
# "elf:sm_90a ptx:sm_90 ptx:sm_90a" (nvvm images as lto:sm_XY). -arch=native is not recorded
# (it needs a GPU). ~1 s a flag string; ~300 strings take ~3 min on 2 cores.
#
# cuobjdump: CUDA 13.0's redistributable nvcc has none. Get it from PyPI into the cache:
#   mkdir -p ~/.cache/cuarch/cuobjdump && cd ~/.cache/cuarch/cuobjdump &&
#   pip download --no-deps -d . nvidia-cuda-cuobjdump==13.2.51 && mkdir 13.2.51 && cd 13.2.51 &&
#   unzip ../nvidia_cuda_cuobjdump-13.2.51-*.whl        (binary: nvidia/cu13/bin/cuobjdump)
# (No 13.0.x wheel exists; 13.2.51 is the oldest, and reads 13.0 objects.)
# Needs: bash, nvcc, cuobjdump, xargs, timeout, sort.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVCC=/usr/local/cuda/bin/nvcc
CUOBJDUMP=
OUT=
LIST_ONLY=0
JOBS=$(nproc 2>/dev/null || echo 2)
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) OUT=$2; shift 2 ;;
    --nvcc) NVCC=$2; shift 2 ;;
    --cuobjdump) CUOBJDUMP=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --list) LIST_ONLY=1; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "record-nvcc-flags.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# ---- the corpus ---------------------------------------------------------------------------------
corpus() {
  local t v c
  # Every target nvcc 13.0 builds, as -arch (SASS and PTX spellings), plus ones it does not.
  local sms=(75 80 86 87 88 89 90 100 103 110 120 121)
  for t in "${sms[@]}"; do echo "-arch=sm_$t"; echo "-arch=compute_$t"; done
  for t in 90 100 103 110 120 121; do echo "-arch=sm_${t}a"; echo "-arch=compute_${t}a"; done
  for t in 100 103 110 120 121; do echo "-arch=sm_${t}f"; echo "-arch=compute_${t}f"; done
  for t in sm_70 sm_72 compute_70 sm_101 sm_101a sm_80a sm_90f compute_90f sm_89a sm_90b sm_130 lto_90 lto_100f; do
    echo "-arch=$t"
  done
  # Spellings of the flag and its value.
  for v in "--gpu-architecture=sm_90a" "--gpu-architecture sm_90a" "-arch sm_90a" "--gpu-architecture=compute_100f" \
    "-arch=all" "-arch=all-major" "--gpu-architecture=all" "-arch all-major" "-arch=ALL" "-arch=sm_90 -arch=all" \
    "-arch=all -arch=sm_90" "-arch=all -arch=all-major" "-arch=all -code=sm_90" "-arch=all -gencode=arch=compute_90,code=sm_90"; do
    echo "$v"
  done
  # Malformed or refused.
  for v in "-arch=sm90" "-arch=compute90" "-gencode=arch=compute90,code=sm_90" "-gencode=arch=compute_90,code=sm90" \
    "-arch=compute_90 -code=sm90" "-arch=sm_9" "-arch=sm_090" "-arch=sm_90A" "-arch=SM_90" "-arch=" "-arch" "-arch=sm_90," \
    "-arch=sm_80,sm_90" "-arch=[sm_80,sm_90]" "-arch=9.0" "-arch=90" "--gpu-architecture" "--arch=sm_90" "-arch:sm_90" \
    "-code=sm_90" "--gpu-code=sm_90" "-gencode=arch=compute_80" "-gencode arch=compute_80" "-gencode=code=sm_80" \
    "-gencode=arch=compute_80,code=sm_80,compute_80" "-gencode=arch=compute_80,code=sm_80,sm_86" \
    "-gencode=arch=compute_80,code=[sm_80,sm_86" "-gencode=arch=compute_80,code=sm_80]" "-gencode=arch=compute_80,code=" \
    "-gencode=arch=compute_80,code=[]" "-gencode=arch=sm_80,code=sm_80" "-gencode=arch=compute_80,code=sm_75" \
    "-gencode=arch=compute_90,code=compute_80" "-gencode=arch=compute_80,code=compute_90" "-gencode=arch=compute_80,code=lto_80" \
    "-gencode=arch=compute_80,code=sm_86a" "-gencode=arch=compute_90a,code=sm_100a" "-gencode=code=sm_80,arch=compute_80" \
    "-gencode=arch=compute_80,arch=compute_86,code=sm_86" "-gencode=arch=compute_80 code=sm_80" "-gencode" \
    "-gencode=arch=compute_80,code=sm_80 -O3" "-gencode=arch=compute_80,code=sm_80," "-gencode=,arch=compute_80,code=sm_80" \
    "-gencode=arch=compute_80,,code=sm_80" "-gencode=arch=compute_80,code=[sm_80,,sm_86]" "-gencode=arch=compute_80,code=[sm_80,]" \
    "-gencode=arch=[compute_80],code=sm_80" "-gencode=arch=all,code=sm_80" "-gencode=arch=compute_80,code=all" \
    "-gencode=arch=compute_100f,code=sm_120f" "-gencode=arch=compute_100f,code=sm_110" \
    "-arch=sm_80 -code=sm_86" "-arch=sm_90a -code=sm_90a" "-arch=compute_80 -code=sm_75" "-arch=compute_80 -code=" \
    "-arch=compute_80 -code=compute_86" "-arch=compute_80 -code=sm_80,sm_86," "-arch=compute_80 -code=[sm_80,sm_86]"; do
    echo "$v"
  done
  # -gencode: same virtual and real, and PTX in code=.
  for t in 80 90 90a 100 100a 100f 103f 120f 121a; do
    echo "-gencode=arch=compute_$t,code=sm_$t"
    echo "-gencode=arch=compute_$t,code=compute_$t"
    echo "-gencode=arch=compute_$t,code=[sm_$t,compute_$t]"
  done
  # -gencode: code= another compute capability or variant than arch=.
  for v in "80 sm_86" "80 sm_89" "80 sm_90" "80 sm_120" "86 sm_89" "90 sm_90a" "90 sm_100" "90a sm_90" "90 sm_100f" \
    "100 sm_100a" "100 sm_100f" "100 sm_103" "100 sm_103f" "100 sm_120" "100a sm_100" "100a sm_100f" "100a sm_103a" \
    "100f sm_100" "100f sm_100a" "100f sm_103" "100f sm_103a" "100f sm_103f" "100f sm_110" "100f sm_110f" "103f sm_103" \
    "110f sm_110" "120f sm_120" "120f sm_121" "120f sm_121f" "120f sm_121a" "120 sm_121" "120a sm_120" "120a sm_121a" \
    "121f sm_121" "120f [sm_120,sm_121]" "100f [sm_100,sm_103]" "100f [sm_100f,sm_103f,compute_100f]" \
    "80 [sm_80,sm_86,sm_89,compute_80]" "90a [sm_90,compute_90a]" "90 [sm_90a,compute_90]" "100f [sm_100,compute_100f]" \
    "120f [sm_121,compute_120f]" "80 [compute_80,sm_86]" "80 [sm_86,sm_80]" "80 [sm_80,sm_80]"; do
    set -- $v
    echo "-gencode=arch=compute_$1,code=$2"
  done
  # Long forms and space-separated values of -gencode.
  for v in "--generate-code=arch=compute_90a,code=sm_90a" "--generate-code arch=compute_90a,code=sm_90a" \
    "-gencode arch=compute_100f,code=[sm_100f,sm_103f]" "--generate-code=arch=compute_80,code=[compute_80,sm_80]" \
    "--generate-code arch=compute_120f,code=sm_121"; do
    echo "$v"
  done
  # -arch with -code / --gpu-code.
  for v in "compute_80 sm_80" "compute_80 sm_86" "compute_80 sm_80,sm_86" "compute_80 sm_80,compute_80" \
    "compute_80 compute_80" "compute_80 sm_80,sm_86,compute_80" "compute_90a sm_90a" "compute_90a sm_90a,compute_90a" \
    "compute_90 sm_90a" "compute_90a sm_90" "compute_100f sm_100" "compute_100f sm_103" "compute_100f sm_100f,sm_103f" \
    "compute_100f sm_100f,compute_100f" "compute_100 sm_100f" "compute_100 sm_100,sm_103" "compute_120f sm_121" \
    "sm_80 sm_80" "sm_80 sm_80,compute_80" "sm_90a sm_90a,compute_90a" "sm_100f sm_100f" "sm_100f sm_103f" \
    "sm_80 compute_80" "sm_120 sm_120,compute_120"; do
    set -- $v
    echo "-arch=$1 -code=$2"
  done
  echo "--gpu-architecture=compute_80 --gpu-code=sm_80,sm_86"
  echo "--gpu-architecture compute_90a --gpu-code sm_90a,compute_90a"
  echo "-arch compute_80 -code sm_86"
  echo "-code=sm_80 -arch=compute_80"
  echo "--gpu-code=sm_90a --gpu-architecture=compute_90a"
  echo "-arch=compute_80 -code=sm_80 -code=sm_86"
  echo "-arch=compute_80 -code=sm_86 -arch=compute_90 -code=sm_90"
  echo "-arch=compute_80 -code=sm_80 -arch=compute_90"
  # Repeated flags and mixtures.
  for v in "-arch=sm_80 -arch=sm_90" "-arch=sm_90 -arch=sm_80" "-arch=sm_90a -arch=sm_90" "-arch=sm_80 -arch=sm_80" \
    "-arch=sm_80 --gpu-architecture=sm_90" "-arch=compute_80 -arch=sm_90" "-arch=sm_100f -arch=sm_100" \
    "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90" \
    "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_80,code=sm_80" \
    "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_80,code=compute_80" \
    "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90a,code=sm_90a" \
    "-gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_100f,code=sm_100f" \
    "-gencode=arch=compute_100f,code=sm_100 -gencode=arch=compute_100,code=sm_100" \
    "-gencode=arch=compute_80,code=sm_86 -gencode=arch=compute_86,code=sm_86" \
    "-gencode=arch=compute_100,code=sm_103 -gencode=arch=compute_100f,code=sm_103" \
    "-arch=sm_80 -gencode=arch=compute_90,code=sm_90" "-gencode=arch=compute_90,code=sm_90 -arch=sm_80" \
    "-arch=sm_90a -gencode=arch=compute_90a,code=sm_90a" "-arch=compute_80 -gencode=arch=compute_90,code=sm_90" \
    "-arch=sm_80 -code=sm_80 -gencode=arch=compute_90,code=sm_90" "-arch=compute_80 -code=sm_80 -gencode=arch=compute_90,code=sm_90" \
    "-gencode=arch=compute_80,code=sm_80 -code=sm_86" "-arch=sm_75 -arch=sm_80 -arch=sm_86" \
    "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=[sm_90a,compute_90a]" \
    "-gencode=arch=compute_100f,code=sm_100f -gencode=arch=compute_120f,code=sm_120f -gencode=arch=compute_120,code=compute_120" \
    "-arch=sm_90 -gencode=arch=compute_90,code=sm_90" "-arch=sm_100a -gencode=arch=compute_100f,code=sm_100f"; do
    echo "$v"
  done
  # LTO IR: code=lto_ needs relocatable device code (-rdc=true); -dlto conflicts with -gencode.
  for v in "-gencode=arch=compute_90,code=lto_90 -rdc=true" "-rdc=true -gencode=arch=compute_90,code=lto_90" \
    "--relocatable-device-code=true -gencode=arch=compute_90,code=lto_90" "-gencode=arch=compute_90,code=lto_90 -rdc true" \
    "-gencode=arch=compute_80,code=lto_86 -rdc=true" "-gencode=arch=compute_90,code=lto_80 -rdc=true" \
    "-gencode=arch=compute_90a,code=lto_90a -rdc=true" "-gencode=arch=compute_90,code=lto_90a -rdc=true" \
    "-gencode=arch=compute_90a,code=lto_90 -rdc=true" "-gencode=arch=compute_100f,code=lto_100f -rdc=true" \
    "-gencode=arch=compute_100f,code=lto_103 -rdc=true" "-gencode=arch=compute_100f,code=lto_103f -rdc=true" \
    "-gencode=arch=compute_100,code=lto_100f -rdc=true" "-gencode=arch=compute_100,code=lto_120f -rdc=true" \
    "-gencode=arch=compute_100f,code=lto_120 -rdc=true" "-gencode=arch=compute_100f,code=lto_100 -rdc=true" \
    "-gencode=arch=compute_100f,code=lto_103a -rdc=true" "-gencode=arch=compute_90,code=lto_100a -rdc=true" "-gencode=arch=compute_90,code=[lto_90,sm_90] -rdc=true" \
    "-gencode=arch=compute_90,code=[lto_90,compute_90] -rdc=true" "-arch=compute_90 -code=lto_90 -rdc=true" \
    "-arch=compute_90 -code=lto_90,sm_90 -rdc=true" "-gencode=arch=compute_90,code=lto_90 -dlto" \
    "-gencode=arch=compute_90,code=lto_90 -rdc=true -dlto" "-gencode=arch=compute_90,code=lto_90 -rdc=false" \
    "-gencode=arch=compute_90,code=sm_90 -rdc=true" "-arch=sm_90 -rdc=true" "-arch=lto_90 -rdc=true" \
    "-gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90,code=lto_90 -gencode=arch=compute_90a,code=sm_90a -rdc=true" \
    "-gencode=arch=compute_100,code=lto_100 -gencode=arch=compute_100f,code=lto_100f -rdc=true" \
    "-gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_100,code=lto_100 -rdc=true" \
    "-gencode=arch=compute_120f,code=lto_120f -gencode=arch=compute_90,code=lto_90 -rdc=true"; do
    echo "$v"
  done
}

if [[ $LIST_ONLY == 1 ]]; then corpus; exit 0; fi

if [[ -z $CUOBJDUMP ]]; then
  if [[ -x $(dirname "$NVCC")/cuobjdump ]]; then
    CUOBJDUMP=$(dirname "$NVCC")/cuobjdump
  else
    CUOBJDUMP=$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1 || true)
  fi
fi
[[ -x $NVCC ]] || { echo "record-nvcc-flags.sh: no nvcc at $NVCC" >&2; exit 2; }
[[ -x ${CUOBJDUMP:-} ]] || { echo "record-nvcc-flags.sh: no cuobjdump (see --help for the wheel)" >&2; exit 2; }

VERSION_LINE=$("$NVCC" --version | grep -m1 'release')
RELEASE=$(sed -E 's/.*release ([0-9]+\.[0-9]+).*/\1/' <<<"$VERSION_LINE")
CUOBJDUMP_LINE=$("$CUOBJDUMP" --version | grep -m1 'release')
OUT=${OUT:-$REPO/tests/data/nvcc_flags_$RELEASE.tsv}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo '__global__ void k(int* p) { *p = 1; }' >"$WORK/k.cu"

corpus | awk '!seen[$0]++' | awk '{ printf "%d\t%s\n", NR - 1, $0 }' >"$WORK/jobs"
export NVCC CUOBJDUMP WORK
probe() {
  local n=$1 flags=$2 log rc msg images
  mkdir -p "$WORK/$n"
  # Word splitting of the flag string is the point: it is what a shell hands nvcc.
  # shellcheck disable=SC2086
  log=$(cd "$WORK/$n" && cp ../k.cu . && timeout 120 "$NVCC" -c k.cu -o k.o $flags 2>&1) && rc=0 || rc=$?
  if [[ $rc -eq 0 ]]; then
    images=$("$CUOBJDUMP" -elf -ptx "$WORK/$n/k.o" 2>/dev/null |
      awk '/^Fatbin (elf|ptx|nvvm) code/ { kind = $2 } /^arch = / && kind { k = kind == "nvvm" ? "lto" : kind; print k ":" $3; kind = "" }' |
      sort -u | tr '\n' ' ')
    printf '%s\t%s\taccepted\t%s\t-\n' "$n" "$flags" "${images% }"
  else
    msg=$(grep -m1 -E 'fatal|error' <<<"$log" || head -1 <<<"$log")
    msg=$(tr -s ' \t' ' ' <<<"$msg")
    printf '%s\t%s\trefused\t-\t%s\n' "$n" "$flags" "${msg:-exit $rc}"
  fi
  rm -rf "${WORK:?}/$n"
}
export -f probe
tr '\n' '\0' <"$WORK/jobs" | xargs -0 -P "$JOBS" -n 1 bash -c 'probe "${1%%	*}" "${1#*	}"' _ | sort -n >"$WORK/results"

{
  echo "# nvcc_flags_$RELEASE.tsv - how one real nvcc reads target flags: accepted or refused, and the images it embeds."
  echo "# Generated by scripts/toolkits/record-nvcc-flags.sh on $(date -u +%Y-%m-%d); do not edit by hand."
  echo "# nvcc: $NVCC ($VERSION_LINE)"
  echo "# cuobjdump: $CUOBJDUMP_LINE"
  echo "# Command per row: nvcc -c k.cu -o k.o FLAGS, k.cu = '__global__ void k(int* p) { *p = 1; }', FLAGS split at spaces."
  echo "# Images: cuobjdump -elf -ptx k.o, the 'arch = ' of each Fatbin elf/ptx/nvvm header (nvvm written lto:), sorted."
  echo "# Columns: flags, nvcc (accepted | refused), images ('-' when refused), message (nvcc's first fatal/error line, or '-')."
  echo "# Checked offline by tests/nvcc_flags_test.cpp; live (a sample) by tests/conformance/check-nvcc-flags-live.sh."
  printf 'flags\tnvcc\timages\tmessage\n'
  cut -f2- "$WORK/results"
} >"$OUT"
echo "record-nvcc-flags.sh: $(wc -l <"$WORK/jobs") flag strings, $(grep -c $'\trefused\t' "$OUT" || true) refused -> $OUT"
