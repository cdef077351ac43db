#!/usr/bin/env bash
# A signal to the command line while it runs a probe leaves no orphan (issue 18, item A). The probe
# (nvcc --version) runs in its own process group, so a terminal's Ctrl-C does not reach it; cuarch
# must kill it. A fake nvcc records its pid and sleeps 30 s; cuarch resolve runs it with --timeout 30.
#   a. SIGINT, SIGTERM, SIGHUP to cuarch resolve (SIGINT to cuarch env too): cuarch ends by that signal (the shell's $? is 128+signo)
#      within a second, and the probe is gone (killed and reaped);
#   b. SIGKILL to cuarch (nothing can be caught): the probe still dies with it (PR_SET_PDEATHSIG).
# Environment: CUARCH_CLI. Exit 77 when the CLI is not built.
set -uo pipefail
set -m  # background jobs in their own process group, SIGINT not ignored (as in an interactive shell)
. "$(dirname "${BASH_SOURCE[0]}")/timing_bound.sh"  # prompt_bound_ms: bounds that hold under load
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/  stderr: /' "$work/err" >&2; failures=$((failures + 1)); }

cat >"$work/nvcc" <<'EOF'
#!/bin/sh
echo $$ > "$CUARCH_TEST_PIDFILE.tmp" && mv "$CUARCH_TEST_PIDFILE.tmp" "$CUARCH_TEST_PIDFILE"
exec sleep 30
EOF
chmod +x "$work/nvcc"

# gone <pid> <tenths>: the process is gone (or a zombie) within that many tenths of a second.
gone() {
  local i state
  for ((i = 0; i <= $2; i++)); do
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
    [[ -z $state || $state == Z || $state == X ]] && return 0
    sleep 0.1
  done
  return 1
}
# start TAG [COMMAND]: cuarch COMMAND (resolve; env --for cmake) with the sleeping nvcc, in the
# background; sets cuarch_pid and probe_pid.
start() {
  export CUARCH_TEST_PIDFILE="$work/pid.$1"
  rm -f "$CUARCH_TEST_PIDFILE"
  local cmd=(resolve)
  [[ ${2:-} == env ]] && cmd=(env --for cmake)
  "$cli" "${cmd[@]}" --nvcc "$work/nvcc" --archs 9.0 --timeout 30 >"$work/out" 2>"$work/err" &
  cuarch_pid=$!
  probe_pid=
  for ((i = 0; i < 100; i++)); do
    [[ -s $CUARCH_TEST_PIDFILE ]] && probe_pid=$(cat "$CUARCH_TEST_PIDFILE") && break
    sleep 0.05
  done
}

for case in INT TERM HUP INT:env; do
  sig=${case%%:*} what=resolve
  [[ $case == *:* ]] && what=${case#*:}
  start "$sig" "$what"
  if [[ -z $probe_pid ]]; then
    fail "a. $sig: the fake nvcc never started"
    kill -KILL "$cuarch_pid" 2>/dev/null
    continue
  fi
  t0=$(date +%s%N)
  kill -"$sig" "$cuarch_pid"
  wait "$cuarch_pid"
  rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  want=$((128 + $(kill -l "$sig")))
  bound=$(prompt_bound_ms 0 1000)  # the probe sleeps 30 s
  if [[ $rc == "$want" ]] && ((ms < bound)) && gone "$probe_pid" 0 && grep -q "interrupted by signal" "$work/err"; then
    echo "ok: a. SIG$sig to cuarch $what: cuarch ended in $ms ms with \$?=$rc, the probe is gone"
  else
    fail "a. SIG$sig to cuarch $what: \$?=$rc (want $want) after $ms ms (bound $bound ms); probe $probe_pid $(gone "$probe_pid" 0 && echo gone || echo 'still running')"
    kill -KILL "$probe_pid" 2>/dev/null
  fi
done

start KILL
if [[ -n $probe_pid ]]; then
  kill -KILL "$cuarch_pid"
  wait "$cuarch_pid" 2>/dev/null
  if gone "$probe_pid" 20; then
    echo "ok: b. SIGKILL: the probe died with cuarch"
  else
    fail "b. SIGKILL: probe $probe_pid outlived cuarch by 2 s"
    kill -KILL "$probe_pid" 2>/dev/null
  fi
else
  fail "b. the fake nvcc never started"
  kill -KILL "$cuarch_pid" 2>/dev/null
fi

[[ $failures == 0 ]] || { echo "$failures failure(s)" >&2; exit 1; }
echo "all passed"
