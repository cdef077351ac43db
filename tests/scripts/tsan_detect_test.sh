#!/usr/bin/env bash
# tsan_detect_test.sh - builds tests/detect_concurrency_test.cpp alone with -fsanitize=thread and
# runs it: 16 threads starting detect() together must agree, with no data race reported.
# Env (set by ctest): CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR; CXX (default g++).
# Exit: 0 pass; 1 fail; 77 skipped (no ThreadSanitizer, no Catch2 library), with the reason.
set -uo pipefail
src=${CUARCH_SOURCE_DIR:?CUARCH_SOURCE_DIR is not set}
bin=${CUARCH_BINARY_DIR:?CUARCH_BINARY_DIR is not set}/tsan_detect
cxx=${CXX:-g++}
mkdir -p "$bin"

# Is ThreadSanitizer usable here (compiler runtime present, and the kernel's address layout one it accepts)?
printf 'int main() { return 0; }\n' >"$bin/probe.cpp"
if ! "$cxx" -fsanitize=thread "$bin/probe.cpp" -o "$bin/probe" >"$bin/probe.log" 2>&1; then
  echo "skipped: $cxx cannot build with -fsanitize=thread: $(head -c 300 "$bin/probe.log")"; exit 77
fi
if ! "$bin/probe" >"$bin/probe.log" 2>&1; then
  echo "skipped: a ThreadSanitizer program does not start here: $(head -c 300 "$bin/probe.log")"; exit 77
fi

# Catch2 v3, as the unit tests link it (Catch2::Catch2WithMain): the static libraries beside its headers.
catch_dir=""
for d in /usr/lib /usr/local/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
  if [[ -f $d/libCatch2Main.a && -f $d/libCatch2.a ]]; then catch_dir=$d; break; fi
done
[[ -n $catch_dir ]] || { echo "skipped: no Catch2 v3 static libraries (libCatch2Main.a, libCatch2.a) found"; exit 77; }

# Rebuild only when the test or a header changed.
exe="$bin/detect_concurrency_test_tsan"
if [[ ! -x $exe ]] || [[ -n $(find "$src/include" "$src/tests/detect_concurrency_test.cpp" -newer "$exe" -print -quit) ]]; then
  echo "building $exe"
  if ! nice "$cxx" -std=c++17 -fsanitize=thread -g -O1 -Wall -Wextra \
      -I"$src/include" -I"$src/tests" \
      "-DCUARCH_SOURCE_DIR=\"$src\"" "-DCUARCH_BINARY_DIR=\"${CUARCH_BINARY_DIR}\"" \
      "$src/tests/detect_concurrency_test.cpp" -o "$exe" \
      "$catch_dir/libCatch2Main.a" "$catch_dir/libCatch2.a" -ldl -pthread >"$bin/build.log" 2>&1; then
    echo "FAIL: the TSan build of detect_concurrency_test failed:"; tail -30 "$bin/build.log"; exit 1
  fi
fi

# halt_on_error: the first race fails the run; second_deadlock_stack: readable lock reports.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 ${TSAN_OPTIONS:-}"
start=$(date +%s)
"$exe" >"$bin/run.log" 2>&1
rc=$?
echo "detect_concurrency_test under TSan: exit $rc in $(( $(date +%s) - start )) s"
if [[ $rc -eq 4 ]] && grep -q "skipped" "$bin/run.log"; then  # Catch2 3: every test case skipped
  echo "skipped: $(grep -m1 -A3 "SKIPPED" "$bin/run.log" | tr '\n' ' ')"; exit 77
fi
if [[ $rc -ne 0 ]]; then
  echo "FAIL:"; tail -60 "$bin/run.log"; exit 1
fi
tail -2 "$bin/run.log"
exit 0
