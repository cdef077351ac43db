#!/usr/bin/env bash
# Every check that needs a real GPU, in one go (written for an H200 machine: cc 9.0, driver 580,
# CUDA 13.0, NVML, PyTorch and CuPy installed, no network). Each step logs to $OUT/<step>.log when
# OUT is set, and prints one PASS/FAIL/SKIP line; the exit status is 1 when any step failed.
#   bash scripts/gpu/all-on-gpu.sh
# Where the machine lacks the test dependencies, stage them here and carry them:
#   CUARCH_GPU_DEPS=<dir>    Debian packages unpacked with dpkg -x (libfmt-dev, libfmt9, libcatch2-dev,
#                            libcli11-dev): used as <dir>/usr in CMAKE_PREFIX_PATH
#   CUARCH_GPU_WHEELS=<dir>  wheels for tests/scripts/python_test.sh (scikit-build-core, nanobind, pytest)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
logs="${OUT:-$(mktemp -d)}"
mkdir -p "$logs"
build="${CUARCH_GPU_BUILD:-$root/build-gpu}"
deps="${CUARCH_GPU_DEPS:-}"
failed=0
result() { printf '%-44s %s\n' "$1" "$2" | tee -a "$logs/summary.txt"; [[ $2 == FAIL* ]] && failed=1; return 0; }
run_step() {  # run_step <name> <command...>: exit 0 PASS, 77 SKIP, else FAIL
  local name=$1; shift
  local start=$SECONDS rc
  "$@" >"$logs/$name.log" 2>&1
  rc=$?
  case $rc in
    0) result "$name" "PASS ($((SECONDS - start)) s)" ;;
    77) result "$name" "SKIP: $(grep -m1 -i 'skipped' "$logs/$name.log")" ;;
    *) result "$name" "FAIL (exit $rc, $((SECONDS - start)) s; see $name.log)"; tail -25 "$logs/$name.log" ;;
  esac
}

{
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
  "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version | tail -n 2
  python3 -c 'import sys, torch, cupy; print(sys.version.split()[0], "torch", torch.__version__, "cupy", cupy.__version__)'
} >"$logs/machine.txt" 2>&1
cat "$logs/machine.txt"

prefix=()
if [[ -n $deps ]]; then
  prefix=("-DCMAKE_PREFIX_PATH=$deps/usr")
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"  # also for pip's CMake build
fi

# 1. The whole suite, where the GPU test runs instead of being skipped (Python is step 6).
configure_and_build() {
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUARCH_BUILD_TESTS=ON -DCUARCH_BUILD_TOOLS=ON \
    -DCUARCH_BUILD_EXAMPLES=ON "${prefix[@]}" && cmake --build "$build" -j "$(nproc)"
}
run_step build configure_and_build
if [[ -n ${CUARCH_GPU_WHEELS:-} ]]; then mkdir -p "$build/python/wheelhouse" && cp "$CUARCH_GPU_WHEELS"/*.whl "$build/python/wheelhouse/"; fi
run_step ctest ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600
grep -E 'tests passed|gpu_end_to_end|Skipped|Failed' "$logs/ctest.log" | tail -15

# 2. Devices without cuInit: NVML vs cuInit for every CUDA_VISIBLE_DEVICES form, a forked child after
#    native, and the whole-process cost of `cuarch resolve --archs native` vs a bare NVML program.
run_step devices env CUARCH_CLI="$build/cuarch" bash scripts/gpu/devices-on-gpu.sh

# 3. JIT end to end, device-side requirements, the doctor.
run_step jit env CXX="${CXX:-g++}" bash scripts/gpu/jit-on-gpu.sh
run_step device_require bash scripts/gpu/device-require-on-gpu.sh
run_step doctor env CUARCH_CLI="$build/cuarch" bash scripts/gpu/doctor-on-gpu.sh
# `cuarch inspect`: predicted load = cuModuleLoadData on 26 binaries; libtorch_cuda.so vs get_arch_list().
run_step inspect env CUARCH_CLI="$build/cuarch" bash scripts/gpu/inspect-on-gpu.sh

# 4. The CMake recipe with native detected on this machine (no DEVICE_CC), built and run.
cmake_recipe() {
  cmake -S examples/cmake_cuda -B "$build/recipe" -DCUARCH_ROOT="$root" "${prefix[@]}" &&
    cmake --build "$build/recipe" -j "$(nproc)" && "$build/recipe/recipe_kernel"
}
run_step cmake_recipe_native cmake_recipe
grep -E 'cuarch: CUDA architectures|ran sm_' "$logs/cmake_recipe_native.log"

# 5. cuarch resolve --archs native as a process, and its answer.
run_step cli_native "$build/cuarch" resolve --archs native --format json

# 6. Python: the package built with this machine's Python, then in-process NVRTC through CuPy, the
#    PyTorch extension recipe and the FlashInfer-style JIT recipe.
python_install() { python3 -m pip install -q --no-build-isolation --no-deps --target "$build/pysite" . ; }
run_step python_install python_install
export PYTHONPATH="$build/pysite${PYTHONPATH:+:$PYTHONPATH}"
run_step python_loaded_nvrtc python3 examples/python/loaded_nvrtc.py
run_step python_torch_extension python3 examples/python/torch_extension.py
run_step python_jit_module python3 examples/python/jit_module.py
echo "== summary"; cat "$logs/summary.txt"
exit $failed
