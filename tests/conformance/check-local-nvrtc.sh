#!/usr/bin/env bash
# check-local-nvrtc.sh - probe the local NVRTC and compare with tests/data/nvrtc_releases.tsv.
#
# Usage:  tests/conformance/check-local-nvrtc.sh [/ABS/PATH/libnvrtc.so.N]
#         (default: /usr/local/cuda/lib64/libnvrtc.so.13, else the newest libnvrtc.so.* there)
# The library's full release (M.m.p) comes from $CUARCH_NVRTC_RELEASE, else from the real file
# name (libnvrtc.so.M.m.p), else from what is around it: a scripts/toolkits/fetch.sh cache entry
# (.cuarch-info), dist-info/nvidia_cuda_nvrtc-*.dist-info, version.json, or bin/nvcc --version.
# The probe line is compared, origin column ignored, with the recorded line(s) of that release.
# Exit: 0 match; 1 mismatch (diff shown) or error; 77 skip (no library, no compiler, or the
# release is not recorded).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DATA=$REPO/tests/data/nvrtc_releases.tsv
SRC=$HERE/nvrtc_probe.cpp
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

LIB=${1:-}
if [[ -z $LIB ]]; then
  LIB=/usr/local/cuda/lib64/libnvrtc.so.13
  if [[ ! -e $LIB ]]; then
    LIB=""
    for f in /usr/local/cuda/lib64/libnvrtc.so.[0-9]*; do   # newest soname major
      [[ -e $f ]] && LIB=$f
    done
  fi
fi
[[ -z $LIB || $LIB == /* ]] || fail "library path must be absolute: $LIB"
[[ -n $LIB && -e $LIB ]] || skip "no NVRTC library (${LIB:-/usr/local/cuda/lib64/libnvrtc.so.*})"
[[ -f $DATA ]] || fail "missing $DATA"
command -v g++ >/dev/null || skip "no g++"

# Full release of the library.
REL=${CUARCH_NVRTC_RELEASE:-}
if [[ -z $REL ]]; then
  real=$(readlink -f "$LIB")
  [[ ${real##*/} =~ ^libnvrtc\.so\.([0-9]+\.[0-9]+\.[0-9]+)$ ]] && REL=${BASH_REMATCH[1]}
fi
if [[ -z $REL ]]; then
  dir=$(cd "$(dirname "$LIB")" && pwd -P)
  for root in "$dir/.." "$dir/../.." "$dir/../../.."; do
    root=$(cd "$root" && pwd)
    if [[ -f $root/.cuarch-info ]]; then
      REL=$(sed -n 's/^version=//p' "$root/.cuarch-info" | head -n1); [[ -n $REL ]] && break
    fi
    di=$(ls -d "$root"/dist-info/nvidia_cuda_nvrtc-*.dist-info 2>/dev/null | head -n1)
    if [[ -n $di ]]; then REL=$(basename "$di" .dist-info); REL=${REL##*-}; break; fi
    if [[ -f $root/version.json ]]; then
      REL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda_nvrtc"]["version"])' \
              "$root/version.json" 2>/dev/null) && [[ -n $REL ]] && break
    fi
    if [[ -x $root/bin/nvcc ]]; then
      REL=$("$root/bin/nvcc" --version 2>/dev/null | sed -n 's/.*, V\([0-9.]*\).*/\1/p' | head -n1)
      [[ -n $REL ]] && break
    fi
  done
fi
[[ -n $REL ]] || fail "cannot tell the release of $LIB; set CUARCH_NVRTC_RELEASE=M.m.p"

WANT=$(awk -F'\t' -v r="$REL" '!/^#/ && $1 == r' "$DATA")
[[ -n $WANT ]] || skip "release $REL is not recorded in $DATA (run scripts/toolkits/record-nvrtc.sh)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
g++ -std=c++17 -O1 -Wall -Wextra -o "$TMP/nvrtc_probe" "$SRC" -ldl || fail "probe build failed"

# Libraries without $ORIGIN in their run path (e.g. Debian's) need their directory for builtins.
LD_LIBRARY_PATH="$(dirname "$LIB")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
if ! timeout --kill-after=5 50 "$TMP/nvrtc_probe" "$LIB" "$REL" "local:$LIB" >"$TMP/got" 2>"$TMP/err"; then
  cat "$TMP/err"
  fail "probe failed on $LIB"
fi
cut -f1,3- "$TMP/got" >"$TMP/got.cmp"
while IFS= read -r line; do
  printf '%s\n' "$line" | cut -f1,3- >"$TMP/want.cmp"
  if cmp -s "$TMP/got.cmp" "$TMP/want.cmp"; then
    echo "PASS: $LIB (NVRTC $REL) matches the record ($(cut -f2 <<<"$line"))"
    exit 0
  fi
done <<<"$WANT"

echo "FAIL: $LIB (NVRTC $REL) differs from $DATA (origin column ignored):"
# One "column: item" per line makes the diff readable.
fields() {
  awk -F'\t' 'BEGIN { split("release nvrtc_version ptx_isa default_target supported_archs accepted", n, " ") }
    { for (i = 1; i <= NF; i++) { k = split($i, v, ","); for (j = 1; j <= k; j++) print n[i] ": " v[j] } }' "$1"
}
fields "$TMP/want.cmp" >"$TMP/want.fields"
fields "$TMP/got.cmp" >"$TMP/got.fields"
diff -U1 --label "recorded ($(cut -f2 <<<"$WANT" | head -n1))" --label "probed ($LIB)" \
  "$TMP/want.fields" "$TMP/got.fields"
exit 1
