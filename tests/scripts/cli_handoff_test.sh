#!/usr/bin/env bash
# What `cuarch env` hands its consumer is what cuarch validated, or the consumer stops (issue 31):
#   1. a refusal stops the shell that evals it: `eval "$(cuarch env ...)"` returns non-zero and sets
#      nothing, in bash, dash and zsh, with and without `set -e`, for every kind of refusal (the
#      tool's list cannot spell a target, the resolution failed, --strict, bad usage, an unknown flag);
#   2. every value reaches its reader byte for byte: a POSIX shell's eval, python-dotenv (the dotenv
#      format) and the GitHub runner's reading of $GITHUB_ENV, for toolkit paths holding $, backticks,
#      quotes, #, \, CR and line feeds; a value a reader cannot be given verbatim is refused, naming it;
#   3. each fix a refusal prints, followed, is accepted with no warning;
#   4. output errors are errors: stdout on a full disk, closed, or a pipe nobody reads gives a non-zero
#      exit and one line on stderr, in every command.
# Needs python3; installs python-dotenv (pinned) into the build tree once. zsh: checked where
# installed (scripts/install-deps.sh installs it), said when not. Environment: CUARCH_CLI,
# CUARCH_SOURCE_DIR, CUARCH_BINARY_DIR. Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
src="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
unset CMAKE_COMMAND
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# python-dotenv, the dotenv reader, pinned, from the package index once (kept in the build tree).
pydeps="${CUARCH_BINARY_DIR:-$work}/handoff-pydeps"
if ! PYTHONPATH="$pydeps" python3 -c 'import dotenv' 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check --no-input --target "$pydeps" "python-dotenv==1.2.2" >&2 ||
    { echo "FAIL: cannot install python-dotenv 1.2.2 from the package index" >&2; exit 1; }
fi

# Toolkits: 12.8 (the fixture) and 13.0, each <root>/bin/nvcc.
make_toolkit() {  # <root> <release 12.8|13.0>
  mkdir -p "$1/bin"
  if [[ $2 == 12.8 ]]; then cp "$src/tests/fixtures/fake-nvcc/nvcc-12.8" "$1/bin/nvcc"
  else sed 's/release 12.8, V12.8.93/release 13.0, V13.0.88/; s/12\.8/13.0/g' "$src/tests/fixtures/fake-nvcc/nvcc-12.8" >"$1/bin/nvcc"; fi
  chmod +x "$1/bin/nvcc"
}
cuda128="$work/cuda-12.8" cuda130="$work/cuda-13.0"
make_toolkit "$cuda128" 12.8
make_toolkit "$cuda130" 13.0
shells=(bash dash)
if command -v zsh >/dev/null 2>&1; then shells+=(zsh); else echo "note: zsh is not installed: eval checked in bash and dash only" >&2; fi

# ---- 1. a refusal stops the shell that evals it --------------------------------------------------
refusals=(
  "--for flashinfer --nvcc $cuda130/bin/nvcc --archs 9.0;10.0a"       # the tool's list cannot spell sm_90
  "--for torch --nvcc $cuda128/bin/nvcc --archs 12.0f"                # nvcc 12.8 cannot build sm_120f
  "--for torch --nvcc $cuda128/bin/nvcc --archs 8.0a"                 # a malformed request (exit 2)
  "--for flashnfer --archs 9.0a"                                      # a mistyped tool (exit 2)
  "--for torch --arch 9.0a"                                           # an unknown flag (CLI11's refusal)
)
for args in "${refusals[@]}"; do
  for sh in "${shells[@]}"; do
    # Without set -e the eval's status says it; with set -e the script stops before "continued".
    # shellcheck disable=SC2016
    out=$(PATH=/usr/bin:/bin CLI="$cli" ARGS="$args" "$sh" -c 'eval "$($CLI env $ARGS 2>/dev/null)"; echo "eval=$? set=[${FLASHINFER_CUDA_ARCH_LIST-}${TORCH_CUDA_ARCH_LIST-}]"' 2>/dev/null)
    [[ $out != *"eval=0 "* && $out == *"set=[]"* ]] || fail "$sh: eval of a refusal returned 0 or set something (env $args): $out"
    # shellcheck disable=SC2016
    out=$(PATH=/usr/bin:/bin CLI="$cli" ARGS="$args" "$sh" -c 'set -e; eval "$($CLI env $ARGS 2>/dev/null)"; echo continued' 2>&1)
    rc=$?
    [[ $rc != 0 && $out != *continued* ]] || fail "$sh: set -e; eval of a refusal went on (exit $rc, env $args): $out"
  done
done
# --strict with a warning the lines do not settle is a refusal too.
# shellcheck disable=SC2016
out=$(FLASHINFER_EXTRA_CUDAFLAGS="-gencode=arch=compute_80,code=sm_80" PATH=/usr/bin:/bin CLI="$cli" NVCC="$cuda130/bin/nvcc" \
  bash -c 'set -e; eval "$($CLI env --for flashinfer --nvcc $NVCC --archs 9.0a --strict 2>/dev/null)"; echo continued' 2>&1)
[[ $? != 0 && $out != *continued* ]] || fail "bash: set -e; eval of a --strict refusal went on: $out"
# The other formats print nothing on a refusal (the writing step's exit status fails), json its document.
for format in dotenv github; do
  PATH=/usr/bin:/bin "$cli" env --for torch --nvcc "$cuda128/bin/nvcc" --archs 12.0f --format "$format" >"$work/out" 2>/dev/null
  [[ $? == 1 && ! -s $work/out ]] || fail "$format: a refusal exits 1 and prints nothing"
done

# ---- 2. hostile values reach every reader byte for byte -------------------------------------------
# The GitHub runner's reading of $GITHUB_ENV on Linux (actions/runner, src/Runner.Worker/
# FileCommandManager.cs, SetEnvFileCommand.ProcessCommand and ReadLine): lines split at LF only;
# NAME=VALUE takes the rest of the line; NAME<<DELIM takes the lines up to DELIM, without the last LF.
cat >"$work/readers.py" <<'EOF'
import json, sys
from dotenv import dotenv_values

def github(text):
    out, lines, i = {}, text.split("\n"), 0
    if lines and lines[-1] == "":
        lines.pop()
    while i < len(lines):
        line = lines[i]; i += 1
        if not line:
            continue
        eq, here = line.find("="), line.find("<<")
        if eq >= 0 and (here < 0 or eq < here):
            name, value = line.split("=", 1); out[name] = value
        else:
            name, delim = line.split("<<", 1); value = []
            while lines[i] != delim:
                value.append(lines[i]); i += 1
            i += 1; out[name] = "\n".join(value)
    return out

fmt, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read().decode("utf-8")
values = dict(dotenv_values(path)) if fmt == "dotenv" else github(data)
sys.stdout.write(json.dumps(values))
EOF
read_back() { PYTHONPATH="$pydeps" python3 "$work/readers.py" "$@"; }
expect_json() { python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1]) == json.loads(sys.argv[2]) else 1)' "$1" "$2"; }
hostile=(
  'cuda $HOME `id` "dq" '"'"'sq'"'"' #hash \back'
  $'cuda with\na line feed'
  $'cuda with\rcarriage return'
  '  edges  '
)
i=0
for name in "${hostile[@]}"; do
  root="$work/t$i/$name"; i=$((i + 1))
  make_toolkit "$root" 13.0
  expected=$(python3 -c 'import json,sys; r=sys.argv[1]; print(json.dumps({"FLASHINFER_CUDA_ARCH_LIST":"9.0a","CUDA_HOME":r,"FLASHINFER_NVCC":r+"/bin/nvcc"}))' "$root")
  for format in dotenv github; do
    PATH=/usr/bin:/bin "$cli" env --for flashinfer --nvcc "$root/bin/nvcc" --archs 9.0a --format "$format" >"$work/out" 2>"$work/err" ||
      { fail "$format: $(printf %q "$name") refused: $(cat "$work/err")"; continue; }
    got=$(read_back "$format" "$work/out")
    expect_json "$got" "$expected" || fail "$format: $(printf %q "$name") read back as $got"
  done
  for sh in "${shells[@]}"; do
    PATH=/usr/bin:/bin "$cli" env --for flashinfer --nvcc "$root/bin/nvcc" --archs 9.0a >"$work/out" 2>/dev/null
    # shellcheck disable=SC2016
    got=$(OUT="$work/out" "$sh" -c 'eval "$(cat "$OUT")" && printf %s "$CUDA_HOME"')
    [[ $got == "$root" ]] || fail "$sh: eval of $(printf %q "$name") gave $(printf %q "$got")"
  done
done
# python-dotenv expands ${NAME} in every value: such a value is refused in dotenv, naming it; shell keeps it.
root="$work/cuda \${HOME}"
make_toolkit "$root" 13.0
PATH=/usr/bin:/bin "$cli" env --for flashinfer --nvcc "$root/bin/nvcc" --archs 9.0a --format dotenv >"$work/out" 2>"$work/err"
[[ $? == 1 && ! -s $work/out ]] && grep -q 'the value of CUDA_HOME in the dotenv format cannot be written: python-dotenv expands' "$work/err" ||
  fail "dotenv: a value with \${HOME} is refused, naming the variable: $(cat "$work/err")"
# Bytes that are not UTF-8: the dotenv and GitHub readers decode UTF-8, so refused there; the shell keeps them.
root="$work/cuda-"$'\xff'
make_toolkit "$root" 13.0
PATH=/usr/bin:/bin "$cli" env --for flashinfer --nvcc "$root/bin/nvcc" --archs 9.0a --format github >"$work/out" 2>"$work/err"
[[ $? == 1 && ! -s $work/out ]] && grep -q 'not UTF-8' "$work/err" || fail "github: a value that is not UTF-8 is refused"
PATH=/usr/bin:/bin "$cli" env --for flashinfer --nvcc "$root/bin/nvcc" --archs 9.0a >"$work/out" 2>/dev/null
[[ $(bash -c 'eval "$(cat "$1")" && printf %s "$CUDA_HOME"' _ "$work/out") == "$root" ]] || fail "shell: a value that is not UTF-8 is kept"

# ---- 3. each fix a refusal prints, followed, is accepted with no warning --------------------------
follow() {  # <expected exit of the refusal> <env args...>: the refusal's "--archs ..." fix, run again
  PATH=/usr/bin:/bin "$cli" env "${@:2}" >/dev/null 2>"$work/err"
  local rc=$? fix
  fix=$(sed -n "s/.*fix: ask for targets it spells (--archs \(.*\))$/\1/p" "$work/err" | head -n1)
  [[ $rc == "$1" && -n $fix ]] || { fail "env ${*:2}: no fix to follow (exit $rc): $(cat "$work/err")"; return; }
  fix=$(bash -c 'eval "printf %s $1"' _ "$fix")  # the fix is one shell word
  local args=("${@:2}")
  for j in "${!args[@]}"; do [[ ${args[j]} == --archs ]] && args[j + 1]=$fix; done
  PATH=/usr/bin:/bin "$cli" env "${args[@]}" --strict >"$work/out" 2>"$work/err" ||
    fail "env ${args[*]} (the fix, followed) refused: $(cat "$work/err")"
  ! grep -q "warning" "$work/err" || fail "env ${args[*]} (the fix, followed) warns: $(cat "$work/err")"
}
follow 1 --for flashinfer --nvcc "$cuda130/bin/nvcc" --archs "9.0;12.0"   # bare 9.0 and 12.0: asked as 9.0a and 12.0a
follow 1 --for torch --nvcc "$cuda130/bin/nvcc" --archs all               # sm_88 has no TORCH_CUDA_ARCH_LIST entry
follow 1 --for tvm-ffi --nvcc "$cuda130/bin/nvcc" --archs "8.6+PTX;9.0"   # PTX has no TVM-FFI spelling

# The seed scenarios' warnings (an nvcc 12.8 first on PATH, the real 13.0 in CUDA_HOME; and CUDACXX
# pointing at the 12.8): the fix each warning prints is shell words; run, it leaves no warning.
real_nvcc=/usr/local/cuda/bin/nvcc
if [[ -x $real_nvcc ]]; then
  seed_fix() {  # <env assignments...> -- <resolve args...>
    local assignments=() fix
    while [[ $1 != -- ]]; do assignments+=("$1"); shift; done
    shift
    env PATH="$cuda128/bin:/usr/bin:/bin" CUDA_HOME=/usr/local/cuda "${assignments[@]}" "$cli" resolve "$@" >/dev/null 2>"$work/err"
    fix=$(sed -n 's/.*(tool_compiler_disagrees): those tools would build with another compiler than the one these targets were validated by: //p' "$work/err")
    [[ -n $fix ]] || { fail "seed ${assignments[*]} resolve $*: no warning with a fix: $(cat "$work/err")"; return; }
    # shellcheck disable=SC2016
    env PATH="$cuda128/bin:/usr/bin:/bin" CUDA_HOME=/usr/local/cuda "${assignments[@]}" FIX="$fix" CLI="$cli" \
      bash -c 'eval "$FIX" && "$CLI" resolve "$@" --strict' _ "$@" >/dev/null 2>"$work/err" ||
      fail "seed ${assignments[*]} resolve $*: the fix '$fix', followed, still fails --strict: $(cat "$work/err")"
  }
  seed_fix -- --archs 12.0f
  seed_fix CUDACXX="$cuda128/bin/nvcc" -- --archs 12.0f --nvcc "$real_nvcc"
else
  echo "note: no real nvcc at $real_nvcc: the seed scenarios' fixes are not followed" >&2
fi

# ---- 4. output errors are errors --------------------------------------------------------------------
commands=(
  "resolve --toolkit 13.0 --archs 9.0"
  "list --toolkit 13.0"
  "check --toolkit 13.0 sm_90"
  "doctor --isolated --device-cc 9.0"
  "env --for torch --nvcc $cuda130/bin/nvcc --archs 9.0a"
  "inspect $src/tests/data/inspect/sm_120f_121a.o --device-cc 12.0"
  "--help"
  "--version"
)
cat >"$work/epipe.py" <<'EOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # nobody reads: a write gets EPIPE
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
os.close(w)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)
EOF
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  PATH=/usr/bin:/bin "$cli" $c >/dev/null 2>/dev/null || { fail "'cuarch $c' fails with a working stdout"; continue; }
  for how in full closed pipe; do
    case $how in
      # shellcheck disable=SC2086
      full) PATH=/usr/bin:/bin "$cli" $c >/dev/full 2>"$work/err" ;;
      # shellcheck disable=SC2086
      closed) PATH=/usr/bin:/bin "$cli" $c >&- 2>"$work/err" ;;
      # shellcheck disable=SC2086
      pipe) PATH=/usr/bin:/bin python3 "$work/epipe.py" "$cli" $c 2>"$work/err" ;;
    esac
    rc=$?
    [[ $rc != 0 && $(grep -c 'could not write the output to stdout' "$work/err") == 1 ]] ||
      fail "'cuarch $c' with stdout $how: exit $rc, stderr: $(cat "$work/err")"
  done
done

if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cuarch env hand-offs and output errors: all cases passed"
