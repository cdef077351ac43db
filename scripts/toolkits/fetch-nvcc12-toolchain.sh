#!/usr/bin/env bash
# fetch-nvcc12-toolchain.sh - a whole nvcc 12.4 toolchain that compiles, links and archives, for
# scripts/toolkits/record-inspect-corpus.sh (tests/data/inspect/nvcc-12.4/). PyPI has no nvcc driver
# before 13.0 and Debian's nvidia-cuda-dev (headers, 934 MB) is too large, so it is assembled from:
#   Debian's nvidia-cuda-toolkit 12.4.131~12.4.1-2 (apt-get download, 87 MB): nvcc, cicc, cudafe++,
#     fatbinary, nvlink, ptxas, bin2c, crt/*.stub, libdevice;
#   PyPI's nvidia-cuda-nvcc-cu12 12.4.131 (crt/ headers) and nvidia-cuda-runtime-cu12 12.4.127
#     (cuda_runtime.h and the rest, libcudart.so.12), through scripts/toolkits/fetch.sh;
# with an nvcc.profile for that layout. Host compiler: the machine's g++ (nvcc 12.4 takes gcc <= 13).
# Prints the root (ROOT/bin/nvcc). Cache: ~/.cache/cuarch/toolkits/nvcc-toolchain-12.4.131 (130 MB).
# Exit: 0 printed; 77 not cached and cannot be fetched (CUARCH_OFFLINE=1, no network, no apt).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${CUARCH_TOOLKIT_CACHE:-$HOME/.cache/cuarch/toolkits}
ver='12.4.131~12.4.1-2'
entry=$cache/nvcc-toolchain-12.4.131
skip() { echo "fetch-nvcc12-toolchain: $*" >&2; exit 77; }
[[ -x $entry/bin/nvcc ]] && { echo "$entry"; exit 0; }
[[ ${CUARCH_OFFLINE:-0} != 1 ]] || skip "CUARCH_OFFLINE=1 and $entry is not cached"
nvcc_wheel=$(bash "$here/fetch.sh" nvcc 12.4.131) || skip "scripts/toolkits/fetch.sh nvcc 12.4.131 failed"
runtime=$(bash "$here/fetch.sh" runtime 12.4.127) || skip "scripts/toolkits/fetch.sh runtime 12.4.127 failed"
# The scratch apt state fetch.sh keeps (its mirror derived from this machine's sources), as
# tests/fixtures/fetch-debian-nvcc.sh uses it.
apt="$cache/.apt"
if [[ ! -f $apt/etc/sources.list.d/scratch.sources || ! -f $apt/.updated ]]; then
  bash "$repo/scripts/toolkits/fetch.sh" nvrtc debian:libnvrtc12 >/dev/null || skip "could not prepare the scratch apt state"
fi
opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
      -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status" -o "Dir::Cache=$apt/cache"
      -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Acquire::http::Timeout=60"
      -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
tmp=$(mktemp -d "$cache/.tmp-toolchain-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && timeout "${CUARCH_NET_TIMEOUT:-300}" apt-get -q "${opts[@]}" download "nvidia-cuda-toolkit=$ver" >&2) ||
  skip "apt-get download nvidia-cuda-toolkit=$ver failed (network?)"
dpkg-deb -x "$tmp"/nvidia-cuda-toolkit_*.deb "$tmp/x"
r=$tmp/root L=$tmp/x/usr/lib/nvidia-cuda-toolkit
mkdir -p "$r/bin/crt" "$r/nvvm/bin" "$r/nvvm/libdevice" "$r/include" "$r/lib64"
cp "$L/bin/nvcc" "$tmp"/x/usr/bin/{cudafe++,fatbinary,nvlink,ptxas,bin2c} "$r/bin/"
cp "$L/bin/cicc" "$r/nvvm/bin/"
cp "$L"/bin/crt/*.stub "$r/bin/crt/"
cp "$L/libdevice/libdevice.10.bc" "$r/nvvm/libdevice/"
cp -r "$nvcc_wheel/include/." "$runtime/../include/." "$r/include/"
cp "$runtime/libcudart.so.12" "$r/lib64/" && ln -s libcudart.so.12 "$r/lib64/libcudart.so"
cat >"$r/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
printf '__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n' >"$tmp/k.cu"
"$r/bin/nvcc" -c "$tmp/k.cu" -arch=sm_90 -o "$tmp/k.o" >&2 || skip "the assembled nvcc 12.4 does not compile here"
rm -rf "$entry" && mv "$r" "$entry"
echo "$entry"
