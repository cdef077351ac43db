#!/usr/bin/env bash
# The tools' own code for tests/conformance/check-tool-env.py and scripts/gpu/stage-tool-env.sh:
# flashinfer-python 0.7.4 and apache-tvm-ffi 0.1.15.post2 (pip download --no-deps, unpacked), with the
# small pure-Python wheels FlashInfer's JIT imports (filelock, packaging, typing_extensions), in
# ~/.cache/cuarch/wheels-tools (CUARCH_CACHE); with CUARCH_FETCH_TRITON=1 also triton 3.9.0's knobs.py.
# Fetched once; CUARCH_OFFLINE=1 only checks the cache.
# PyTorch's torch/utils/cpp_extension.py comes from scripts/toolkits/record-torch-arch-list.py
# (--torch 2.15.0 caches it in ~/.cache/cuarch/torch/2.15.0). Prints the cache directory.
#
# --inspect [cupy|small]: instead, the wheels with CUDA code that scripts/toolkits/compare-inspect-real.sh
# and ctest inspect_real_wheels_test compare with cuobjdump (docs/inspect.md): CuPy 14.2.0 for CUDA 12 and
# 13 and NVIDIA's cuBLAS, cuFFT, cuRAND, cuSPARSE, NCCL wheels (the pinned versions below, 2.5 GB), in
# ~/.cache/cuarch/wheels-inspect, each unpacked (its *.so* and *.a members only) into a directory
# named after the wheel. `--inspect cupy`: the two CuPy wheels only. `--inspect small`: the set ctest
# inspect_real_wheels_test fetches (222 MB): the two CuPy wheels, and NVIDIA's CUDA runtime and nvJPEG
# wheels for CUDA 12 and 13 (libcudadevrt.a, libnvjpeg.so: images compressed with flag 0x2000 by
# CUDA 12, 0x8000 by CUDA 13), each checked against its sha256 below. Prints the cache directory.
# --cuobjdump: cuobjdump 13.2.51 (nvidia-cuda-cuobjdump, sha256 checked), unpacked in
# ~/.cache/cuarch/cuobjdump/13.2.51, where every script looks for it. Prints the binary's path.
# Exit 0 all there; 1 a download failed its sha256, or unpacking failed; 77 not cached and it cannot
# be fetched (CUARCH_OFFLINE=1, or pip could not download it: pip's words are on stderr).
set -euo pipefail
# The sha256 of each wheel the small set and --cuobjdump fetch (CuPy's: the cp311 manylinux2014 build).
declare -A sha256=(
  [cupy-cuda13x==14.2.0]=f94843e54500a9c8c169135f79572bfaba946efe4f7178e834c227280c1b0c12
  [cupy-cuda12x==14.2.0]=5fe2366cc5c61a7ee4a527ce1e8951cb89092d0fb0b5830623cf114d1942c585
  [nvidia-cuda-runtime==13.5.37]=df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d
  [nvidia-cuda-runtime-cu12==12.9.79]=25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3
  [nvidia-nvjpeg==13.3.2.43]=27f9c4a25a73f1d1ad35c342c8d657c8ff43e23877f338ef15fb2602ac2e5aa8
  [nvidia-nvjpeg-cu12==12.4.0.76]=3888f10b32fbd58e80166c48e01073732d752fa5f167b7cb5b9615f1c6375a20
  [nvidia-cuda-cuobjdump==13.2.51]=95c69d3ddf0c2c1f535ec44c3433a66aeee19f588d9d22f73356e20b25f12b50
)
download() {  # download <requirement> <directory>: pip download, its sha256 checked where one is pinned
  local req=$1 dir=$2 log rc=0
  [[ ${CUARCH_OFFLINE:-0} == 1 ]] && { echo "skipped: $req is not cached in $dir (offline)" >&2; exit 77; }
  local pins=("$req") reqs
  reqs=$(mktemp)
  echo "$req --hash=sha256:${sha256[$req]:-}" >"$reqs"
  [[ -n ${sha256[$req]:-} ]] && pins=(--require-hashes -r "$reqs")
  log=$(mktemp)
  # CuPy's wheels are per Python: the cp311 ones (any would do: only their CUDA code is read).
  pip download -q --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux2014_x86_64 \
    --platform manylinux_2_27_x86_64 -d "$dir" "${pins[@]}" >"$log" 2>&1 || rc=$?
  cat "$log" >&2
  rm -f "$reqs"
  if ((rc != 0)); then
    # Bytes that are not the pinned ones fail; a download that cannot happen (no network, no index) skips.
    grep -q 'DO NOT MATCH THE HASHES' "$log" && { rm -f "$log"; echo "error: $req does not match its sha256" >&2; exit 1; }
    rm -f "$log"; echo "skipped: $req could not be downloaded into $dir (pip exit $rc, above)" >&2; exit 77
  fi
  rm -f "$log"
}
if [[ ${1:-} == --cuobjdump || ${1:-} == --inspect ]]; then
  # Two tests may fetch at once (ctest -j): one at a time, the second finds the first's cache.
  mkdir -p "${CUARCH_CACHE:-$HOME/.cache/cuarch}"
  exec 9>"${CUARCH_CACHE:-$HOME/.cache/cuarch}/.fetch-tool-wheels.lock"
  flock -w 3600 9 || { echo "error: could not lock ${CUARCH_CACHE:-$HOME/.cache/cuarch}/.fetch-tool-wheels.lock" >&2; exit 1; }
fi
if [[ ${1:-} == --cuobjdump ]]; then
  dir="${CUARCH_CACHE:-$HOME/.cache/cuarch}/cuobjdump"
  bin=$dir/13.2.51/nvidia/cu13/bin/cuobjdump
  if [[ ! -x $bin ]]; then
    mkdir -p "$dir"
    compgen -G "$dir/nvidia_cuda_cuobjdump-13.2.51-*.whl" >/dev/null || download nvidia-cuda-cuobjdump==13.2.51 "$dir"
    rm -rf "$dir/13.2.51.partial"
    python3 -m zipfile -e "$(compgen -G "$dir/nvidia_cuda_cuobjdump-13.2.51-*.whl" | head -n1)" "$dir/13.2.51.partial"
    chmod +x "$dir/13.2.51.partial/nvidia/cu13/bin/cuobjdump"  # zipfile does not keep the mode
    mv "$dir/13.2.51.partial" "$dir/13.2.51"
  fi
  echo "$bin"
  exit 0
fi
if [[ ${1:-} == --inspect ]]; then
  cache="${CUARCH_CACHE:-$HOME/.cache/cuarch}/wheels-inspect"
  mkdir -p "$cache"
  wheels=(cupy-cuda13x==14.2.0 cupy-cuda12x==14.2.0)
  case ${2:-} in
    cupy) ;;
    small) wheels+=(nvidia-cuda-runtime==13.5.37 nvidia-cuda-runtime-cu12==12.9.79 nvidia-nvjpeg==13.3.2.43
      nvidia-nvjpeg-cu12==12.4.0.76) ;;
    *) wheels+=(nvidia-cufft==12.5.0.14 nvidia-cufft-cu12==11.4.1.4 nvidia-curand==10.4.5.25
      nvidia-curand-cu12==10.3.7.77 nvidia-cusparse-cu12==12.5.10.65 nvidia-nccl-cu13==2.27.7 nvidia-nccl-cu12==2.27.7
      nvidia-cublas==13.10.0.20 nvidia-cublas-cu12==12.9.3.13) ;;
  esac
  for req in "${wheels[@]}"; do
    stem="$(echo "${req%%==*}" | tr - _)-${req##*==}"  # the wheel's file name starts with it
    [[ -d $cache/$stem ]] && continue
    compgen -G "$cache/$stem-*.whl" >/dev/null || download "$req" "$cache"
    rm -rf "$cache/$stem.partial"
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
