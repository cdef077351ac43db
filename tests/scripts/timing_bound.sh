# Timing bounds that hold on a loaded machine (issue 33; docs/testing.md, "Timing assertions"), for
# the script tests to source; tests/timing_bound.hpp is the C++ twin. A test that checks "this returns
# promptly" measures, in the same run, how long running a no-op program takes here and now, and
# allows the expected time plus at least 10 times that median, never less than its own slack.

# noop_spawn_median_ms: the median of 5 runs of /bin/true, in ms (rounded up).
noop_spawn_median_ms() {
  local i t0 t1 runs=()
  for i in 1 2 3 4 5; do
    t0=${EPOCHREALTIME/./}  # microseconds, without a `date` process of its own (bash >= 5)
    /bin/true
    t1=${EPOCHREALTIME/./}
    runs+=($(((t1 - t0 + 999) / 1000)))
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 3p
}

# prompt_bound_ms EXPECTED_MS SLACK_MS: EXPECTED_MS + max(10 x a no-op spawn measured now, SLACK_MS).
prompt_bound_ms() {
  local ten=$((10 * $(noop_spawn_median_ms)))
  echo $(($1 + (ten > $2 ? ten : $2)))
}
