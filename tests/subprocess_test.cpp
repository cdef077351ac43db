// run_process (sources/posix/subprocess.hpp) keeps its hands off the caller's process: the child
// gets only stdin/stdout/stderr, a grandchild that keeps stdout open does not hold the probe until
// its deadline, and a host that ignores SIGCHLD (so the system reaps the child and its exit
// status is lost) still gets the output, with the loss said, never a silent "no tool".
#include <cuarch/sources/posix/subprocess.hpp>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>
#include <string>

using cuarch::errc;
using namespace std::chrono_literals;

namespace {

/// The descriptor numbers a child holds, from `ls -l /proc/self/fd` run in it, leaving out the one
/// ls itself opened to read the directory.
std::set<int> child_fds() {
  const auto r = cuarch::run_process({"/bin/ls", "-l", "/proc/self/fd"});
  REQUIRE(r);
  REQUIRE(r->exit_status == 0);
  std::set<int> fds;
  std::istringstream lines(r->out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t arrow = line.find(" -> ");
    if (arrow == std::string::npos) continue;                 // "total 0"
    if (line.compare(arrow + 4, 6, "/proc/") == 0) continue;  // ls's own directory stream
    const std::size_t name = line.rfind(' ', arrow - 1);
    fds.insert(std::stoi(line.substr(name + 1, arrow - name - 1)));
  }
  return fds;
}

/// Sets SIGCHLD's disposition for one test and restores it.
struct scoped_sigchld {
  struct sigaction saved {};
  explicit scoped_sigchld(void (*handler)(int)) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGCHLD, &sa, &saved);
  }
  scoped_sigchld(const scoped_sigchld&) = delete;
  scoped_sigchld& operator=(const scoped_sigchld&) = delete;
  ~scoped_sigchld() { ::sigaction(SIGCHLD, &saved, nullptr); }
};

}  // namespace

TEST_CASE("a child gets only stdin, stdout and stderr, whatever the caller left open", "[subprocess][fault]") {
  int leaked[2] = {-1, -1};
  REQUIRE(::pipe(leaked) == 0);  // no O_CLOEXEC: what a careless host library leaves behind
  const int flags = ::fcntl(leaked[1], F_GETFD);
  REQUIRE((flags & FD_CLOEXEC) == 0);
  const auto fds = child_fds();
  ::close(leaked[0]);
  ::close(leaked[1]);
  CHECK(fds == std::set<int>{0, 1, 2});
}

TEST_CASE("a probe returns when its child exits, even if a grandchild keeps stdout open", "[subprocess][fault]") {
  cuarch::process_limits limits;
  limits.timeout = 5s;
  const auto start = std::chrono::steady_clock::now();
  const auto r = cuarch::run_process({"/bin/sh", "-c", "sleep 30 & echo release 12.8; exit 0"}, limits);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(r);
  CHECK(r->out == "release 12.8\n");
  CHECK(r->exit_status == 0);
  CHECK_FALSE(r->exit_status_lost);
  CHECK(took < 1s);
}

TEST_CASE("SIGCHLD ignored by the host: the output is kept and the lost exit status is said", "[subprocess][fault]") {
  const scoped_sigchld ignore(SIG_IGN);
  SECTION("a complete run") {
    const auto r = cuarch::run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
    REQUIRE(r);
    CHECK(r->exit_status_lost);
    CHECK(r->out == "out\n");
    CHECK(r->err == "err\n");
    CHECK(r->output_complete);
  }
  SECTION("a child that outlives the deadline is still killed, in bounded time") {
    cuarch::process_limits limits;
    limits.timeout = 300ms;
    const auto start = std::chrono::steady_clock::now();
    const auto r = cuarch::run_process({"/bin/sh", "-c", "sleep 30"}, limits);
    CHECK(std::chrono::steady_clock::now() - start < 3s);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::process_timed_out);
  }
}

TEST_CASE("a normal run: status, both streams, stdin at EOF, output complete", "[subprocess]") {
  const auto r = cuarch::run_process({"/bin/sh", "-c", "cat; echo out; echo err >&2; exit 4"});
  REQUIRE(r);
  CHECK(r->exit_status == 4);
  CHECK_FALSE(r->exit_status_lost);
  CHECK(r->output_complete);
  CHECK(r->out == "out\n");
  CHECK(r->err == "err\n");
}

TEST_CASE("a child writing more than a pipe holds is read to the end", "[subprocess]") {
  cuarch::process_limits limits;
  limits.max_output = 1 << 20;
  const auto r = cuarch::run_process({"/bin/sh", "-c", "head -c 300000 /dev/zero; exit 0"}, limits);
  REQUIRE(r);
  CHECK(r->out.size() == 300000);
  CHECK(r->output_complete);
}

TEST_CASE("a run is never called timed out before its timeout has passed", "[subprocess][deadline]") {
  // A caller that gives a probe exactly the time left of a larger deadline (detection does) must be
  // able to trust that a timed-out probe means the time is gone: ending up to a millisecond early
  // let detection start the next probe with a sliver of time left (detect_lazy_test, seen flaky).
  cuarch::process_limits limits;
  limits.timeout = 7ms;
  int early = 0;
  for (int i = 0; i < 20; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = cuarch::run_process({"/bin/sleep", "5"}, limits);
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::process_timed_out);
    if (took < limits.timeout) ++early;
  }
  CHECK(early == 0);
}
