#!/usr/bin/env bash
# cuarch next to what JIT libraries do today to learn what they can compile for, each as the whole
# process a build or JIT step pays for, interleaved runs, medians (min/max), and each peer's time as a
# ratio to cuarch's in the same run. Needs no network; a peer that is not installed is skipped and
# says so. Runs on the CPU machine and on the GPU machine (where `native` is measured too).
#
#   benchmarks/peers.sh [runs]        (default 7)
# env: CUARCH_CLI (default: build*/cuarch of this checkout, then PATH), NVCC (default: CUDA_HOME,
#      /usr/local/cuda, PATH), PYTHON (default python3), CUARCH_PEER_ARCHS (default 9.0a).
#
# Rows:
#   cuarch            `cuarch resolve --archs 9.0a --format nvcc`: the list validated against the
#                     NVRTC/nvcc discovery finds, printed as flags
#   cuarch native     `cuarch resolve --archs native` (GPU machine only: needs a device)
#   python baseline   `python -c pass`: what every Python row below pays before doing anything
#   flashinfer-style  Python: subprocess `nvcc --version` + regex for the release (FlashInfer's approach)
#   nvcc --list-gpu-arch
#   torch             `import torch` + torch.utils.cpp_extension._get_cuda_arch_flags() (TORCH_CUDA_ARCH_LIST
#                     set to the same list, so it does not need a GPU)
#   cupy              `import cupy` + cupy.cuda.nvrtc.getVersion()
set -uo pipefail
runs=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
py=${PYTHON:-python3}
archs=${CUARCH_PEER_ARCHS:-9.0a}

cli=${CUARCH_CLI:-}
if [[ -z $cli ]]; then
  for c in "$root"/build*/cuarch; do [[ -x $c ]] && { cli=$c; break; }; done
fi
[[ -z $cli ]] && cli=$(command -v cuarch || true)
nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  for c in "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
    [[ -n $c && -x $c ]] && { nvcc=$c; break; }
  done
fi

names=(); cmds=()
add() { names+=("$1"); cmds+=("$2"); }
skip() { printf '%-22s skipped: %s\n' "$1" "$2"; }

if [[ -n $cli ]] && "$cli" resolve --archs "$archs" --format nvcc >/dev/null 2>&1; then
  add "cuarch" "\"$cli\" resolve --archs $archs --format nvcc"
else
  echo "cuarch: no working command line (set CUARCH_CLI; tried '${cli:-none}')"; exit 1
fi
if "$cli" resolve --archs native >/dev/null 2>&1; then add "cuarch native" "\"$cli\" resolve --archs native"
else skip "cuarch native" "no device answers here (\`cuarch resolve --archs native\` fails)"; fi

have_py=0
if command -v "$py" >/dev/null; then
  have_py=1
  py=$("$py" -c 'import sys; print(sys.executable)')  # the interpreter itself, not a pyenv/conda shim script
  add "python baseline" "$py -c pass"
else skip "python rows" "no $py"; fi
if [[ -n $nvcc ]]; then
  ((have_py)) && add "flashinfer-style" "NVCC=$nvcc $py -c 'import os,re,subprocess; o=subprocess.run([os.environ[\"NVCC\"],\"--version\"],capture_output=True,text=True,check=True).stdout; m=re.search(r\"release (\\d+)\\.(\\d+)\",o); assert m'"
  add "nvcc --list-gpu-arch" "\"$nvcc\" --list-gpu-arch"
else
  skip "flashinfer-style" "no nvcc (set NVCC)"; skip "nvcc --list-gpu-arch" "no nvcc (set NVCC)"
fi
if ((have_py)) && "$py" -c 'import torch.utils.cpp_extension' >/dev/null 2>&1; then
  add "torch" "TORCH_CUDA_ARCH_LIST=$archs $py -c 'import torch; from torch.utils.cpp_extension import _get_cuda_arch_flags as f; assert f()'"
else skip "torch" "torch is not importable by $py"; fi
if ((have_py)) && "$py" -c 'import cupy' >/dev/null 2>&1; then
  add "cupy" "$py -c 'import cupy; assert cupy.cuda.nvrtc.getVersion()'"
else skip "cupy" "cupy is not importable by $py"; fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# Each command runs from this shell (eval: no `bash -c` in between, whose start-up would be timed
# too) and is timed with bash's own clock ($EPOCHREALTIME: no `date` process per reading).
usec() { local t=${1/[.,]/}; echo $((10#$t)); }
for ((k = 0; k < ${#names[@]}; k++)); do  # one untimed run each: page cache, and a visible failure
  (eval "${cmds[k]}") >/dev/null 2>"$work/err" || { echo "${names[k]} failed: ${cmds[k]}"; cat "$work/err"; exit 1; }
done
for ((i = 0; i < runs; i++)); do
  for ((k = 0; k < ${#names[@]}; k++)); do
    t0=$EPOCHREALTIME; eval "${cmds[k]}" >/dev/null 2>&1; t1=$EPOCHREALTIME
    echo $(($(usec "$t1") - $(usec "$t0"))) >>"$work/$k"
  done
done

stat() { sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f %.1f %.1f", a[1]/1000, m/1000, a[NR]/1000}'; }
read -r _ base _ < <(stat "$work/0")
echo "machine: $(nproc) CPUs, $(uname -sr); $runs interleaved runs, wall time of the whole process (ms)"
printf '%-22s %9s %9s %9s %12s\n' "what" "min" "median" "max" "x cuarch"
for ((k = 0; k < ${#names[@]}; k++)); do
  read -r mn md mx < <(stat "$work/$k")
  printf '%-22s %9s %9s %9s %11.2fx\n' "${names[k]}" "$mn" "$md" "$mx" "$(awk -v a="$md" -v b="$base" 'BEGIN{print a/b}')"
done
