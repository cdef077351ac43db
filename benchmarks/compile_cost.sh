#!/usr/bin/env bash
# What including cuarch costs a translation unit: `CXX -std=c++17 -fsyntax-only` of a baseline TU
# (<string> <vector> <system_error>, what a JIT library already includes) against the same TU plus
# <cuarch/cuarch.hpp>, and plus <cuarch/detect.hpp>. Runs are interleaved (base, umbrella, edge,
# base, ...) so a busy shared machine slows all three alike; the medians, the deltas and the ratios
# to the baseline of the same run are printed. docs/performance.md records the figures.
#
#   benchmarks/compile_cost.sh [runs]            (default 7; env CXX, CXXSTD=c++17, CUARCH_INCLUDE)
# Last line, for scripts: "ratio umbrella=<x> edge=<y> base_ms=<ms> umbrella_ms=<ms> edge_ms=<ms>".
set -euo pipefail
runs=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
include=${CUARCH_INCLUDE:-$here/../include}
cxx=${CXX:-g++}
std=${CXXSTD:-c++17}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

base='#include <string>
#include <vector>
#include <system_error>
int main() { std::vector<std::string> v; return static_cast<int>(v.size()); }'
printf '%s\n' "$base" >"$work/base.cpp"
printf '%s\n#include <cuarch/cuarch.hpp>\n' "$base" >"$work/umbrella.cpp"
printf '%s\n#include <cuarch/detect.hpp>\n' "$base" >"$work/edge.cpp"

# The compiler's CPU time (user + sys), not wall time: on a shared machine wall time mostly measures
# the neighbours. CUARCH_COMPILE_CLOCK=wall measures wall time instead.
compile_ms() {  # prints the time of one -fsyntax-only compile, in ms
  local t
  t=$({ TIMEFORMAT='%3R %3U %3S'; time "$cxx" -std="$std" -fsyntax-only -I"$include" "$1" >/dev/null; } 2>&1) ||
    { echo "compile failed: $1: $t" >&2; exit 1; }
  t=${t##*$'\n'}
  if [[ ${CUARCH_COMPILE_CLOCK:-cpu} == wall ]]; then awk '{printf "%d\n", $1 * 1000}' <<<"$t"
  else awk '{printf "%d\n", ($2 + $3) * 1000}' <<<"$t"; fi
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
minmax() { sort -n | awk 'NR==1{mn=$1} {mx=$1} END {print mn "/" mx}'; }

compile_ms "$work/base.cpp" >/dev/null  # warm the page cache for the standard headers
: >"$work/base.ms"; : >"$work/umbrella.ms"; : >"$work/edge.ms"
for ((i = 0; i < runs; i++)); do
  for tu in base umbrella edge; do compile_ms "$work/$tu.cpp" >>"$work/$tu.ms"; done
done

b=$(median <"$work/base.ms"); u=$(median <"$work/umbrella.ms"); e=$(median <"$work/edge.ms")
echo "compiler: $("$cxx" --version | head -1), -std=$std -fsyntax-only, $runs interleaved runs, ${CUARCH_COMPILE_CLOCK:-cpu} time"
printf '%-34s median %6s ms  (min/max %s)\n' "baseline TU" "$b" "$(minmax <"$work/base.ms")"
printf '%-34s median %6s ms  (min/max %s)  +%s ms\n' "+ <cuarch/cuarch.hpp>" "$u" "$(minmax <"$work/umbrella.ms")" $((u - b))
printf '%-34s median %6s ms  (min/max %s)  +%s ms\n' "+ <cuarch/detect.hpp>" "$e" "$(minmax <"$work/edge.ms")" $((e - b))
ru=$(awk -v a="$u" -v b="$b" 'BEGIN{printf "%.2f", a/b}')
re=$(awk -v a="$e" -v b="$b" 'BEGIN{printf "%.2f", a/b}')
echo "ratio umbrella=$ru edge=$re base_ms=$b umbrella_ms=$u edge_ms=$e"
