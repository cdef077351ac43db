#!/usr/bin/env bash
# asan_ubsan_test.sh - builds the unit tests of the edge layer (where memory and processes are
# handled: subprocess, dynamic_library, toolkit files, the nvcc source, lazy detection, NVML
# devices, ELF build-ids) with -fsanitize=address,undefined and runs them; any report fails.
# A subset, to keep CI short; `CUARCH_SANITIZE_ALL=1` builds every tests/*_test.cpp.
# Env (set by ctest): CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR; CXX (default g++).
# Exit: 0 pass; 1 fail; 77 skipped (no sanitizer runtime, no Catch2 library), with the reason.
set -uo pipefail
src=${CUARCH_SOURCE_DIR:?CUARCH_SOURCE_DIR is not set}
bin=${CUARCH_BINARY_DIR:?CUARCH_BINARY_DIR is not set}/asan_ubsan
cxx=${CXX:-g++}
mkdir -p "$bin"
flags=(-std=c++17 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O0)  # -O0: half the build time

printf 'int main() { return 0; }\n' >"$bin/probe.cpp"
if ! "$cxx" "${flags[@]}" "$bin/probe.cpp" -o "$bin/probe" >"$bin/probe.log" 2>&1 || ! "$bin/probe" >>"$bin/probe.log" 2>&1; then
  echo "skipped: $cxx cannot build or run with -fsanitize=address,undefined: $(head -c 300 "$bin/probe.log")"; exit 77
fi
catch_dir=""
for d in /usr/lib /usr/local/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
  if [[ -f $d/libCatch2Main.a && -f $d/libCatch2.a ]]; then catch_dir=$d; break; fi
done
[[ -n $catch_dir ]] || { echo "skipped: no Catch2 v3 static libraries (libCatch2Main.a, libCatch2.a) found"; exit 77; }

if [[ ${CUARCH_SANITIZE_ALL:-0} == 1 ]]; then
  tests=$(cd "$src/tests" && ls ./*_test.cpp | sed 's|^\./||; s|\.cpp$||')
else
  # Where memory, files and processes are handled: the edge layer.
  tests="subprocess_test dynamic_library_test toolkit_files_test nvcc_source_test detect_lazy_test nvml_device_source_test build_id_test"
fi

build_one() {  # build_one <name>: rebuilt only when the test or a header changed
  local name=$1 exe="$bin/$1"
  [[ -f $src/tests/$name.cpp ]] || { echo "missing: tests/$name.cpp"; return 1; }
  if [[ -x $exe && -z $(find "$src/include" "$src/tests/$name.cpp" "$src/tests/fixtures" -newer "$exe" -print -quit) ]]; then return 0; fi
  nice "$cxx" "${flags[@]}" -I"$src/include" -I"$src/tests" \
    "-DCUARCH_SOURCE_DIR=\"$src\"" "-DCUARCH_BINARY_DIR=\"${CUARCH_BINARY_DIR}\"" "-DCUARCH_TEST_DATA_DIR=\"$src/tests/data\"" \
    "$src/tests/$name.cpp" -o "$exe" "$catch_dir/libCatch2Main.a" "$catch_dir/libCatch2.a" -ldl -pthread >"$bin/$name.build.log" 2>&1 \
    || { echo "FAIL: the sanitizer build of $name failed:"; tail -30 "$bin/$name.build.log"; return 1; }
}
export -f build_one
export src bin cxx catch_dir CUARCH_BINARY_DIR
export flags_string="${flags[*]}"

fail=0
jobs=${CUARCH_JOBS:-$(nproc 2>/dev/null || echo 2)}
# shellcheck disable=SC2086
if ! printf '%s\n' $tests | xargs -P "$jobs" -I{} bash -c 'flags=($flags_string); build_one {}'; then fail=1; fi

export ASAN_OPTIONS="abort_on_error=0:exitcode=66${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=66 ${UBSAN_OPTIONS:-}"
for name in $tests; do
  exe="$bin/$name"
  [[ -x $exe ]] || continue
  start=$(date +%s)
  leaks=1
  # LeakSanitizer's own tracer crashes (signal 11) at exit after the real NVRTC ran its compiler
  # threads; address and UB checks stay on for that test.
  [[ $name == nvrtc_source_test ]] && leaks=0
  ASAN_OPTIONS="detect_leaks=$leaks:$ASAN_OPTIONS" "$exe" >"$bin/$name.run.log" 2>&1
  rc=$?
  if [[ $rc -ne 0 && $rc -ne 4 ]]; then  # 4: Catch2, every case skipped (reported by the run itself)
    echo "FAIL: $name under ASan+UBSan exited $rc:"; tail -40 "$bin/$name.run.log"; fail=1
  else
    echo "ok: $name under ASan+UBSan ($(( $(date +%s) - start )) s): $(tail -2 "$bin/$name.run.log" | tr '\n' ' ')"
  fi
done
exit $fail
