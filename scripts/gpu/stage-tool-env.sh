#!/usr/bin/env bash
# Stages, on a machine with network and the CUDA 13 toolkit, what scripts/gpu/tool-env-on-gpu.sh needs
# on the GPU machine (no registry there; a device call carries at most 64 MiB): build-tool-env/ with
#   cuarch           the command line (stripped) and lib/libfmt.so.* it links
#   flashinfer/      the part of flashinfer-python 0.7.4 that its JIT path for the norm module really
#                    uses: the Python modules it imports (without the package __init__, which imports
#                    every kernel module and their many dependencies) and the data/ files nvcc read
#                    while FlashInfer's own JIT built the module here (ninja -t deps) - about 10 MB of
#                    the wheel's 101 MB (715 MB unpacked)
#   wheels/          apache-tvm-ffi 0.1.15.post2 (FlashInfer's FFI; a compiled module), filelock, packaging
# The JIT build here is also the CPU check: FlashInfer's own build code, run with the variables of
# `cuarch env --for flashinfer --device-cc 9.0`, compiles its norm module with the nvcc cuarch names.
#   bash scripts/gpu/stage-tool-env.sh [CUARCH_CLI]     (default build/cuarch)
# then run on the GPU machine, carrying build-tool-env:  bash scripts/gpu/tool-env-on-gpu.sh
# Cache: ~/.cache/cuarch/wheels-tools (scripts/toolkits/fetch-tool-wheels.sh; fetched once).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cli="$(realpath "${1:-$root/build/cuarch}")"
cache=$(bash "$root/scripts/toolkits/fetch-tool-wheels.sh")
first() { compgen -G "$cache/$1" | head -n1; }
filelock_wheel=$(first 'filelock-*.whl') packaging_wheel=$(first 'packaging-*.whl')
fi_tree="$cache/flashinfer-0.7.4" tvm_tree="$cache/tvm-ffi-0.1.15.post2"
stage="$root/build-tool-env"

rm -rf "$stage" && mkdir -p "$stage/wheels" "$stage/lib" "$stage/flashinfer"
cp "$cache"/apache_tvm_ffi-0.1.15.post2-cp3*.whl "$filelock_wheel" "$packaging_wheel" "$stage/wheels/"
strip -o "$stage/cuarch" "$cli"
for lib in $(ldd "$cli" | awk '/libfmt/ {print $3}'); do cp -L "$lib" "$stage/lib/"; done

# FlashInfer's JIT, here, with the variables cuarch prints for an H200 (cc 9.0).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
eval "$("$cli" env --for flashinfer --device-cc 9.0)"
export FLASHINFER_WORKSPACE_BASE="$work" MAX_JOBS="${MAX_JOBS:-2}"
PYTHONPATH="$tvm_tree:$filelock_wheel:$packaging_wheel" python3 "$root/scripts/gpu/flashinfer_jit.py" "$fi_tree" build | tee "$work/jit.log"
build_dir=$(sed -n 's/^build dir: //p' "$work/jit.log")
{
  sed -n 's/^imported: //p' "$work/jit.log"
  ninja -C "$build_dir" -t deps | grep -o "$fi_tree/[^ ]*" | sed "s|^$fi_tree/||"
} | sort -u >"$work/files"
(cd "$fi_tree" && tar -cf - -T "$work/files") | (cd "$stage/flashinfer" && tar -xf -)
echo "staged $(wc -l <"$work/files") files of flashinfer-python 0.7.4; $(du -sh "$stage" | cut -f1) in $stage"
echo "carry: build-tool-env (with the working tree: $(du -sh --exclude='build*' --exclude=.git "$root" | cut -f1) + $(du -sh "$stage" | cut -f1); the limit is 64 MiB)"
