#!/usr/bin/env bash
# The README's C++ example is a program that CI compiles and runs:
#   1. the README's first ```cpp block is contained, verbatim, in examples/front_door.cpp;
#   2. that program (built with the examples) resolves an explicit list against this machine's NVRTC
#      without a GPU (exit 0, one line of NVRTC options per target), refuses a malformed list with
#      exit 2 and the reason, and answers `native` with the devices (exit 0) or, with none, exit 1
#      and the reason: never a default target.
set -u
src="${CUARCH_SOURCE_DIR:?}"
bin="${CUARCH_BINARY_DIR:?}"
fail=0

# ---- 1. the README shows the example's lines verbatim -------------------------------------------
python3 - "$src/README.md" "$src/examples/front_door.cpp" <<'PY' || fail=1
import sys
readme, example = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
lines = readme.splitlines()
try:
    start = lines.index("```cpp") + 1
    end = lines.index("```", start)
except ValueError:
    print("FAIL: README.md has no ```cpp block"); sys.exit(1)
block = "\n".join(lines[start:end]) + "\n"
if "resolve_here(" not in block:
    print("FAIL: the README's first C++ example is not the front door (no resolve_here call)"); sys.exit(1)
if block not in example:
    print("FAIL: the README's first ```cpp block (README.md lines %d-%d) is not verbatim in examples/front_door.cpp:" % (start + 1, end))
    print(block); sys.exit(1)
print("README.md lines %d-%d are verbatim in examples/front_door.cpp" % (start + 1, end))
PY

# ---- 2. the program runs ------------------------------------------------------------------------
exe="$bin/examples/front_door"
if [[ ! -x "$exe" ]]; then
  if grep -q '^CUARCH_BUILD_EXAMPLES:BOOL=OFF' "$bin/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: examples not built (CUARCH_BUILD_EXAMPLES=OFF)"
    exit $((fail ? 1 : 77))
  fi
  echo "FAIL: $exe was not built"
  exit 1
fi
have_nvrtc() {
  ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so' && return 0
  compgen -G "${CUDA_HOME:-/usr/local/cuda}/lib64/libnvrtc.so*" >/dev/null && return 0
  compgen -G "/usr/local/cuda*/lib*/libnvrtc.so*" >/dev/null
}
if ! have_nvrtc; then
  echo "skipped: no NVRTC on this machine (the example resolves against the NVRTC that will compile)"
  exit $((fail ? 1 : 77))
fi

expect() {  # expect <exit status> <regex on stdout+stderr> <args...>
  local want="$1" regex="$2"
  shift 2
  local out status
  out=$(timeout 60 "$exe" "$@" 2>&1)
  status=$?
  if [[ $status -ne $want ]] || ! grep -Eq "$regex" <<<"$out"; then
    echo "FAIL: front_door $* exited $status (want $want), output:"
    echo "$out"
    fail=1
  else
    echo "ok: front_door $* -> exit $status"
    echo "$out" | sed 's/^/    /'
  fi
}
expect 0 '^nvrtc --gpu-architecture=sm_90a$' '9.0a;12.0'
expect 0 '^nvrtc --gpu-architecture=sm_120$' '9.0a;12.0'
expect 2 "'9.0b' at position 0 has an unknown suffix" '9.0b'
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  expect 0 '^nvrtc --gpu-architecture=sm_' # native: the GPUs of this machine
else
  expect 1 'no CUDA device' # native without a GPU: the reason, never a default target
fi
exit $fail
