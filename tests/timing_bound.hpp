// Timing bounds that hold on a loaded machine (issue 33; docs/testing.md, "Timing assertions"). A
// test that checks "this returns promptly" does not compare with a fixed number of milliseconds: it
// measures, in the same run, how long running a no-op program takes here and now (fork, exec, wait:
// the unit a loaded machine stretches, as it stretches the code under test), and allows the expected
// time plus at least 10 times that median, never less than the slack the test names.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <vector>

extern "C" char** environ;

namespace cuarch_test {

using seconds_d = std::chrono::duration<double>;

/// The median of 5 runs of /bin/true, measured now.
inline seconds_d noop_spawn_median() {
  std::vector<double> runs;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) == 0) {
      int status = 0;
      // ECHILD where the test ignores SIGCHLD (the system reaped it): the wait is then over.
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    }
    runs.push_back(seconds_d(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(runs.begin(), runs.end());
  return seconds_d(runs[runs.size() / 2]);
}

/// How long "promptly after `expected`" may take: expected + max(10 x a no-op spawn measured now,
/// slack). `slack` is the test's allowance on an idle machine; the measured term grows with the load.
inline seconds_d prompt_bound(seconds_d expected, seconds_d slack) {
  return expected + std::max(seconds_d(10 * noop_spawn_median().count()), slack);
}

/// Runs `call` on another thread and returns its answer; fails the test when it takes a second or
/// more beyond the machine's stretch (prompt_bound): what is tested answers in microseconds, a
/// blocked open() of a FIFO never. Past the bound, each of `fifos` is opened for writing (and closed)
/// again and again, so that a reader blocked on it gets EOF and the test process can finish.
template <class Call>
auto bounded(Call call, const std::vector<std::string>& fifos = {}) {
  const auto bound = prompt_bound(std::chrono::seconds(0), std::chrono::seconds(1));
  const auto start = std::chrono::steady_clock::now();
  auto result = std::async(std::launch::async, call);
  if (result.wait_for(bound) != std::future_status::ready) {
    FAIL_CHECK("blocked for more than " << bound.count() << " s");
    // The code under test may block on the next FIFO of the list after this one: repeatedly.
    for (int i = 0; i < 100 && result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready; ++i)
      for (const auto& f : fifos) {
        const int fd = ::open(f.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
      }
  }
  auto r = result.get();
  CHECK(std::chrono::steady_clock::now() - start < bound);
  return r;
}

}  // namespace cuarch_test
