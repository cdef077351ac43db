#!/usr/bin/env bash
# `cuarch env --for TOOL` (issue 21): the variables each tool reads, printed so that a shell, a dotenv
# reader and GitHub's $GITHUB_ENV get exactly the values; nothing printed when the tool's list cannot
# spell a target (exit 1, naming the tool, its release and the target); what the environment has
# otherwise (a TORCH_CUDA_ARCH_LIST PyTorch refuses, a CUDA_HOME with another nvcc, the nvcc first on
# PATH) said on stderr, and the printed lines point the tool at the nvcc that validated the targets.
# Uses fake nvcc scripts (12.8: tests/fixtures/fake-nvcc; 13.0: written here) in toolkit layouts,
# so it runs anywhere. Environment: CUARCH_CLI, CUARCH_SOURCE_DIR. Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/  stdout: /' "$work/out" >&2; sed 's/^/  stderr: /' "$work/err" >&2; failures=$((failures + 1)); }
env_() { PATH=/usr/bin:/bin "$cli" env "$@" >"$work/out" 2>"$work/err"; }
out_is() { [[ "$(cat "$work/out")" == "$1" ]]; }
# A refusal prints what makes `eval` fail (tests/scripts/cli_handoff_test.sh evals it in each shell).
refused() { [[ "$(cat "$work/out")" == "echo 'cuarch env refused: nothing was set (the reason is above)' >&2
false" ]]; }
err_has() { grep -qF -- "$1" "$work/err"; }

# Two toolkits: 12.8 (the fixture) and 13.0, each <root>/bin/nvcc (+ ptxas); a copy of 13.0 whose
# name holds a space and a single quote, which every format must carry through.
cuda128="$work/cuda-12.8"
cuda130="$work/cuda-13.0"
odd="$work/it's cuda 13.0"
mkdir -p "$cuda128/bin" "$cuda130/bin"
cp "$src/tests/fixtures/fake-nvcc/nvcc-12.8" "$cuda128/bin/nvcc"
sed 's/release 12.8, V12.8.93/release 13.0, V13.0.88/; s/12\.8/13.0/g' "$src/tests/fixtures/fake-nvcc/nvcc-12.8" >"$cuda130/bin/nvcc"
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' >"$cuda130/bin/ptxas"
chmod +x "$cuda130/bin/nvcc" "$cuda130/bin/ptxas"
cp -r "$cuda130" "$odd"

# 1. shell: eval gives the tool exactly the values, the quote and space included.
env_ --for flashinfer --nvcc "$odd/bin/nvcc" --archs "9.0a;12.0f"
(
  eval "$(cat "$work/out")"
  [[ $FLASHINFER_CUDA_ARCH_LIST == "9.0a 12.0f" && $CUDA_HOME == "$odd" && $FLASHINFER_NVCC == "$odd/bin/nvcc" ]]
) || fail "flashinfer, shell: eval sets the suffixed list (one space), the toolkit root and its nvcc"
env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs "8.6+PTX;9.0a"
(eval "$(cat "$work/out")" && [[ $TORCH_CUDA_ARCH_LIST == "8.6+PTX;9.0a" && $CUDA_HOME == "$cuda130" ]]) ||
  fail "torch, shell: TORCH_CUDA_ARCH_LIST in PyTorch's spelling and CUDA_HOME"
env_ --for cmake --nvcc "$cuda128/bin/nvcc" --archs "8.6+PTX;9.0a"
out_is "export CUDAARCHS='86;90a-real'
export CUDACXX='$cuda128/bin/nvcc'" || fail "cmake, shell: CUDAARCHS and CUDACXX"
env_ --for tvm-ffi --nvcc "$cuda128/bin/nvcc" --archs "8.6;9.0"
out_is "export TVM_FFI_CUDA_ARCH_LIST='8.6 9.0'
export CUDA_HOME='$cuda128'" || fail "tvm-ffi, shell: a bare 9.0 is TVM-FFI's spelling (it adds no suffix)"
env_ --for triton --nvcc "$cuda130/bin/nvcc" --archs 9.0a
(eval "$(cat "$work/out")" && [[ $TRITON_PTXAS_PATH == "$cuda130/bin/ptxas" && $TRITON_PTXAS_BLACKWELL_PATH == "$cuda130/bin/ptxas" ]]) ||
  fail "triton: both ptxas variables name the validated toolkit's ptxas"

# 2. dotenv and GitHub: NAME=value lines; dotenv quotes what a reader would otherwise change.
env_ --for flashinfer --nvcc "$odd/bin/nvcc" --archs 9.0a --format dotenv
out_is "FLASHINFER_CUDA_ARCH_LIST=9.0a
CUDA_HOME=\"$odd\"
FLASHINFER_NVCC=\"$odd/bin/nvcc\"" || fail "dotenv: plain values bare, a value with a quote double-quoted"
env_ --for cmake --nvcc "$cuda128/bin/nvcc" --archs 9.0a --format github
out_is "CUDAARCHS=90a-real
CUDACXX=$cuda128/bin/nvcc" || fail "github: NAME=value lines for \$GITHUB_ENV"

# 3. JSON: the cuarch.env/1 document (the schema is checked by json_contract_test.sh).
env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs 9.0a --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="cuarch.env/1" and d["ok"] and d["tool"]=="torch"; assert [v["name"] for v in d["variables"]]==["TORCH_CUDA_ARCH_LIST","CUDA_HOME"]' "$work/out" ||
  fail "json: one cuarch.env/1 document with the variables"

# 4. Not expressible: the refusal on stdout, exit 1, the tool, its release and the target named.
env_ --for flashinfer --nvcc "$cuda130/bin/nvcc" --archs "9.0;10.0a"
[[ $? == 1 ]] && refused && err_has "sm_90 cannot be written in FLASHINFER_CUDA_ARCH_LIST of flashinfer-python 0.7.4" ||
  fail "flashinfer: a bare 9.0 (FlashInfer would make it 9.0a) is refused, nothing printed"
env_ --for flashinfer --nvcc "$cuda130/bin/nvcc" --archs "8.6+PTX"
[[ $? == 1 ]] && refused && err_has "compute_86 cannot be written" || fail "flashinfer: PTX is refused (it builds code=sm_ only)"
env_ --for flashinfer --nvcc "$cuda128/bin/nvcc" --archs "7.0;7.2"
[[ $? == 1 ]] && refused && err_has "sm75 or higher" || fail "flashinfer: a list FlashInfer's JIT refuses (nothing from sm75 on) is refused"
env_ --for flashinfer --nvcc "$cuda128/bin/nvcc" --archs "7.0;8.0"
[[ $? == 0 ]] && grep -q "FLASHINFER_CUDA_ARCH_LIST='7.0 8.0'" "$work/out" || fail "flashinfer: sm_70 beside sm_80 is its spelling"
env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs "10.0f"
[[ $? == 1 ]] && refused && err_has "TORCH_CUDA_ARCH_LIST of PyTorch" || fail "torch: an f target is refused"
env_ --for cmake --nvcc "$cuda130/bin/nvcc" --archs "12.0f" --cmake-version 3.25.1
[[ $? == 1 ]] && refused && err_has "CMake 4.0.2" || fail "cmake 3.25.1: 120f is refused, naming the CMake that reads it"
# Without --cmake-version, the cmake on PATH (or $CMAKE_COMMAND) is asked, named, and spelled for.
mkdir -p "$work/cmake-3.25/bin" "$work/cmake-4.1/bin"
printf '#!/bin/sh\necho "cmake version 3.25.1"\n' >"$work/cmake-3.25/bin/cmake"
printf '#!/bin/sh\necho "cmake version 4.1.0"\n' >"$work/cmake-4.1/bin/cmake"
chmod +x "$work/cmake-3.25/bin/cmake" "$work/cmake-4.1/bin/cmake"
PATH="$work/cmake-3.25/bin:/bin" "$cli" env --for cmake --nvcc "$cuda130/bin/nvcc" --archs "12.0f" >"$work/out" 2>"$work/err"
[[ $? == 1 ]] && refused && err_has "CUDAARCHS of CMake 3.25.1" && err_has "read by $work/cmake-3.25/bin/cmake (the first cmake on PATH)" &&
  err_has "fix: ask for targets it spells (--archs sm_120)" ||
  fail "cmake on PATH is 3.25.1: 120f is refused, naming that cmake"
CMAKE_COMMAND="$work/cmake-4.1/bin/cmake" PATH="$work/cmake-3.25/bin:/bin" "$cli" env --for cmake --nvcc "$cuda130/bin/nvcc" --archs "12.0f" >"$work/out" 2>"$work/err"
[[ $? == 0 ]] && grep -q "CUDAARCHS='120f-real'" "$work/out" && err_has "CUDAARCHS is spelled for CMake 4.1.0 ($work/cmake-4.1/bin/cmake, CMAKE_COMMAND)" ||
  fail "CMAKE_COMMAND is 4.1.0: it is asked before PATH, and 120f is its spelling"
mkdir -p "$work/nobin"
PATH="$work/nobin" "$cli" env --for cmake --nvcc "$cuda130/bin/nvcc" --archs "12.0f" >"$work/out" 2>"$work/err"
[[ $? == 0 ]] && err_has "4.0.2" && err_has "no cmake was found to ask" && err_has "pass --cmake-version VERSION" ||
  fail "no cmake to ask: a note says which CMake reads the suffix and how to name yours"

# 5. The resolution's own failure and input errors: as cuarch resolve says them, nothing printed.
env_ --for torch --nvcc "$cuda128/bin/nvcc" --archs "12.0f"
[[ $? == 1 ]] && refused && err_has "12.9" || fail "nvcc 12.8 cannot build sm_120f: the resolution's failure, exit 1"
env_ --for torch --nvcc "$cuda128/bin/nvcc" --archs "8.0a"
[[ $? == 2 ]] && refused || fail "a malformed request is exit 2"
for bad in "--for bogus" "--for torch --toolkit 13.0" "--for torch --compiler nvrtc" "--for torch --cmake-version 3.25.1" "--archs 9.0a"; do
  # shellcheck disable=SC2086
  env_ $bad
  [[ $? == 2 ]] && refused || fail "usage: cuarch env $bad is exit 2"
done

# 6. Consistency: what the environment has otherwise is said, and the lines replace it.
TORCH_CUDA_ARCH_LIST="8.8;9.0" env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs 9.0a
[[ $? == 0 ]] && err_has "TORCH_CUDA_ARCH_LIST was '8.8;9.0'" && err_has "Unknown CUDA arch\") on '8.8'" && grep -q "TORCH_CUDA_ARCH_LIST='9.0a'" "$work/out" ||
  fail "torch: a TORCH_CUDA_ARCH_LIST with 8.8 is named as one PyTorch refuses, and replaced"
CUDA_HOME="$cuda128" env_ --for flashinfer --cuda-home "$cuda130" --archs 12.0f
[[ $? == 0 ]] && err_has "CUDA_HOME was '$cuda128' (its nvcc: nvcc 12.8" && grep -qF "CUDA_HOME='$cuda130'" "$work/out" ||
  fail "flashinfer: a CUDA_HOME whose nvcc is 12.8 is named and replaced by the validated 13.0"
PYTORCH_NVCC="ccache $cuda128/bin/nvcc" env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs 9.0a
grep -qF "PYTORCH_NVCC='$cuda130/bin/nvcc'" "$work/out" && err_has "PYTORCH_NVCC was 'ccache $cuda128/bin/nvcc'" ||
  fail "torch: a PYTORCH_NVCC running another nvcc is replaced"
PYTORCH_NVCC="ccache $cuda130/bin/nvcc" env_ --for torch --nvcc "$cuda130/bin/nvcc" --archs 9.0a
! grep -q PYTORCH_NVCC "$work/out" || fail "torch: a PYTORCH_NVCC running the validated nvcc (through ccache) is kept"
FLASHINFER_EXTRA_CUDAFLAGS="-O3 -gencode=arch=compute_80,code=sm_80" env_ --for flashinfer --nvcc "$cuda130/bin/nvcc" --archs 9.0a --strict
[[ $? == 1 ]] && err_has "tool_variable_adds_targets" || fail "flashinfer: target flags in FLASHINFER_EXTRA_CUDAFLAGS are a warning (--strict: exit 1)"

# 7. The seed: nvcc 12.8 first on PATH, CUDA 13.0 in CUDA_HOME. cuarch validates with 13.0; the
#    lines point FlashInfer at 13.0 (its version check reads $CUDA_HOME/bin/nvcc) and say that the
#    12.8 on PATH is not what it will run.
PATH="$cuda128/bin:/usr/bin:/bin" CUDA_HOME="$cuda130" "$cli" env --for flashinfer --archs 12.0f >"$work/out" 2>"$work/err"
[[ $? == 0 ]] && grep -qF "CUDA_HOME='$cuda130'" "$work/out" && grep -qF "FLASHINFER_NVCC='$cuda130/bin/nvcc'" "$work/out" &&
  grep -q "FLASHINFER_CUDA_ARCH_LIST='12.0f'" "$work/out" && err_has "the first nvcc on PATH is nvcc 12.8.93" && err_has "FlashInfer will not run it" ||
  fail "the seed layout: FlashInfer pointed at the 13.0 that validated 12.0f, the 12.8 on PATH named"

if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cuarch env: all cases passed"
