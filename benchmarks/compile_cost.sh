#!/usr/bin/env bash
# What including cuarch costs a translation unit: `CXX -std=c++17 -fsyntax-only` of a baseline TU
# (<string> <vector> <system_error>, what a JIT library already includes) against the same TU plus
# <cuarch/cuarch.hpp>, and plus <cuarch/detect.hpp>, each header-only and in the compiled mode
# (-DCUARCH_COMPILED, what the cuarch::compiled target sets). With --o2, also a whole -O2 compile
# of a program that resolves a list and prints nvcc flags (compile_cost/resolve_and_print.cpp, both
# modes) against the same program written by hand (compile_cost/resolve_and_print_by_hand.cpp).
# Runs are interleaved (every TU once, then again, ...) so a busy shared machine slows all alike;
# the medians, the deltas and the ratios to the baseline of the same run are printed.
# docs/performance.md records the figures.
#
#   benchmarks/compile_cost.sh [runs] [--o2]
#   (default 7 runs; env CXX, CXXSTD=c++17, CUARCH_INCLUDE, CUARCH_COMPILE_CLOCK=cpu|wall|instructions)
# Last two lines, for scripts: "ratio umbrella=<x> edge=<y> umbrella_compiled=<x> edge_compiled=<y>
# [o2=<x> o2_compiled=<y>] base=<n><unit>" (medians; the o2 ratios are to the hand-written program's
# -O2 compile), then "min_ratio ..." with the same keys from each TU's fastest run. The CI check
# (tests/scripts/compile_cost_test.sh) reads the instruction clock's ratio line.
set -euo pipefail
runs=7
o2=0
for arg in "$@"; do
  case $arg in
    --o2) o2=1 ;;
    *) runs=$arg ;;
  esac
done
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

# name | source | flags | what the table calls it
tus=(
  "base|$work/base.cpp|-fsyntax-only|baseline TU"
  "umbrella|$work/umbrella.cpp|-fsyntax-only|+ <cuarch/cuarch.hpp>"
  "edge|$work/edge.cpp|-fsyntax-only|+ <cuarch/detect.hpp>"
  "umbrella_compiled|$work/umbrella.cpp|-fsyntax-only -DCUARCH_COMPILED|+ <cuarch/cuarch.hpp>, compiled mode"
  "edge_compiled|$work/edge.cpp|-fsyntax-only -DCUARCH_COMPILED|+ <cuarch/detect.hpp>, compiled mode"
)
if ((o2)); then
  tus+=(
    "o2_hand|$here/compile_cost/resolve_and_print_by_hand.cpp|-O2 -c|-O2 resolve + print, by hand"
    "o2|$here/compile_cost/resolve_and_print.cpp|-O2 -c|-O2 resolve + print, cuarch"
    "o2_compiled|$here/compile_cost/resolve_and_print.cpp|-O2 -c -DCUARCH_COMPILED|-O2 resolve + print, compiled mode"
  )
fi

# The compiler's CPU time (user + sys), not wall time: on a shared machine wall time mostly measures
# the neighbours. CUARCH_COMPILE_CLOCK=wall measures wall time instead; CUARCH_COMPILE_CLOCK=instructions
# counts the instructions the compiler runs (valgrind's cachegrind, every process of the driver, in
# millions): the same count whatever else the machine does, so one run is enough (the CI check's
# clock). Time per instruction is not constant (a larger TU misses the caches more): the instruction
# ratios of the heavy TUs run lower than their time ratios.
clock=${CUARCH_COMPILE_CLOCK:-cpu}
unit=ms
[[ $clock == instructions ]] && unit=Minstr
compile_ms() {  # compile_ms <source> <flags...>: prints the cost of one compile, in $unit
  local src=$1 t
  shift
  if [[ $clock == instructions ]]; then
    t=$(valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
          "$cxx" -std="$std" "$@" -I"$include" "$src" -o "$work/out.o" 2>&1 >/dev/null) ||
      { echo "compile failed: $src $*: $t" >&2; exit 1; }
    # "==PID== I   refs:      2,754,858,877", one line per process: their sum
    sed -n 's/^==[0-9]*== I *refs: *//p' <<<"$t" | tr -d , | awk '{n += $1} END {if (NR == 0) exit 1; printf "%d\n", n / 1e6}' ||
      { echo "no instruction count from valgrind for $src: $t" >&2; exit 1; }
    return
  fi
  t=$({ TIMEFORMAT='%3R %3U %3S'; time "$cxx" -std="$std" "$@" -I"$include" "$src" -o "$work/out.o" >/dev/null; } 2>&1) ||
    { echo "compile failed: $src $*: $t" >&2; exit 1; }
  t=${t##*$'\n'}
  if [[ $clock == wall ]]; then awk '{printf "%d\n", $1 * 1000}' <<<"$t"
  else awk '{printf "%d\n", ($2 + $3) * 1000}' <<<"$t"; fi
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
minmax() { sort -n | awk 'NR==1{mn=$1} {mx=$1} END {print mn "/" mx}'; }

[[ $clock == instructions ]] || compile_ms "$work/base.cpp" -fsyntax-only >/dev/null  # warm the page cache
for tu in "${tus[@]}"; do : >"$work/${tu%%|*}.ms"; done
for ((i = 0; i < runs; i++)); do
  for tu in "${tus[@]}"; do
    IFS='|' read -r name src flags _ <<<"$tu"
    # shellcheck disable=SC2086  # flags is a list
    compile_ms "$src" $flags >>"$work/$name.ms"
  done
done

echo "compiler: $("$cxx" --version | head -1), -std=$std, $runs interleaved runs, $clock"
declare -A med fastest
for tu in "${tus[@]}"; do
  IFS='|' read -r name _ _ label <<<"$tu"
  med[$name]=$(median <"$work/$name.ms")
  fastest[$name]=$(sort -n "$work/$name.ms" | head -1)
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
line="ratio"
min_line="min_ratio"
for tu in "${tus[@]}"; do
  IFS='|' read -r name _ _ label <<<"$tu"
  ref=${med[base]}
  [[ $name == o2* ]] && ref=${med[o2_hand]}
  printf '%-44s median %6s %s  (min/max %s)  +%s  %sx\n' "$label" "${med[$name]}" "$unit" "$(minmax <"$work/$name.ms")" \
    $((med[$name] - ref)) "$(ratio "${med[$name]}" "$ref")"
  min_ref=${fastest[base]}
  [[ $name == o2* ]] && min_ref=${fastest[o2_hand]}
  [[ $name == base || $name == o2_hand ]] || {
    line+=" $name=$(ratio "${med[$name]}" "$ref")"
    min_line+=" $name=$(ratio "${fastest[$name]}" "$min_ref")"
  }
done
echo "$line base=${med[base]}$unit"
echo "$min_line base=${fastest[base]}$unit"
