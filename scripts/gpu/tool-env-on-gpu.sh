#!/usr/bin/env bash
# `cuarch env --for TOOL` on a real GPU machine (written for an H200: cc 9.0, CUDA 13.0 at
# /usr/local/cuda, PyTorch and ninja installed, no network), with what scripts/gpu/stage-tool-env.sh
# staged in build-tool-env/ (carry it). One PASS/FAIL line per check; exit 1 if any failed, 77
# ("skipped: ...") without a GPU or the staged files.
#  (a) the seed: a fake nvcc 12.8 first on PATH and no CUDA_HOME. Without cuarch, FlashInfer 0.7.4 takes
#      its CUDA version (hence its 12.0f/12.0a choice) and its nvcc from that 12.8, and its JIT build of
#      the norm module fails; after `eval "$(cuarch env --for flashinfer --cuda-home <13.0>)"` FlashInfer
#      reports 13.0, its build.ninja runs the 13.0 nvcc for compute_90a, and its rmsnorm kernel runs on
#      the GPU and agrees with torch; cuarch's note names the 12.8 on PATH as what FlashInfer will not run;
#  (b) the seed with CUDA_HOME at 13.0 (no option): native through NVML gives 9.0a, the same pointing;
#  (d) PyTorch accepts every list cuarch writes for this device (native a/baseline, 9.0+PTX, 9.0a+PTX, a mix);
#  (c) PyTorch: `eval "$(cuarch env --for torch)"`, then torch.utils.cpp_extension.load_inline builds a
#      kernel with the 13.0 nvcc for exactly cuarch's targets, and it runs.
#   bash scripts/gpu/tool-env-on-gpu.sh          (outputs in $OUT/tool-env-on-gpu/ when OUT is set)
# CUARCH_TOOL_ENV_DRY=1: a rehearsal on a machine without a GPU or torch: devices given as 9.0, FlashInfer
# builds without running, the PyTorch part is skipped.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stage="${CUARCH_TOOL_ENV_STAGE:-$root/build-tool-env}"
work="${OUT:+$OUT/tool-env-on-gpu}"
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
failures=0
say() { printf '%s\n' "$*" | tee -a "$work/summary.txt"; }
check() { if eval "$2"; then say "PASS: $1"; else say "FAIL: $1"; failures=$((failures + 1)); fi; }

dry=${CUARCH_TOOL_ENV_DRY:-0}
devices=() fi_mode=run
if [[ $dry == 1 ]]; then devices=(--device-cc 9.0) fi_mode=build
elif ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then say "skipped: no GPU (no libnvidia-ml.so.1)"; exit 77; fi
[[ -x $stage/cuarch && -d $stage/flashinfer/flashinfer ]] || { say "skipped: no $stage (run scripts/gpu/stage-tool-env.sh, carry build-tool-env)"; exit 77; }
export LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cli="$stage/cuarch"
cuda=$(dirname "$(dirname "$(readlink -f "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")")")
py=$(command -v python3)
tvm="$work/tvm-ffi"
mkdir -p "$tvm" && (cd "$tvm" && "$py" -m zipfile -e "$stage"/wheels/apache_tvm_ffi-*-cp"$("$py" -c 'import sys; print("%d%d" % sys.version_info[:2])')"-*.whl .)
pythonpath="$tvm:$(ls "$stage"/wheels/filelock-*.whl):$(ls "$stage"/wheels/packaging-*.whl)"
fake="$work/fake-cuda-12.8"
mkdir -p "$fake/bin" && cp "$root/tests/fixtures/fake-nvcc/nvcc-12.8" "$fake/bin/nvcc" && chmod +x "$fake/bin/nvcc"
# What FlashInfer's and PyTorch's JIT run besides nvcc (ninja, c++), without any nvcc of the machine's.
base_path="/usr/bin:/bin:$(dirname "$(command -v ninja || echo /usr/bin/ninja)"):$(dirname "$py")"
fi_run() {  # fi_run <log> <mode>: FlashInfer's own JIT path, in a clean process, with the current environment
  env PYTHONPATH="$pythonpath" FLASHINFER_WORKSPACE_BASE="$work/fi-ws-$RANDOM" MAX_JOBS=8 \
    "$py" "$root/scripts/gpu/flashinfer_jit.py" "$stage/flashinfer" "$2" >"$1" 2>&1
}
{
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
  "$cuda/bin/nvcc" --version | tail -n 2
  "$py" -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  command -v ninja
} >"$work/machine.txt" 2>&1
cat "$work/machine.txt"

# (a) before: the 12.8 first on PATH is what FlashInfer takes (version and compiler), and its build fails.
(
  unset CUDA_HOME CUDA_PATH FLASHINFER_NVCC
  export PATH="$fake/bin:$base_path" FLASHINFER_CUDA_ARCH_LIST=9.0a
  fi_run "$work/before.log" "$fi_mode"
)
before_rc=$?
check "before: FlashInfer takes CUDA 12.8 from the nvcc first on PATH and its JIT fails (exit $before_rc)" \
  '[[ $before_rc != 0 ]] && grep -q "its CUDA version: 12.8" "$work/before.log"'
# (a) after: one eval, nothing else changed.
(
  unset CUDA_HOME CUDA_PATH
  export PATH="$fake/bin:$base_path"
  eval "$("$cli" env --for flashinfer --cuda-home "$cuda" "${devices[@]}" 2>"$work/after.env.err")" || exit 3
  env | grep -E '^(FLASHINFER_|CUDA_HOME)' >"$work/after.env"
  fi_run "$work/after.log" "$fi_mode"
)
after_rc=$?
check "after: FLASHINFER_CUDA_ARCH_LIST=9.0a, CUDA_HOME and FLASHINFER_NVCC the 13.0 (NVML native)" \
  'grep -qx "FLASHINFER_CUDA_ARCH_LIST=9.0a" "$work/after.env" && grep -qx "CUDA_HOME=$cuda" "$work/after.env" && grep -qx "FLASHINFER_NVCC=$cuda/bin/nvcc" "$work/after.env"'
check "after: cuarch names the nvcc 12.8 on PATH as what FlashInfer will not run" \
  'grep -q "the first nvcc on PATH is nvcc 12.8.93.*FlashInfer will not run it" "$work/after.env.err"'
check "after: FlashInfer reports CUDA 13.0 and its build.ninja runs $cuda/bin/nvcc for compute_90a" \
  'grep -q "its CUDA version: 13.0" "$work/after.log" && grep -q "^build.ninja: nvcc = $cuda/bin/nvcc" "$work/after.log" && grep -q "cuda_arch_flags = -gencode=arch=compute_90a,code=sm_90a$" "$work/after.log"'
check "after: FlashInfer JIT-compiled its norm module and rmsnorm ran on the GPU, agreeing with torch (exit $after_rc)" \
  '[[ $after_rc == 0 ]] && { [[ $dry == 1 ]] || grep -q "^rmsnorm on" "$work/after.log"; }'

# (b) the seed with CUDA_HOME at 13.0: cuarch decides with it, no option needed.
(
  export PATH="$fake/bin:$base_path" CUDA_HOME="$cuda"
  "$cli" env --for flashinfer --format json "${devices[@]}" >"$work/seed.json" 2>"$work/seed.err"
)
seed_rc=$?
check "seed with CUDA_HOME: exit 0, 9.0a by nvcc 13.0, FLASHINFER_NVCC the 13.0" \
  '[[ $seed_rc == 0 ]] && "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); v={x[\"name\"]: x[\"value\"] for x in d[\"variables\"]}; assert v[\"FLASHINFER_CUDA_ARCH_LIST\"]==\"9.0a\" and v[\"FLASHINFER_NVCC\"]==sys.argv[2]+\"/bin/nvcc\" and d[\"compiler\"][\"version\"].startswith(\"13.0\")" "$work/seed.json" "$cuda"'

if [[ $dry == 1 ]]; then say "skipped (dry run): the PyTorch extension"; say "outputs in $work"; exit $((failures > 0)); fi
# (c) a PyTorch extension with --for torch.
cat >"$work/torch_ext.py" <<'EOF'
import os, re, sys, torch
from torch.utils import cpp_extension
src = r"""
#include <torch/extension.h>
__global__ void add_one_kernel(float* x, int64_t n) { int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
torch::Tensor add_one(torch::Tensor x) { auto y = x.contiguous().clone(); add_one_kernel<<<(y.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), y.numel()); return y; }
"""
build = sys.argv[1]
m = cpp_extension.load_inline("cuarch_env_add_one", cpp_sources="torch::Tensor add_one(torch::Tensor x);", cuda_sources=src,
                              functions=["add_one"], build_directory=build, verbose=False)
x = torch.arange(1024, device="cuda", dtype=torch.float32)
assert torch.equal(m.add_one(x), x + 1), "wrong result"
ninja = open(os.path.join(build, "build.ninja")).read()
print("nvcc:", re.search(r"^nvcc = (.*)$", ninja, re.M).group(1))
print("arch flags:", " ".join(sorted(set(re.findall(r"-gencode=arch=\S+", ninja)))))
print("ran on", torch.cuda.get_device_name())
EOF
mkdir -p "$work/torch-build"
(
  export PATH="$fake/bin:$base_path"
  unset CUDA_HOME CUDA_PATH TORCH_CUDA_ARCH_LIST
  eval "$("$cli" env --for torch --cuda-home "$cuda" 2>"$work/torch.env.err")" || exit 3
  echo "TORCH_CUDA_ARCH_LIST=$TORCH_CUDA_ARCH_LIST CUDA_HOME=$CUDA_HOME" >"$work/torch.env"
  "$py" "$work/torch_ext.py" "$work/torch-build" >"$work/torch.log" 2>&1
)
torch_rc=$?
want_flags=$("$cli" resolve --cuda-home "$cuda" --compiler nvcc --format nvcc 2>/dev/null | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')
check "torch: TORCH_CUDA_ARCH_LIST=9.0a and CUDA_HOME the 13.0" 'grep -qx "TORCH_CUDA_ARCH_LIST=9.0a CUDA_HOME=$cuda" "$work/torch.env"'
check "torch: load_inline built with $cuda/bin/nvcc for exactly cuarch's flags ($want_flags) and the kernel ran (exit $torch_rc)" \
  '[[ $torch_rc == 0 ]] && grep -qx "nvcc: $cuda/bin/nvcc" "$work/torch.log" && grep -qx "arch flags: $want_flags" "$work/torch.log" && grep -q "^ran on" "$work/torch.log"'
# (d) Every list cuarch writes for this device (issue 17): the PyTorch extension recipe accepts each
# and builds exactly cuarch's targets. The requests: native with each variant this cc has, and the
# portable spellings with PTX.
lists_failed=0
for request in "native" "native --native-variant baseline" "--archs 9.0+PTX" "--archs sm_90a;compute_90a" "--archs 8.0;9.0a"; do
  name=$(tr -c 'a-z0-9' '_' <<<"$request")
  dir="$work/torch-lists/$name" && mkdir -p "$dir"
  # shellcheck disable=SC2086  # request is words on purpose
  (
    unset CUDA_HOME CUDA_PATH TORCH_CUDA_ARCH_LIST
    eval "$("$cli" env --for torch --cuda-home "$cuda" $([[ $request == native* ]] && echo --archs) $request 2>"$dir/env.err")" || exit 3
    echo "$TORCH_CUDA_ARCH_LIST" >"$dir/list"
    sed "s/cuarch_env_add_one/cuarch_list_$name/" "$work/torch_ext.py" >"$dir/ext.py"
    "$py" "$dir/ext.py" "$dir" >"$dir/log" 2>&1
  )
  rc=$?
  # shellcheck disable=SC2086
  want=$("$cli" resolve --cuda-home "$cuda" --compiler nvcc --format nvcc $([[ $request == native* ]] && echo --archs) $request 2>/dev/null |
    tr ' ' '\n' | grep -- '-gencode' | sort -u | tr '\n' ' ' | sed 's/ $//')
  if [[ $rc == 0 ]] && grep -qx "arch flags: $want" "$dir/log" && grep -q "^ran on" "$dir/log"; then
    say "PASS: torch accepts TORCH_CUDA_ARCH_LIST=$(cat "$dir/list") (cuarch $request) and builds exactly $want"
  else
    say "FAIL: torch with TORCH_CUDA_ARCH_LIST=$(cat "$dir/list" 2>/dev/null) (cuarch $request): exit $rc, want $want; $(tail -3 "$dir/log" "$dir/env.err" 2>/dev/null | tr '\n' ' ')"
    lists_failed=$((lists_failed + 1))
  fi
done
failures=$((failures + lists_failed))
say "outputs in $work"
exit $((failures > 0))
