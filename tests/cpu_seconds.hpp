// CPU seconds of a call, for tests that compare two workloads (docs/testing.md, "Timing assertions").
#pragma once

#include <time.h>

namespace cuarch_test {

/// The CPU time this process spends in `f()`, in seconds: for a ratio of two workloads ("ten times the
/// input, about ten times the time"). Wall time would count the waits for a CPU on a loaded machine,
/// and a long run waits through many scheduler slices where a short one may fit in one: under three
/// suites at once, 4,000 and 40,000 fleet hosts took 16 ms and 842 ms of wall time (53x, for linear
/// work). CPU time counts the work, every thread of the process included.
template <class F>
double cpu_seconds_of(F&& f) {
  const auto now = [] {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  };
  const double start = now();
  f();
  return now() - start;
}

}  // namespace cuarch_test
