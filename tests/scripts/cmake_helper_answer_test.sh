#!/usr/bin/env bash
# cmake_helper_answer_test.sh - the configure-time helper of cuarch_resolve_cuda_architectures()
# answers in a JSON file that CMake reads with string(JSON) (cmake/cuarchCudaArchitectures.cmake):
#   a. a library loaded while detecting prints on stdout (here a stub libcuda whose constructor
#      prints, asked for `native`): the answer file is still the whole document, the print is not in it;
#   b. a list's semicolons and a refusal's words travel whole: CMake reads back the value and the error;
#   c. no answer= writes the document on stdout (for a person running the helper by hand);
#   d. the module's reader (_cuarch_answer_text) gives strings and arrays of strings whole.
# Environment: CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR (its tests/cuarch_resolve_helper), CXX/CC.
# Exit 77 when the helper is not built (no nvcc at configure), or no C compiler or cmake is at hand.
set -uo pipefail
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
helper="${CUARCH_BINARY_DIR:-$src/build}/tests/cuarch_resolve_helper"
[[ -x "$helper" ]] || { echo "skipped: no $helper (built where nvcc is found)" >&2; exit 77; }
cc="${CC:-cc}"
command -v "$cc" >/dev/null 2>&1 || { echo "skipped: no C compiler ($cc)" >&2; exit 77; }
cmake="${CUARCH_CMAKE:-cmake}"
command -v "$cmake" >/dev/null 2>&1 || { echo "skipped: no cmake" >&2; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# A stub driver whose constructor prints on stdout, through stdio and write(2), as a banner would.
cat >"$work/banner.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void banner(void) {
  printf("BANNER {\"architectures\":\"10-real\"} from a library constructor\n");
  fflush(stdout);
  const char raw[] = "BANNER from a library constructor (write)\n";
  if (write(1, raw, sizeof raw - 1) < 0) abort();
}
EOF
"$cc" -shared -fPIC -O1 -o "$work/libcuda.so.1" "$src/tests/fixtures/stub_libcuda.c" "$work/banner.c" ||
  { echo "FAIL: cannot build the stub driver" >&2; exit 1; }

# CMake's own reading of an answer: what the module does (string(JSON ...)).
read_back() {  # <answer file> <member>
  "$cmake" -DANSWER="$1" -DMEMBER="$2" -P "$work/read.cmake"
}
cat >"$work/read.cmake" <<'EOF'
file(READ "${ANSWER}" doc)
string(JSON type TYPE "${doc}" ${MEMBER})
if(type STREQUAL "STRING")
  string(JSON value GET "${doc}" ${MEMBER})
  message("[${value}]")
else()
  message("${type}")
endif()
EOF

# ---- a. a printing constructor ------------------------------------------------------------------
env -u CUARCH_ARCHS CUARCH_LIBCUDA="$work/libcuda.so.1" CUARCH_STUB_DEVICES=9.0,12.0 CUARCH_STUB_DRIVER_VERSION=13000 \
  "$helper" archs=native nvcc=/usr/local/cuda/bin/nvcc cmake_version=4.0.2 "answer=$work/a.json" >"$work/out" 2>"$work/err"
rc=$?
got=$(read_back "$work/a.json" architectures 2>&1)
if [[ $rc == 0 && "$got" == "[90a-real;120a-real]" ]] && grep -q BANNER "$work/out" && ! grep -q BANNER "$work/a.json"; then
  echo "ok: a. the banner went to stdout; the answer file is the document: $got"
elif [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "skipped: a. no /usr/local/cuda/bin/nvcc" >&2
else
  fail "a. exit $rc, architectures $got; stdout: $(head -c 300 "$work/out"); answer: $(head -c 300 "$work/a.json" 2>&1)"
fi

# ---- b. a refusal, read back whole --------------------------------------------------------------
"$helper" "archs=90a;bogus" cmake_version=4.0.2 "answer=$work/b.json" >/dev/null 2>&1
rc=$?
err=$(read_back "$work/b.json" error 2>&1)
arch=$(read_back "$work/b.json" architectures 2>&1)
if [[ $rc == 2 && "$err" == "[REQUEST '90a;bogus': 'bogus' at position 4 is not a CUDA architecture"* && "$arch" == "NULL" ]]; then
  echo "ok: b. the refusal reads back whole, semicolon and all; architectures is null"
else
  fail "b. exit $rc, error $err, architectures $arch"
fi

# ---- c. no answer=: the document on stdout ------------------------------------------------------
out=$("$helper" archs=bogus 2>/dev/null)
if [[ "$out" == '{"architectures":null,'* ]] && python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out" 2>/dev/null; then
  echo "ok: c. without answer= the document is on stdout"
else
  fail "c. stdout was: $out"
fi

# ---- d. the module's own reading: arrays of strings, semicolons kept, an empty array empty --------
cat >"$work/module.cmake" <<'EOF'
include("${SRC}/cmake/cuarchCudaArchitectures.cmake")
set(doc [=[{"notes":["one; two","three"],"warnings":[],"error":"a;b","architectures":null}]=])
foreach(key notes warnings error architectures)
  _cuarch_answer_text(value "${doc}" ${key} "|")
  message("${key}=[${value}]")
endforeach()
EOF
got=$("$cmake" -DSRC="$src" -P "$work/module.cmake" 2>&1)
want=$'notes=[|one; two|three]\nwarnings=[]\nerror=[a;b]\narchitectures=[]'
if [[ "$got" == "$want" ]]; then
  echo "ok: d. the module reads strings and arrays of strings whole"
else
  fail "d. the module read: $got"
fi

((failures == 0)) && echo "all passed" || echo "$failures failure(s)"
exit $((failures ? 1 : 0))
