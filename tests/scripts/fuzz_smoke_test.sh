#!/usr/bin/env bash
# fuzz_smoke_test.sh - a short coverage-guided run of every libFuzzer target (tests/fuzz/*_fuzz.cpp:
# the arch parsers, the JSON writer, the toolkit-file and ELF readers) under ASan+UBSan, seeded from
# tests/fuzz/corpus and tests/fuzz/<target>-corpus; any crash or property violation fails. scripts/fuzz.sh runs them for longer.
# Env: CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR (set by ctest); CUARCH_FUZZ_SECONDS (default 8 per target).
# Exit: 0 pass; 1 a finding; 77 skipped (no clang++ with libFuzzer), with the reason.
set -uo pipefail
src=${CUARCH_SOURCE_DIR:?CUARCH_SOURCE_DIR is not set}
bin=${CUARCH_BINARY_DIR:?CUARCH_BINARY_DIR is not set}/fuzz_smoke
seconds=${CUARCH_FUZZ_SECONDS:-8}
mkdir -p "$bin"
command -v clang++ >/dev/null 2>&1 || { echo "skipped: no clang++ (Debian: clang, libclang-rt-14-dev)"; exit 77; }
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$src/include")
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$bin/probe.cpp"
if ! clang++ "${flags[@]}" "$bin/probe.cpp" -o "$bin/probe" >"$bin/probe.log" 2>&1; then
  echo "skipped: clang++ cannot link libFuzzer: $(head -c 300 "$bin/probe.log")"; exit 77
fi
fail=0
for target in "$src"/tests/fuzz/*_fuzz.cpp; do
  name=$(basename "$target" .cpp)
  exe="$bin/$name"
  if [[ ! -x $exe || -n $(find "$src/include" "$src/tests/fuzz" -newer "$exe" -print -quit) ]]; then
    nice clang++ "${flags[@]}" "$target" -o "$exe" >"$bin/$name.build.log" 2>&1 \
      || { echo "FAIL: $name does not build:"; tail -20 "$bin/$name.build.log"; fail=1; continue; }
  fi
  corpus="$bin/$name-corpus"
  mkdir -p "$corpus"
  # Seeds: tests/fuzz/<target>-corpus (file-corpus: real files, cut; fatbin-corpus), corpus for parse_fuzz.
  seeds="$src/tests/fuzz/${name%_fuzz}-corpus"
  [[ $name == parse_fuzz ]] && seeds="$src/tests/fuzz/corpus"
  [[ -d $seeds ]] && cp -n "$seeds"/* "$corpus/" 2>/dev/null
  (cd "$bin" && "$exe" -max_total_time="$seconds" -max_len=1024 -timeout=5 -print_final_stats=1 "$corpus" >"$bin/$name.log" 2>&1)
  rc=$?
  runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$bin/$name.log" | grep -o '[0-9]*$')
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: $name found a crash or a violated property (exit $rc):"; grep -m5 -E 'ERROR|violated|SUMMARY' "$bin/$name.log"; fail=1
  else
    echo "ok: $name: ${runs:-?} inputs in ${seconds} s, no finding"
  fi
done
exit $fail
