#!/usr/bin/env bash
# The tools' own parsers on `cuarch env --for TOOL` output: FlashInfer 0.7.4, apache-tvm-ffi 0.1.15.post2,
# PyTorch 2.15.0's _get_cuda_arch_flags and the CMakes at hand (check-tool-env.py says how). Needs the
# unpacked wheels and torch's source in ~/.cache/cuarch (scripts/toolkits/fetch-tool-wheels.sh); a tool
# whose part is not cached is skipped visibly, and the whole test (exit 77) when none is.
# Env: CUARCH_CLI, CUARCH_TEST_NVCC (default /usr/local/cuda/bin/nvcc), CUARCH_CMAKE (the first CMake).
set -u
cli="${CUARCH_CLI:?CUARCH_CLI must point at the cuarch executable}"
extra=()
[[ -n ${CUARCH_CMAKE:-} ]] && extra+=(--cmake "$CUARCH_CMAKE")
if [[ -n ${CUARCH_CMAKE:-} ]] && four=$(CUARCH_OFFLINE=1 "$(dirname "$0")/../../scripts/toolkits/fetch-cmake.sh" 4 2>/dev/null); then
  extra+=(--cmake "$four")
fi
exec python3 "$(dirname "$0")/check-tool-env.py" "$cli" --cmake-cases 6 "${extra[@]}" "$@"
