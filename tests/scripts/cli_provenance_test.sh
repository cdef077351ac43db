#!/usr/bin/env bash
# `cuarch resolve`: every failure names who decided; no silent fallback; warnings where the
# decision is made.
#   - nvcc 12.8 first on PATH, the real CUDA 13.0 at /usr/local/cuda (no CUDA_HOME): 12.0f fails
#     naming the PATH nvcc, "first on PATH", and /usr/local/cuda's nvcc 13.0 with the fix;
#     the JSON failure carries "compiler", "alternatives" (with "fix");
#   - CUDA_HOME missing, or without nvcc; --cuda-home missing: an error naming it, never PATH's nvcc;
#   - --cuda-home /usr/local/cuda/bin: understood, with a note;
#   - no nvcc anywhere (--isolated): no_compiler, the places searched;
#   - warnings: CUDA_HOME vs PATH (--strict asks every nvcc), an --nvcc override vs CUDA_HOME,
#     nvcc vs NVRTC with advice for the compile path at hand; --strict turns them into exit 1.
# Needs the real toolkit at /usr/local/cuda for the 13.0 cases (skipped without it).
# Environment: CUARCH_CLI, CUARCH_SOURCE_DIR (default: this checkout). Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/  stdout: /' "$work/out" >&2; sed 's/^/  stderr: /' "$work/err" >&2; failures=$((failures + 1)); }
run() { "$cli" resolve "$@" >"$work/out" 2>"$work/err"; }
out_has() { grep -qF -- "$1" "$work/out"; }
err_has() { grep -qF -- "$1" "$work/err"; }

mkdir -p "$work/nvcc"
cp "$src/tests/fixtures/fake-nvcc/nvcc-12.8" "$work/nvcc/nvcc"
old="$work/nvcc/nvcc"
path="$work/nvcc:/usr/bin:/bin"  # the old nvcc first; no toolkit's bin on PATH

real_cuda=""
if [[ -x /usr/local/cuda/bin/nvcc ]] && /usr/local/cuda/bin/nvcc --version 2>/dev/null | grep -q "release 13\."; then
  real_cuda="$(readlink -f /usr/local/cuda)"
else
  echo "note: no CUDA 13 nvcc at /usr/local/cuda; the cases that need it are skipped" >&2
fi

if [[ -n "$real_cuda" ]]; then
  # The motivating report: the PATH nvcc decides, and the failure says so, and what would work.
  PATH="$path" run --device-cc 12.0 --archs 12.0f --compiler nvcc
  rc=$?
  [[ $rc == 1 ]] && err_has "sm_120f needs CUDA >= 12.9 (have 12.8)" && err_has "decided by: nvcc 12.8.93 at $old" &&
    err_has "first on PATH" && err_has "would build it: nvcc 13.0" && err_has "default location /usr/local/cuda" &&
    err_has 'fix: export PATH="/usr/local/cuda/bin:$PATH"' ||
    fail "PATH nvcc 12.8 vs /usr/local/cuda 13.0: the failure names the decider and the fix (exit $rc)"
  PATH="$path" run --device-cc 12.0 --archs 12.0f --compiler nvcc --format json
  python3 - "$work/out" "$old" "$real_cuda" <<'EOF' || fail "the JSON failure carries compiler, alternatives and their fix"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False, d
c = d["compiler"]
assert c["kind"] == "nvcc" and c["version"] == "12.8.93" and c["location"] == sys.argv[2], c
assert "first on PATH" in c["found"], c
assert set(["kind", "version", "location", "supported_sm_numbers", "table_older_than_compiler"]) <= set(c), c
alt = d["alternatives"]
assert len(alt) == 1 and alt[0]["version"].startswith("13.0"), alt
assert alt[0]["fix"] == 'export PATH="/usr/local/cuda/bin:$PATH"', alt
assert d["searched"] == [] and d["warnings"] == [], d
EOF
  # And the same with the fix applied resolves.
  PATH="$path" CUDA_HOME="$real_cuda" run --device-cc 12.0 --archs 12.0f --compiler nvcc --format cmake
  [[ $? == 0 && "$(cat "$work/out")" == "120f-real" ]] || fail "with the fix (CUDA_HOME=$real_cuda) 12.0f resolves"
fi

# No silent fallback: PATH holds a working nvcc that would build 9.0, yet a named root decides.
PATH="$path" CUDA_HOME="$work/no-such-cuda" run --archs 9.0
rc=$?
# (exit 1, file_unreadable: as --cuda-home pointing nowhere, and as CUDACXX naming no file)
[[ $rc == 1 && ! -s "$work/out" ]] && err_has "cannot read $work/no-such-cuda (toolkit files at CUDA_HOME): no such directory" &&
  err_has "does not fall back" ||
  fail "a missing CUDA_HOME is an error naming it, not PATH's nvcc (exit $rc)"
mkdir -p "$work/empty-home/include"
PATH="$path" CUDA_HOME="$work/empty-home" run --archs 9.0
rc=$?
[[ $rc == 1 && ! -s "$work/out" ]] && err_has "$work/empty-home/bin/nvcc (nvcc at CUDA_HOME)" && err_has "no bin/nvcc" ||
  fail "a CUDA_HOME without nvcc is an error naming it (exit $rc)"
PATH="$path" run --archs 9.0 --cuda-home "$work/nope"
rc=$?
[[ $rc == 1 && ! -s "$work/out" ]] && err_has "$work/nope" || fail "a missing --cuda-home is an error naming it (exit $rc)"
if [[ -n "$real_cuda" ]]; then
  PATH="$path" run --archs 12.0f --cuda-home /usr/local/cuda/bin --format cmake
  [[ $? == 0 && "$(cat "$work/out")" == "120f-real" ]] && err_has "bin directory" && err_has "$real_cuda" ||
    fail "--cuda-home .../bin is read as its toolkit, with a note"
fi

# No compiler anywhere: its own code, and the places searched.
PATH="$path" run --archs 9.0 --isolated --python-prefix "$work/no-venv" --format json
rc=$?
[[ $rc == 1 ]] && out_has '"kind":"no_compiler"' && err_has "no nvcc found" && err_has "$work/no-venv" && err_has "pip" ||
  fail "no nvcc: no_compiler with the places searched (exit $rc)"

# Warnings where the decision is made.
if [[ -n "$real_cuda" ]]; then
  PATH="$path" CUDA_HOME="$real_cuda" run --archs 9.0
  [[ $? == 0 ]] && ! err_has "warning:" || fail "a plain resolve does not run the other nvcc on PATH"
  # Another nvcc the user's tools run is a warning by default when its verdict differs: the seed.
  PATH="$path" CUDA_HOME="$real_cuda" run --archs 12.0f
  rc=$?
  [[ $rc == 0 ]] && out_has "sm_120f" && err_has "(tool_compiler_disagrees)" && err_has "first on PATH" && err_has "refuses it" &&
    err_has 'export PATH="' || fail "the seed: CUDA_HOME 13.0 decides, the first nvcc on PATH 12.8 refuses: a warning (exit $rc)"
  PATH="$path" CUDA_HOME="$real_cuda" run --archs 12.0f --strict
  rc=$?
  [[ $rc == 1 ]] && err_has "--strict" || fail "--strict: that warning is exit 1 (exit $rc)"
  PATH="$real_cuda/bin:$path" CUDA_HOME="$real_cuda" run --archs 12.0f
  [[ $? == 0 ]] && ! err_has "warning:" || fail "the fix followed: no warning"
  # An --nvcc override against CUDA_HOME's toolkit, where the two disagree on the request.
  PATH="$path" CUDA_HOME="$real_cuda" run --archs all-major --nvcc "$old" --format json
  rc=$?
  [[ $rc == 0 ]] && err_has "(tool_compiler_disagrees)" && err_has '$CUDA_HOME' && out_has '"warnings":[{"kind":"tool_compiler_disagrees"' ||
    fail "an --nvcc override against CUDA_HOME's toolkit is a warning, in JSON too (exit $rc)"
  PATH="$path" CUDA_HOME="$real_cuda" run --archs 9.0 --nvcc "$old" --format json
  # A success names its compiler's provenance too: the path as found and how it was found.
  out_has "\"path\":\"$old\",\"found\":\"" && out_has "given explicitly" ||
    fail "a successful resolution's JSON says where its compiler was found"
  PATH="$path" CUDA_HOME="$real_cuda" run --archs 9.0 --nvcc "$old" --strict
  [[ $? == 0 ]] && ! err_has "warning:" || fail "--strict: the same verdict from every compiler is no warning"
  PATH="$path" CUDA_HOME="$real_cuda" run --archs all-major --nvcc "$old" --strict
  [[ $? == 1 ]] || fail "--strict with the override warning exits 1"
  # nvcc vs NVRTC, judged by their verdicts: the advice fits the compile path.
  PATH="$path" run --archs all-major --nvcc "$old" --strict
  rc=$?
  [[ $rc == 1 ]] && err_has "(nvcc_vs_nvrtc)" && err_has "resolve its targets with --compiler nvrtc" ||
    fail "nvcc path: nvcc vs NVRTC advises NVRTC for NVRTC JIT (exit $rc)"
  PATH="$path" run --archs all-major --nvrtc /usr/local/cuda/lib64/libnvrtc.so --strict
  rc=$?
  [[ $rc == 1 ]] && err_has "(nvcc_vs_nvrtc)" && err_has "resolve for the builds with --compiler nvcc" ||
    fail "NVRTC path: nvcc vs NVRTC advises compiler nvcc for nvcc-based JIT (exit $rc)"
  # One toolkit everywhere: nothing to warn about, even under --strict.
  PATH="/usr/local/cuda/bin:/usr/bin:/bin" CUDA_HOME="$real_cuda" run --archs 9.0 --strict
  rc=$?
  [[ $rc == 0 ]] && ! err_has "warning:" || fail "one toolkit: no warning under --strict (exit $rc)"
fi

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_provenance_test: all checks passed"
