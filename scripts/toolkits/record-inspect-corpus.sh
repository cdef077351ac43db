#!/usr/bin/env bash
# record-inspect-corpus.sh - build small CUDA artefacts in every form with a real nvcc, and record
# what cuobjdump lists in each: the oracle for `cuarch inspect` (include/cuarch/core/fatbin.hpp,
# tests/inspect_test.cpp, docs/inspect.md).
#
# Usage:  scripts/toolkits/record-inspect-corpus.sh [--nvcc PATH] [--ptxas PATH] [--cuobjdump PATH]
#                                                  [--append] [-o DIR]
#           defaults: nvcc /usr/local/cuda/bin/nvcc; cuobjdump next to nvcc, else the newest one
#           unpacked under ~/.cache/cuarch/cuobjdump/ (scripts/toolkits/fetch-tool-wheels.sh
#           --cuobjdump fetches it); DIR tests/data/inspect (artefacts + corpus.tsv there).
#           The forms follow nvcc's release: 13.x every form below; 12.x those its flags have (no
#           --compress-mode, no f targets, nothing past sm_90a for 12.4).
#           --ptxas PATH: instead, bare cubins that this ptxas assembles from the PTX nvcc writes
#           (compute_90): the corpus of a release whose nvcc driver is not at hand (ptxas 12.8's wheel).
#           --append: build and record only the forms DIR/corpus.tsv does not list yet, leaving the
#           recorded artefacts as they are.
# Recorded: tests/data/inspect (nvcc 13.0.88); tests/data/inspect/nvcc-12.4 (nvcc 12.4.131, the
# toolchain scripts/toolkits/fetch-nvcc12-toolchain.sh assembles); tests/data/inspect/ptxas-12.8
# (--ptxas: ptxas 12.8.93 of scripts/toolkits/fetch.sh nvcc 12.8, PTX by nvcc 12.4).
#
# Each row of DIR/corpus.tsv:  FILE <TAB> NVCC ARGUMENTS <TAB> IMAGES
# IMAGES: every image `cuobjdump -all FILE` lists (its header dump: no disassembly), in file order,
# space-separated, as KIND:ARCH:CODE_VERSION[:z]   KIND elf|ptx|nvvm, ARCH as in cuobjdump's
# `arch = ` line (with the a/f suffix, which --list-elf drops), CODE_VERSION `code version = [M,m]`
# as M.m (the PTX ISA version for ptx), z when cuobjdump says `compressed`. For a .ptx file (which
# cuobjdump does not read) the row is ptx:sm_XY:V from the text's own .target and .version lines.
# For a .cubin (whose header dump cuobjdump leaves empty) the row is elf:sm_NN from the `sm=` of
# `cuobjdump -elf` ("90a"; it drops the f of a family-specific cubin; "64bit elf: ... sm=90a, toolkit=124"
# before ELF ABI 8). A file without device code: the single word none.
# Needs: bash, nvcc (13.0 recorded), cuobjdump, g++ (nvcc's host compiler).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
NVCC=/usr/local/cuda/bin/nvcc
PTXAS=
APPEND=0
CUOBJDUMP=
OUT=$REPO/tests/data/inspect
while [[ $# -gt 0 ]]; do
  case $1 in
    --nvcc) NVCC=$2; shift 2 ;;
    --ptxas) PTXAS=$2; shift 2 ;;
    --append) APPEND=1; shift ;;
    --cuobjdump) CUOBJDUMP=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "record-inspect-corpus.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z $CUOBJDUMP ]]; then
  if [[ -x $(dirname "$NVCC")/cuobjdump ]]; then CUOBJDUMP=$(dirname "$NVCC")/cuobjdump
  else CUOBJDUMP=$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1); fi
fi
[[ -x $NVCC && -x $CUOBJDUMP ]] || { echo "record-inspect-corpus.sh: need nvcc ($NVCC) and cuobjdump ($CUOBJDUMP)" >&2; exit 2; }

WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/k.cu" <<'CU'
__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }
CU
cat >"$WORK/m.cu" <<'CU'
__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }
int main() { k<<<1, 1>>>(nullptr); return 0; }
CU
printf 'int host_only(int x) { return x + 1; }\n' >"$WORK/h.cpp"

release=$("$NVCC" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
# name | nvcc arguments (the output kind follows from the name's extension)
forms() {
  if [[ -n $PTXAS ]]; then
    for sm in 90 90a 100a 120; do echo "k_sm_$sm.cubin|ptxas -arch=sm_$sm k_compute_90.ptx"; done
    return
  fi
  if [[ $release == 12.* ]]; then
    cat <<'F'
sm_75.o|-c k.cu -arch=sm_75
sm_80.o|-c k.cu -gencode arch=compute_80,code=sm_80
sm_90.o|-c k.cu -arch=sm_90
sm_90a.o|-c k.cu -arch=sm_90a
compute_90.o|-c k.cu -gencode arch=compute_90,code=compute_90
mix_80_90a_c90.o|-c k.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90
compress_all.o|-c k.cu -arch=sm_90 -Xfatbin=-compress-all
no_compress.o|-c k.cu -arch=sm_90 --no-compress
rdc_sm_90.o|-c k.cu -rdc=true -arch=sm_90
lto_90.o|-c k.cu -dlto -arch=sm_90
debug_sm_86.o|-c k.cu -G -arch=sm_86
libk_sm_90a.so|-shared -Xcompiler -fPIC k.cu -arch=sm_90a -cudart=shared
libk_80_90a_c90.so|-shared -Xcompiler -fPIC k.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90 -cudart=shared
libk_sm_90.a|-lib k.cu -arch=sm_90
libk_compress_all.a|-lib k.cu -arch=sm_89 -Xfatbin=-compress-all
exe_sm_80_90|m.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] -cudart=shared
exe_compute_86|m.cu -gencode arch=compute_86,code=compute_86 -cudart=shared
exe_compress_compute_90|m.cu -gencode arch=compute_90,code=compute_90 -Xfatbin=-compress-all -cudart=shared
exe_rdc_sm_90|m.cu -rdc=true -arch=sm_90 -cudart=shared
k_sm_90a.cubin|-cubin k.cu -arch=sm_90a
k_sm_89.cubin|-cubin k.cu -arch=sm_89
k_sm_90.fatbin|-fatbin k.cu -gencode arch=compute_90,code=[sm_90,compute_90]
k_compress_all.fatbin|-fatbin k.cu -arch=sm_89 -Xfatbin=-compress-all
k_compute_90.ptx|-ptx k.cu -arch=compute_90
F
    return
  fi
  cat <<'F'
sm_75.o|-c k.cu -arch=sm_75
sm_80.o|-c k.cu -gencode arch=compute_80,code=sm_80
sm_86_89.o|-c k.cu -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89
sm_90.o|-c k.cu -arch=sm_90
sm_90a.o|-c k.cu -arch=sm_90a
compute_90.o|-c k.cu -gencode arch=compute_90,code=compute_90
compute_90a.o|-c k.cu -gencode arch=compute_90a,code=compute_90a
sm_100a.o|-c k.cu -gencode arch=compute_100a,code=sm_100a
sm_100f.o|-c k.cu -arch=sm_100f
sm_103f_110f.o|-c k.cu -gencode arch=compute_103f,code=sm_103f -gencode arch=compute_110f,code=[sm_110f,compute_110f]
sm_120.o|-c k.cu -gencode arch=compute_120,code=sm_120
compute_120.o|-c k.cu -gencode arch=compute_120,code=compute_120
sm_120f_121a.o|-c k.cu -gencode arch=compute_120f,code=[sm_120f,compute_120f] -gencode arch=compute_121a,code=sm_121a
mix_80_90a_c90.o|-c k.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90
mix_89_100a_120.o|-c k.cu -gencode arch=compute_89,code=sm_89 -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_120,code=[sm_120,compute_120]
all_major.o|-c k.cu -arch=all-major
compress_all.o|-c k.cu -arch=sm_90 -Xfatbin=-compress-all
compress_size.o|-c k.cu -arch=sm_90 --compress-mode=size
compress_speed.o|-c k.cu -arch=sm_90 --compress-mode=speed
compress_balance.o|-c k.cu -arch=sm_90 --compress-mode=balance
compress_none.o|-c k.cu -arch=sm_90 --compress-mode=none
no_compress.o|-c k.cu -arch=sm_120 --no-compress
rdc_sm_90.o|-c k.cu -rdc=true -arch=sm_90
lto_90.o|-c k.cu -dlto -arch=sm_90
lto_100f.o|-c k.cu -rdc=true -gencode arch=compute_100f,code=lto_100f
debug_sm_86.o|-c k.cu -G -arch=sm_86
libk_sm_90a.so|-shared -Xcompiler -fPIC k.cu -arch=sm_90a -cudart=shared
exe_sm_80_120|m.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_120,code=[sm_120,compute_120] -cudart=shared
exe_rdc_sm_90|m.cu -rdc=true -arch=sm_90 -cudart=shared
host_only.o|-c h.cpp
k_sm_90a.cubin|-cubin k.cu -arch=sm_90a
k_sm_100f.cubin|-cubin k.cu -arch=sm_100f
k_sm_121.cubin|-cubin k.cu -arch=sm_121
k_sm_120.fatbin|-fatbin k.cu -gencode arch=compute_120,code=[sm_120,compute_120]
k_compress_all.fatbin|-fatbin k.cu -arch=sm_89 -Xfatbin=-compress-all
k_compute_90a.ptx|-ptx k.cu -arch=compute_90a
k_compute_120f.ptx|-ptx k.cu -arch=compute_120f
exe_compute_86|m.cu -gencode arch=compute_86,code=compute_86 -cudart=shared
exe_compress_compute_90|m.cu -gencode arch=compute_90,code=compute_90 -Xfatbin=-compress-all -cudart=shared
libk_80_90a_c90.so|-shared -Xcompiler -fPIC k.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90 -cudart=shared
libk_compress_all_c90.so|-shared -Xcompiler -fPIC k.cu -gencode arch=compute_90,code=[sm_90,compute_90] -Xfatbin=-compress-all -cudart=shared
libk_sm_90.a|-lib k.cu -arch=sm_90
libk_mix_89_100a_120.a|-lib k.cu -gencode arch=compute_89,code=sm_89 -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_120,code=[sm_120,compute_120]
libk_rdc_compress_all.a|-lib k.cu -rdc=true -arch=sm_90 -Xfatbin=-compress-all
F
}

images() {  # the cuobjdump header dump of $1 as KIND:ARCH:VERSION[:z] words
  { "$CUOBJDUMP" -all "$1" 2>&1 || true; } | awk '
    /^Fatbin (elf|ptx|nvvm) code:/ { if (w != "") out = out " " w; w = $2; next }
    /^arch = /                      { w = w ":" $3; next }
    /^code version = /              { v = $4; gsub(/[][]/, "", v); sub(/,/, ".", v); w = w ":" v; next }
    /^compressed$/                  { w = w ":z"; next }
    END { if (w != "") out = out " " w; sub(/^ /, "", out); print (out == "" ? "none" : out) }'
}

mkdir -p "$OUT"
tsv=$OUT/corpus.tsv
builder="nvcc $release"
[[ -n $PTXAS ]] && builder="ptxas $("$PTXAS" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p') (PTX by nvcc $release)"
if [[ $APPEND == 0 || ! -f $tsv ]]; then
  {
    echo "# cuobjdump's listing of $builder artefacts (scripts/toolkits/record-inspect-corpus.sh; $(basename "$CUOBJDUMP") $("$CUOBJDUMP" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p;s/.*V\([0-9.]*\)$/\1/p' | tail -1))"
    echo "# file	nvcc arguments	images (kind:arch:code version[:z compressed])"
  } >"$tsv"
fi
[[ -n $PTXAS ]] && (cd "$WORK" && "$NVCC" -ptx k.cu -arch=compute_90 -o k_compute_90.ptx)
while IFS='|' read -r name args; do
  [[ $APPEND == 1 ]] && cut -f1 "$tsv" | grep -qxF "$name" && continue
  if [[ $args == ptxas\ * ]]; then (cd "$WORK" && eval "\"$PTXAS\" ${args#ptxas } -o \"$name\"") >/dev/null
  else (cd "$WORK" && eval "\"$NVCC\" $args -o \"$name\"") >/dev/null; fi
  case $name in
    *.cubin) list="elf:sm_$({ "$CUOBJDUMP" -elf "$WORK/$name" || true; } | sed -n 's/^64-\{0,1\}bit [Ee][Ll][Ff]: .* sm=\([0-9a-z]*\),.*/\1/p' | head -1)" ;;
    *.ptx) list="ptx:$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$WORK/$name"):$(sed -n 's/^\.version //p' "$WORK/$name")" ;;
    *) list=$(images "$WORK/$name") ;;
  esac
  cp "$WORK/$name" "$OUT/$name"
  printf '%s\t%s\t%s\n' "$name" "$args" "$list" >>"$tsv"
  echo "$name: $list"
done < <(forms)
echo "wrote $tsv ($(du -sh "$OUT" | cut -f1))"
