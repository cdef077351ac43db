#!/usr/bin/env bash
# Coverage-guided fuzzing of every cuarch parser (and the CUDA code reader) with libFuzzer + ASan + UBSan (clang).
#   bash scripts/fuzz.sh [seconds=60]
# Needs clang++ with libFuzzer (Debian: clang, libclang-rt-14-dev). Findings go to build-fuzz/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
out="$root/build-fuzz"
mkdir -p "$out/corpus"
cp -n "$root"/tests/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/parse_fuzz.cpp" -o "$out/parse_fuzz"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/json_fuzz.cpp" -o "$out/json_fuzz"
cd "$out"
./parse_fuzz -max_total_time="$seconds" -max_len=256 -timeout=5 -print_final_stats=1 corpus
# The JSON writer: any bytes in keys and strings give valid UTF-8, well-formed, recoverable JSON.
mkdir -p json-corpus
./json_fuzz -max_total_time="$seconds" -max_len=512 -timeout=5 -print_final_stats=1 json-corpus
# The toolkit-file parsers (version.json, version.txt, cuda.h, dist-info / conda-meta names, tool output)
# and the ELF readers (the library header check, the build-id note).
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/file_fuzz.cpp" -o "$out/file_fuzz"
mkdir -p file-corpus
cp -n "$root"/tests/fuzz/file-corpus/* file-corpus/ 2>/dev/null || true  # real files, cut (make-file-corpus.sh)
./file_fuzz -max_total_time="$seconds" -max_len=4096 -timeout=5 -print_final_stats=1 file-corpus
# The CUDA code reader of `cuarch inspect` (ELF, fatbin, cubin, PTX), seeded with real nvcc 13.0 output.
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/fatbin_fuzz.cpp" -o "$out/fatbin_fuzz"
mkdir -p fatbin-corpus
cp -n "$root"/tests/fuzz/fatbin-corpus/* fatbin-corpus/ 2>/dev/null || true
./fatbin_fuzz -max_total_time="$seconds" -max_len=32768 -timeout=5 -print_final_stats=1 fatbin-corpus
# The decompressor of compressed fatbin images (zstd, LZ4), seeded with nvcc's own compressed images.
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/decompress_fuzz.cpp" -o "$out/decompress_fuzz"
mkdir -p decompress-corpus
cp -n "$root"/tests/fuzz/decompress-corpus/* decompress-corpus/ 2>/dev/null || true
./decompress_fuzz -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=4096 -print_final_stats=1 decompress-corpus
