# lib.sh - the preamble the command line's shell tests share. Source it first thing:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It sets `cli` to the built command line (CUARCH_CLI), or ends the test with exit 77 (ctest's
# "skipped") saying the command line is not built; it unsets every variable cuarch reads, so that
# the machine's own environment (a CUDA_HOME, a CUARCH_ARCHS, an activated venv) cannot steer what
# a test sees, and a test that needs one sets it on the command it runs; and it gives the test a
# fresh directory, `work`, removed when the test exits.
cli="${CUARCH_CLI:-}"
if [[ -z "$cli" || ! -x "$cli" ]]; then
  echo "skipped: CUARCH_CLI is not set to the built cuarch command line" >&2
  exit 77
fi
# The variables detection and the requests read (core/environment.hpp), and those of the tools
# `cuarch env --for` writes for.
unset CUARCH_ARCHS TORCH_CUDA_ARCH_LIST CUDAARCHS CUARCH_NVCC CUARCH_NVRTC CUARCH_CUDART CUARCH_LIBCUDA CUARCH_PTXAS CUDACXX \
  CUDAHOSTCXX CUDA_HOME CUDA_PATH PYTORCH_NVCC VIRTUAL_ENV CONDA_PREFIX FLASHINFER_CUDA_ARCH_LIST FLASHINFER_NVCC \
  FLASHINFER_EXTRA_CUDAFLAGS TVM_FFI_CUDA_ARCH_LIST TRITON_PTXAS_PATH
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
