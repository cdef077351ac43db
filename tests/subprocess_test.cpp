// run_process (sources/posix/subprocess.hpp) keeps its hands off the caller's process: the child
// gets only stdin/stdout/stderr, a grandchild that keeps stdout open does not hold the probe until
// its deadline, and a host that ignores SIGCHLD (so the system reaps the child and its exit
// status is lost) still gets the output, with the loss said, never a silent "no tool".
#include <cuarch/sources/posix/subprocess.hpp>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "timing_bound.hpp"

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

/// A probe that records its pid in `file` and sleeps (`exec`: the pid is the sleeping program's).
std::vector<std::string> sleeper(const std::string& file) {
  return {"/bin/sh", "-c", "echo $$ > " + file + ".tmp && mv " + file + ".tmp " + file + " && exec sleep 30"};
}

/// The pid written to `file`, waited for up to 5 s; 0 if none came.
pid_t wait_for_pid(const std::string& file) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(file);
    long pid = 0;
    if (in >> pid && pid > 0) return static_cast<pid_t>(pid);
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

/// Whether `pid` is gone (no process, or a zombie waiting for whoever adopted it), within `bound`.
bool gone_within(pid_t pid, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    if (!(stat >> pid_text >> name >> state) || state == "Z" || state == "X") return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
}

std::string scratch_file(const char* tag) { return "/tmp/cuarch-subprocess-" + std::to_string(::getpid()) + "-" + tag; }

}  // namespace

TEST_CASE("a probe dies with the process that started it, even one killed with SIGKILL", "[subprocess][fault][signal]") {
  // The host: a process running a probe that would sleep 30 s. Killed, it can clean nothing up; the
  // probe (in its own process group, so a terminal's Ctrl-C does not reach it) must go with it.
  const std::string file = scratch_file("host");
  std::remove(file.c_str());
  const pid_t host = ::fork();
  REQUIRE(host >= 0);
  if (host == 0) {
    cuarch::process_limits limits;
    limits.timeout = 30s;
    (void)cuarch::run_process(sleeper(file), limits);
    ::_exit(0);
  }
  const pid_t probe = wait_for_pid(file);
  std::remove(file.c_str());
  REQUIRE(probe > 0);
  ::kill(host, SIGKILL);
  int status = 0;
  ::waitpid(host, &status, 0);
  const bool gone = gone_within(probe, 2000ms);
  if (!gone) ::kill(probe, SIGKILL);
  CHECK(gone);
}

TEST_CASE("a probe is cancelled through the caller's flag: killed within about 100 ms", "[subprocess][signal]") {
  const std::string file = scratch_file("cancel");
  std::remove(file.c_str());
  std::atomic<bool> cancel{false};
  cuarch::process_limits limits;
  limits.timeout = 30s;
  limits.cancel = &cancel;
  pid_t probe = 0;
  std::chrono::steady_clock::time_point cancelled_at;
  std::thread canceller([&] {
    probe = wait_for_pid(file);
    cancelled_at = std::chrono::steady_clock::now();
    cancel = true;
  });
  const auto r = cuarch::run_process(sleeper(file), limits);
  const auto returned_at = std::chrono::steady_clock::now();
  canceller.join();
  std::remove(file.c_str());
  REQUIRE(probe > 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == errc::process_failed);
  CHECK(r.error().raw.view().find("cancelled") != std::string_view::npos);
  // The flag is read every 20 ms, then the group is killed and reaped: prompt against the 30 s
  // timeout, however loaded the machine (timing_bound.hpp).
  const auto bound = cuarch_test::prompt_bound(20ms, 480ms);
  INFO("returned " << cuarch_test::seconds_d(returned_at - cancelled_at).count() << " s after the flag; bound "
                   << bound.count() << " s");
  CHECK(returned_at - cancelled_at < bound);
  CHECK(gone_within(probe, 0ms));  // killed and reaped before run_process returned
  SECTION("a flag already set: nothing is started") {
    const auto again = cuarch::run_process({"/bin/sh", "-c", "echo no"}, limits);
    REQUIRE_FALSE(again);
    CHECK(again.error().raw.view().find("cancelled") != std::string_view::npos);
  }
}

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
  const auto bound = cuarch_test::prompt_bound(0s, 1s);  // the grandchild sleeps 30 s
  INFO("took " << cuarch_test::seconds_d(took).count() << " s; bound " << bound.count() << " s");
  CHECK(took < bound);
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
    const auto took = std::chrono::steady_clock::now() - start;
    const auto bound = cuarch_test::prompt_bound(300ms, 2700ms);  // the child sleeps 30 s
    INFO("took " << cuarch_test::seconds_d(took).count() << " s; bound " << bound.count() << " s");
    CHECK(took >= 300ms);
    CHECK(took < bound);
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
