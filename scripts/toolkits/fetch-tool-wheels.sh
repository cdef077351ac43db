#!/usr/bin/env bash
# The tools' own code for tests/conformance/check-tool-env.py and scripts/gpu/stage-tool-env.sh:
# flashinfer-python 0.7.4 and apache-tvm-ffi 0.1.15.post2 (pip download --no-deps, unpacked), with the
# small pure-Python wheels FlashInfer's JIT imports (filelock, packaging, typing_extensions), in
# ~/.cache/cuarch/wheels-tools (CUARCH_CACHE); with CUARCH_FETCH_TRITON=1 also triton 3.9.0's knobs.py.
# Fetched once; CUARCH_OFFLINE=1 only checks the cache.
# PyTorch's torch/utils/cpp_extension.py comes from scripts/toolkits/record-torch-arch-list.py
# (--torch 2.15.0 caches it in ~/.cache/cuarch/torch/2.15.0). Prints the cache directory.
#
# --inspect [cupy]: instead, the wheels with CUDA code that scripts/toolkits/compare-inspect-real.sh
# and ctest inspect_real_wheels_test compare with cuobjdump (docs/inspect.md): CuPy 14.2.0 for CUDA 12 and
# 13 and NVIDIA's cuBLAS, cuFFT, cuRAND, cuSPARSE, NCCL wheels (the pinned versions below, 2.5 GB), in
# ~/.cache/cuarch/wheels-inspect, each unpacked (its *.so* and *.a members only) into a directory
# named after the wheel. `--inspect cupy`: the two CuPy wheels only. Prints the cache directory.
# Exit 0 all there; 1 a download failed; 77 offline and not cached.
set -euo pipefail
if [[ ${1:-} == --inspect ]]; then
  cache="${CUARCH_CACHE:-$HOME/.cache/cuarch}/wheels-inspect"
  mkdir -p "$cache"
  wheels=(cupy-cuda13x==14.2.0 cupy-cuda12x==14.2.0)
  [[ ${2:-} == cupy ]] || wheels+=(nvidia-cufft==12.5.0.14 nvidia-cufft-cu12==11.4.1.4 nvidia-curand==10.4.5.25
    nvidia-curand-cu12==10.3.7.77 nvidia-cusparse-cu12==12.5.10.65 nvidia-nccl-cu13==2.27.7 nvidia-nccl-cu12==2.27.7
    nvidia-cublas==13.10.0.20 nvidia-cublas-cu12==12.9.3.13)
  for req in "${wheels[@]}"; do
    stem="$(echo "${req%%==*}" | tr - _)-${req##*==}"  # the wheel's file name starts with it
    [[ -d $cache/$stem ]] && continue
    if ! compgen -G "$cache/$stem-*.whl" >/dev/null; then
      [[ ${CUARCH_OFFLINE:-0} == 1 ]] && { echo "skipped: $req is not cached in $cache (offline)" >&2; exit 77; }
      # CuPy's wheels are per Python: the cp311 ones (any would do: only their CUDA code is read).
      pip download -q --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux2014_x86_64 \
        --platform manylinux_2_27_x86_64 -d "$cache" "$req" >&2
    fi
    python3 - "$(compgen -G "$cache/$stem-*.whl" | head -n1)" "$cache/$stem.partial" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if re.search(r"\.so(\.|$)|\.a$", name.rsplit("/", 1)[-1]):
            z.extract(name, sys.argv[2])
PY
    mv "$cache/$stem.partial" "$cache/$stem"
  done
  echo "$cache"
  exit 0
fi
cache="${CUARCH_CACHE:-$HOME/.cache/cuarch}/wheels-tools"
mkdir -p "$cache"
fetch() {  # fetch <requirement> <file glob>
  compgen -G "$cache/$2" >/dev/null && return 0
  [[ ${CUARCH_OFFLINE:-0} == 1 ]] && { echo "skipped: $1 is not cached in $cache (offline)" >&2; exit 77; }
  pip download -q --no-deps -d "$cache" "$1" >&2
}
unpack() {  # unpack <wheel glob> <directory>
  [[ -d $cache/$2 ]] && return 0
  mkdir -p "$cache/$2.partial" && (cd "$cache/$2.partial" && python3 -m zipfile -e "$(compgen -G "$cache/$1" | head -n1)" .)
  mv "$cache/$2.partial" "$cache/$2"
}
fetch flashinfer-python==0.7.4 'flashinfer_python-0.7.4-*.whl'
fetch apache-tvm-ffi==0.1.15.post2 "apache_tvm_ffi-0.1.15.post2-cp3$(python3 -c 'import sys; print(sys.version_info[1])')-*.whl"
# The GPU machine's Python is 3.12 and tvm-ffi's compiled module is built per Python: its wheel too.
if ! compgen -G "$cache/apache_tvm_ffi-0.1.15.post2-cp312-*.whl" >/dev/null && [[ ${CUARCH_OFFLINE:-0} != 1 ]]; then
  pip download -q --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 -d "$cache" \
    apache-tvm-ffi==0.1.15.post2 >&2
fi
fetch filelock 'filelock-*.whl'
fetch packaging 'packaging-*.whl'
fetch typing_extensions 'typing_extensions-*.whl'  # tvm_ffi imports it (tests/python/test_env_too_late.py)
unpack 'flashinfer_python-0.7.4-*.whl' flashinfer-0.7.4
unpack "apache_tvm_ffi-0.1.15.post2-cp3$(python3 -c 'import sys; print(sys.version_info[1])')-*.whl" tvm-ffi-0.1.15.post2
# Triton's wheel is 285 MB; its knobs.py (which names TRITON_PTXAS_PATH / TRITON_PTXAS_BLACKWELL_PATH)
# and backends/nvidia/compiler.py are all the check needs: on request only, and only they are kept.
if [[ ${CUARCH_FETCH_TRITON:-0} == 1 && ! -f $cache/triton-3.9.0/triton/knobs.py ]]; then
  [[ ${CUARCH_OFFLINE:-0} == 1 ]] && { echo "skipped: triton 3.9.0 is not cached in $cache (offline)" >&2; exit 77; }
  tmp=$(mktemp -d)
  pip download -q --no-deps -d "$tmp" triton==3.9.0 >&2
  python3 - "$tmp"/triton-3.9.0-*.whl "$cache/triton-3.9.0" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in ("triton/knobs.py", "triton/backends/nvidia/compiler.py"):
        z.extract(name, sys.argv[2])
PY
  rm -rf "$tmp"
fi
echo "$cache"
