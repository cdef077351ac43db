#!/usr/bin/env bash
# Decompressed images (core/decompress.hpp) against the real tools, byte for byte (issue 32):
#  1. the zstd and lz4 command lines, when installed: data of every kind they compress (zeros: RLE
#     blocks; random bytes: raw blocks; cubins at levels 1 to 22: Huffman and FSE tables, repeats; two
#     frames back to back) decompresses to what went in;
#  2. cuobjdump -xelf all: every SASS image cuarch reads out of each fatbin of tests/data/inspect (nvcc
#     13.0's corpus, zstd and LZ4 images) and of the real libraries in CUARCH_TEST_DECOMPRESS_LIBS
#     (default: CUDA's libcusparse.so.12, which holds LZ4 images built by CUDA 12.8 and older and zstd
#     ones built by 13.0, when /usr/local/cuda/lib64 has it) equals, as a set of byte strings, the
#     cubins cuobjdump extracts.
# Skipped visibly: a part whose tool is missing says SKIPPED; exit 77 when nothing could be compared.
# cuobjdump: CUARCH_TEST_CUOBJDUMP, or the wheel under ~/.cache/cuarch/cuobjdump (see
# scripts/toolkits/record-nvcc-flags.sh).
set -u
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cxx="${CXX:-c++}"
cuobjdump="${CUARCH_TEST_CUOBJDUMP:-$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1)}"
libs="${CUARCH_TEST_DECOMPRESS_LIBS-/usr/local/cuda/lib64/libcusparse.so.12}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0 compared=0

"$cxx" -std=c++17 -O2 -I"$src/include" -o "$work/dump" "$src/tests/scripts/inspect_decompress_dump.cpp" || {
  echo "FAIL: the dump helper does not build"
  exit 1
}

same() {  # same <what> <expected file> <actual file>
  compared=$((compared + 1))
  if ! cmp -s "$2" "$3"; then
    echo "FAIL: $1: the decompressed bytes differ from the original"
    fail=1
  fi
}

# ---- 1. the compressors' own output -------------------------------------------------------------
python3 - "$work" <<'PY'
import random, sys
w = sys.argv[1]
r = random.Random(32)
open(f"{w}/zeros", "wb").write(bytes(1 << 20))
open(f"{w}/random", "wb").write(bytes(r.getrandbits(8) for _ in range(300000)))
# text with long repeats at varying distances: repeat offsets, long matches, literals of every size
words = [bytes(r.getrandbits(8) % 26 + 97 for _ in range(r.randint(1, 12))) for _ in range(400)]
open(f"{w}/text", "wb").write(b" ".join(r.choice(words) for _ in range(120000)))
PY
cat "$src"/tests/data/inspect/*.o "$src"/tests/data/inspect/*.cubin >"$work/cubins"
if command -v zstd >/dev/null; then
  for input in zeros random text cubins; do
    for level in -1 -3 -9 -19 "--ultra -22"; do
      # shellcheck disable=SC2086
      zstd -q -f $level "$work/$input" -o "$work/z" || { echo "FAIL: zstd $level $input"; fail=1; continue; }
      if "$work/dump" zstd "$work/z" "$(stat -c %s "$work/$input")" "$work/out"; then
        same "zstd $level $input" "$work/$input" "$work/out"
      else
        echo "FAIL: zstd $level $input does not decompress"
        fail=1
      fi
    done
  done
  zstd -q -f -3 "$work/text" -o "$work/z1" && zstd -q -f -19 "$work/cubins" -o "$work/z2" && cat "$work/z1" "$work/z2" >"$work/z"
  cat "$work/text" "$work/cubins" >"$work/both"
  if "$work/dump" zstd "$work/z" "$(stat -c %s "$work/both")" "$work/out"; then same "two zstd frames" "$work/both" "$work/out"; else
    echo "FAIL: two zstd frames do not decompress"
    fail=1
  fi
else
  echo "SKIPPED: no zstd command line"
fi
if command -v lz4 >/dev/null; then
  # lz4 writes a frame (RFC-like header, then u32-sized blocks); nvcc stores one bare block: take it out.
  for input in text cubins zeros; do
    for level in 1 9; do
      lz4 -q -f -"$level" -B7 --no-frame-crc "$work/$input" "$work/l" || { echo "FAIL: lz4 -$level $input"; fail=1; continue; }
      python3 - "$work/l" "$work/block" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
flg = b[4]
p = 7 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
size = struct.unpack_from("<I", b, p)[0]
assert not size & 0x80000000, "lz4 stored the block uncompressed"
assert struct.unpack_from("<I", b, p + 4 + size)[0] == 0, "more than one block"
open(sys.argv[2], "wb").write(b[p + 4:p + 4 + size])
PY
      if "$work/dump" lz4 "$work/block" "$(stat -c %s "$work/$input")" "$work/out"; then
        same "lz4 -$level $input" "$work/$input" "$work/out"
      else
        echo "FAIL: lz4 -$level $input does not decompress"
        fail=1
      fi
    done
  done
else
  echo "SKIPPED: no lz4 command line"
fi

# ---- 2. cuobjdump's extracted cubins ------------------------------------------------------------
if [[ -x $cuobjdump ]]; then
  files=("$src"/tests/data/inspect/*.o "$src"/tests/data/inspect/*.fatbin "$src"/tests/data/inspect/exe_* "$src"/tests/data/inspect/*.so)
  for lib in $libs; do
    if [[ -f $lib ]]; then files+=("$lib"); else echo "SKIPPED: $lib is not here"; fi
  done
  for f in "${files[@]}"; do
    rm -rf "$work/theirs" "$work/ours" && mkdir "$work/theirs" "$work/ours"
    (cd "$work/theirs" && "$cuobjdump" -xelf all "$f" >/dev/null 2>&1)
    n=$("$work/dump" images "$f" "$work/ours") || { echo "FAIL: $f: cuarch could not read it"; fail=1; continue; }
    theirs=$(cd "$work/theirs" && find . -type f -exec sha1sum {} + | cut -c1-40 | sort)
    ours=$(cd "$work/ours" && find . -type f -exec sha1sum {} + | cut -c1-40 | sort)
    if [[ $theirs != "$ours" ]]; then
      echo "FAIL: $f: cuarch's $n SASS images differ from the $(echo -n "$theirs" | grep -c .) cubins cuobjdump extracts"
      fail=1
    else
      compared=$((compared + n))
      [[ $n -gt 0 ]] && echo "same  $n SASS images  $f"
    fi
  done
else
  echo "SKIPPED: no cuobjdump (set CUARCH_TEST_CUOBJDUMP, or see scripts/toolkits/record-nvcc-flags.sh)"
fi

[[ $fail -ne 0 ]] && exit 1
[[ $compared -eq 0 ]] && { echo "SKIPPED: nothing to compare with"; exit 77; }
echo "$compared comparisons, all the same"
exit 0
