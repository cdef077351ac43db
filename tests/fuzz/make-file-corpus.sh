#!/usr/bin/env bash
# make-file-corpus.sh [OUT] - (re)builds tests/fuzz/file-corpus, the seeds of file_fuzz (toolkit files,
# dist-info / conda-meta names, nvcc output, and the ELF readers: library header check and build-id),
# from real files where this machine has them. From an empty corpus, CI's 8-second run explored
# almost nothing past the first bytes; seeded, it starts inside each format. Kept small (< 1 MB; each
# seed at most 4 KiB, the first bytes of a real file where it is larger: truncated copies are seeds
# too). Sources, each used only when present:
#   cuda.h         ~/.cache/cuarch/toolkits/*/**/cuda.h and /usr/local/cuda/include/cuda.h: the lines
#                  up to and including '#define CUDA_VERSION'
#   version.json   as CUDA 12.4.1 ships it (tests/toolkit_files_test.cpp), cut at two points
#   version.txt    the format of CUDA <= 11.0 ("CUDA Version 11.0.228")
#   tool output    `nvcc --version` of the local toolkit, `ptxas --version` of cached nvcc wheels
#   names          dist-info and conda-meta names as pip and conda write them
#   ELF            the first 4 KiB of small real shared libraries (glibc's libdl, libpthread, libutil,
#                  librt), one cut inside its header, a linker script (libc.so), an ET_REL object
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/file-corpus}
mkdir -p "$out"
seed() {  # seed NAME < data: the first 4 KiB
  head -c 4096 >"$out/$1"
}
for h in /usr/local/cuda/include/cuda.h "$HOME"/.cache/cuarch/toolkits/*/nvidia/*/include/cuda.h; do
  [[ -f $h ]] || continue
  v=$(grep -m1 -o 'define CUDA_VERSION [0-9]*' "$h" | grep -o '[0-9]*$') || continue
  line=$(grep -n -m1 'define CUDA_VERSION' "$h" | cut -d: -f1)
  # The comment block is long; keep the includes/guards before the define and the define itself.
  { grep -m20 -E '^#(if|ifndef|define|include)' "$h"; sed -n "${line}p" "$h"; } | seed "cuda-h-$v"
done
json='{
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.4.1"
   },
   "cuda_cccl" : { "name" : "CUDA C++ Core Compute Libraries", "version" : "12.4.127" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "12.4.127" },
   "cuda_nvcc" : { "name" : "CUDA NVCC", "version" : "12.4.131" },
   "nvidia_driver" : { "name" : "NVIDIA Linux Driver", "version" : "550.54.15" }
}'
printf '%s\n' "$json" | seed version-json-12.4.1
printf '%s' "$json" | head -c 60 | seed version-json-cut-in-cuda
printf '%s' "$json" | head -c 200 | seed version-json-cut-after-cuda
printf 'CUDA Version 11.0.228\n' | seed version-txt-11.0
printf 'CUDA Version 10.2.89' | seed version-txt-10.2-no-newline
for nvcc in /usr/local/cuda/bin/nvcc "$HOME"/.cache/cuarch/toolkits/nvcc-*/nvidia/cuda_nvcc/bin/{nvcc,ptxas}; do
  [[ -x $nvcc ]] || continue
  text=$(timeout 10 "$nvcc" --version 2>/dev/null) || continue
  v=$(grep -o 'V[0-9][0-9.]*' <<<"$text" | head -1)
  printf '%s\n' "$text" | seed "$(basename "$nvcc")-version-$v"
done
for name in nvidia_cuda_nvrtc_cu12-12.8.93 nvidia_cuda_nvrtc-13.0.88 nvidia_cuda_runtime_cu11-11.8.89 \
  nvidia_cuda_nvcc_cu12-12.4.131 cuda-nvcc-12.4.131-0 cuda-nvrtc-12.8.93-h5888daf_1; do
  printf '%s' "$name" | seed "name-$name"
done
# glibc's (LGPL) only: no bytes of NVIDIA's libraries are committed.
for lib in /usr/lib/x86_64-linux-gnu/libdl.so.2 /usr/lib/x86_64-linux-gnu/libpthread.so.0 /usr/lib/x86_64-linux-gnu/libutil.so.1 \
  /usr/lib/x86_64-linux-gnu/librt.so.1; do
  [[ -f $lib ]] || continue
  seed "elf-$(basename "$lib")" <"$lib"
done
[[ -f /usr/lib/x86_64-linux-gnu/libdl.so.2 ]] && head -c 40 /usr/lib/x86_64-linux-gnu/libdl.so.2 | seed elf-header-cut
[[ -f /usr/lib/x86_64-linux-gnu/libc.so ]] && seed linker-script-libc.so </usr/lib/x86_64-linux-gnu/libc.so
if command -v cc >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  printf 'int f(void) { return 1; }\n' >"$tmp/f.c"
  cc -c -O1 -o "$tmp/f.o" "$tmp/f.c" && seed elf-relocatable-object <"$tmp/f.o"
  rm -rf "$tmp"
fi
echo "$(ls "$out" | wc -l) seeds, $(du -sk "$out" | cut -f1) KiB in $out"
