#!/usr/bin/env bash
# `cuarch completion bash|zsh|fish` and `cuarch man` are generated from the command line's own table
# (issue 35): every command and every option of each command is in each of them, because the test
# takes the names from `cuarch <command> --help`, not from a list of its own. bash: the script, sourced,
# completes commands, options and enumerated values; zsh and fish: the script parses (`zsh -n`,
# `fish -n`, where installed); man: groff renders it without a warning (where installed).
# Environment: CUARCH_CLI. Exit 77 (skipped) when it is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The commands and each command's long options, as the help lists them.
mapfile -t commands < <("$cli" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[[ ${#commands[@]} -ge 6 ]] || fail "cuarch --help lists ${#commands[@]} commands: ${commands[*]}"
options_of() {  # the options the help lists, each at the start of its line ("  -h,--help", "  --archs LIST")
  "$cli" "$1" --help | grep -oE -- '^ +(-[a-zA-Z],)?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

for shell in bash zsh fish; do
  if ! "$cli" completion "$shell" >"$work/$shell" 2>"$work/$shell.err" || [[ ! -s "$work/$shell" ]]; then
    fail "cuarch completion $shell: exit status or empty output"; sed 's/^/  /' "$work/$shell.err" >&2
  fi
done
"$cli" completion tcsh >/dev/null 2>"$work/err"; rc=$?
[[ $rc == 2 ]] && grep -q "bash, zsh or fish" "$work/err" || fail "cuarch completion tcsh: exit $rc, not a usage error naming the shells"
if ! "$cli" man >"$work/cuarch.1" 2>"$work/man.err" || [[ ! -s "$work/cuarch.1" ]]; then fail "cuarch man: exit status or empty output"; fi

# Every command and option is named in every generated file.
for f in bash zsh fish cuarch.1; do
  for c in "${commands[@]}"; do grep -qw -- "$c" "$work/$f" || fail "$f: command '$c' missing"; done
  for c in "${commands[@]}"; do
    while read -r o; do
      [[ $f == cuarch.1 ]] && o="${o//-/\\-}"                      # roff spells a dash \-
      [[ $f == fish ]] && o="-l ${o#--}"                             # fish: complete ... -l NAME
      grep -qF -- "$o" "$work/$f" || fail "$f: option '$o' of '$c' missing"
    done < <(options_of "$c")
  done
done

# bash: the function the script registers completes commands, options and values.
complete_bash() {  # WORDS...: what the completion offers for the command line "cuarch WORDS" (the last word being typed)
  bash -c 'source "$1"; shift
    COMP_WORDS=(cuarch "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
    fn=$(complete -p cuarch | sed -E "s/.*-F ([^ ]+).*/\1/")
    "$fn" cuarch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' bash "$work/bash" "$@"
}
got=$(complete_bash "")
for c in "${commands[@]}"; do grep -qx -- "$c" <<<"$got" || fail "bash: 'cuarch <TAB>' lacks $c (got: $(echo $got))"; done
[[ $(complete_bash re) == resolve ]] || fail "bash: 'cuarch re<TAB>' gives '$(complete_bash re)', not resolve"
got=$(complete_bash resolve --ar)
[[ $got == --archs ]] || fail "bash: 'cuarch resolve --ar<TAB>' gives '$got'"
got=$(complete_bash resolve --format "")
for v in nvcc nvrtc cmake torch json; do grep -qx "$v" <<<"$got" || fail "bash: 'resolve --format <TAB>' lacks $v"; done
got=$(complete_bash env --for t)
[[ $(echo $got) == "torch tvm-ffi triton" ]] || fail "bash: 'env --for t<TAB>' gives '$(echo $got)'"
got=$(complete_bash doctor --format "")
[[ $(echo $got) == "text json" ]] || fail "bash: 'doctor --format <TAB>' gives '$(echo $got)'"
got=$(complete_bash completion "")
[[ $(echo $got) == "bash zsh fish" ]] || fail "bash: 'completion <TAB>' gives '$(echo $got)'"
got=$(complete_bash doctor --)
grep -qx -- --no-device-query <<<"$got" && ! grep -qx -- --archs <<<"$got" || fail "bash: 'doctor --<TAB>' is not the doctor's options"

# zsh and fish: the scripts parse.
if command -v zsh >/dev/null; then zsh -n "$work/zsh" 2>"$work/err" || { fail "zsh -n rejects the zsh completion"; cat "$work/err" >&2; }
else echo "note: no zsh here; the zsh script was checked for names only"; fi
if command -v fish >/dev/null; then
  fish -n "$work/fish" 2>"$work/err" || { fail "fish -n rejects the fish completion"; cat "$work/err" >&2; }
  complete_fish() { fish -c 'source $argv[1]; complete -C $argv[2]' "$work/fish" "cuarch $1" | cut -f1; }
  [[ $(complete_fish re) == resolve ]] || fail "fish: 'cuarch re<TAB>' gives '$(complete_fish re)'"
  got=$(complete_fish "env --for t")
  [[ $(echo $got) == "torch triton tvm-ffi" ]] || fail "fish: 'env --for t<TAB>' gives '$(echo $got)'"
  got=$(complete_fish "resolve --ar")
  [[ $got == --archs ]] || fail "fish: 'resolve --ar<TAB>' gives '$got'"
else
  echo "note: no fish here; the fish script was checked for names only"
fi

# man: renders without a warning, with each command's section.
if command -v groff >/dev/null; then
  LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$work/cuarch.1" 2>"$work/err"
  [[ ! -s "$work/err" ]] || { fail "groff warns on cuarch man"; sed 's/^/  /' "$work/err" >&2; }
  LC_ALL=C.UTF-8 groff -man -Tutf8 "$work/cuarch.1" 2>/dev/null | sed 's/.\x08//g' >"$work/man.txt"
  for s in NAME SYNOPSIS COMMANDS "EXIT STATUS"; do grep -q "^$s" "$work/man.txt" || fail "man: no $s section"; done
  for c in "${commands[@]}"; do grep -q "cuarch $c" "$work/man.txt" || fail "man: no 'cuarch $c' in the rendered page"; done
else
  echo "note: no groff here; the man page was checked for names only"
fi

if [[ "$failures" != 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "cli_completion_test: all checks passed"
