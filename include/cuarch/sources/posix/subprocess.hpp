// subprocess: runs a program (nvcc --version, ptxas --version) without a shell, with a deadline.
// posix_spawn (no shell, no PATH search: the caller passes an absolute path), stdin from
// /dev/null, stdout and stderr through pipes read with poll until the deadline, output bounded,
// the whole process group killed (SIGKILL) on timeout, and the child always reaped. POSIX only.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "../../core/config.hpp"
#include "posix.hpp"
#include "../../core/error.hpp"
#include "../../core/expected.hpp"
#include "../../core/source_kind.hpp"

extern "C" char** environ;  // POSIX: the process environment, inherited by the child

CUARCH_BEGIN_NAMESPACE

/// Limits for one run.
struct process_limits {
  std::chrono::milliseconds timeout{10000};  // from spawn to exit, output included
  std::size_t max_output = 64 * 1024;        // bytes kept per stream; the rest is read and dropped
};

/// What a finished program said. A non-zero exit status is not an error here: callers decide.
struct process_result {
  int exit_status = 0;  // exit code, or 128 + signal number when killed by a signal
  bool signaled = false;
  std::string out, err;
  bool truncated = false;  // some output was dropped (over max_output)
  std::chrono::milliseconds elapsed{0};
};

namespace detail {

/// Closes a descriptor once, however the function exits.
struct fd_guard {
  int fd = -1;
  fd_guard() = default;
  explicit fd_guard(int f) : fd(f) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

inline std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

inline error process_error(errc code, source_kind src, const std::vector<std::string>& argv, int status, std::string_view raw) {
  error e = make_error(code, src);
  e.subject = command_line(argv);
  e.location = argv.empty() ? std::string_view() : std::string_view(argv.front());
  e.native_status = status;
  e.raw = raw;
  return e;
}

enum class reap_state { exited, running, lost };

/// Waits for the child; retries on EINTR. `lost` (ECHILD): the application set SIGCHLD to
/// SIG_IGN, so the system reaped the child and its status is gone.
inline reap_state reap(pid_t pid, int& status, bool block) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, block ? 0 : WNOHANG);
    if (r == pid) return reap_state::exited;
    if (r == 0) return reap_state::running;
    if (errno != EINTR) return reap_state::lost;
  }
}

inline void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);  // its own process group: grandchildren (a wrapper script's children) go too
  ::kill(pid, SIGKILL);
}

}  // namespace detail

/// Runs argv[0] (an absolute path) with arguments argv[1..]. Errors: process_failed (cannot spawn:
/// native_status = errno; killed by a signal: 128 + signal), process_timed_out (killed at the
/// deadline). Each names the command line and the program's path.
inline expected<process_result, error> run_process(const std::vector<std::string>& argv, const process_limits& limits = {},
                                                   source_kind src = source_kind::none) {
  using clock = std::chrono::steady_clock;
  if (argv.empty() || argv.front().empty() || argv.front().front() != '/')
    return unexpected(detail::process_error(errc::process_failed, src, argv, 0, "the program path must be absolute"));

  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  // O_CLOEXEC: a program spawned concurrently by another thread must not inherit these ends.
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return unexpected(detail::process_error(errc::process_failed, src, argv, errno, detail::errno_text(errno)));
  detail::fd_guard out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return unexpected(detail::process_error(errc::process_failed, src, argv, errno, detail::errno_text(errno)));
  detail::fd_guard err_r(err_pipe[0]), err_w(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);  // never wait for our stdin
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  sigset_t no_signals, default_signals;
  sigemptyset(&no_signals);
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &default_signals);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const auto start = clock::now();
  const auto deadline = start + limits.timeout;
  pid_t pid = -1;
  const int spawn_rc = ::posix_spawn(&pid, argv.front().c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out_w.reset();  // the child holds its own copies; EOF arrives when it (and its children) close them
  err_w.reset();
  if (spawn_rc != 0) return unexpected(detail::process_error(errc::process_failed, src, argv, spawn_rc, detail::errno_text(spawn_rc)));

  process_result result;
  ::fcntl(out_r.fd, F_SETFL, ::fcntl(out_r.fd, F_GETFL) | O_NONBLOCK);
  ::fcntl(err_r.fd, F_SETFL, ::fcntl(err_r.fd, F_GETFL) | O_NONBLOCK);
  bool timed_out = false;
  auto remaining_ms = [&]() -> int {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left > 1000000 ? 1000000 : left);
  };

  // 1. Read both streams until both reach EOF or the deadline passes.
  char buf[4096];
  while (out_r.fd >= 0 || err_r.fd >= 0) {
    pollfd fds[2];
    nfds_t n = 0;
    if (out_r.fd >= 0) fds[n++] = pollfd{out_r.fd, POLLIN, 0};
    if (err_r.fd >= 0) fds[n++] = pollfd{err_r.fd, POLLIN, 0};
    const int wait = remaining_ms();
    if (wait == 0) {
      timed_out = true;
      break;
    }
    const int pr = ::poll(fds, n, wait);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) break;
    if (pr == 0) continue;  // the deadline check above ends the loop
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      detail::fd_guard& g = fds[i].fd == out_r.fd ? out_r : err_r;
      std::string& sink = fds[i].fd == out_r.fd ? result.out : result.err;
      for (;;) {
        const ssize_t got = ::read(g.fd, buf, sizeof buf);
        if (got > 0) {
          const std::size_t keep = sink.size() < limits.max_output ? std::min(limits.max_output - sink.size(), static_cast<std::size_t>(got)) : 0;
          sink.append(buf, keep);
          if (keep < static_cast<std::size_t>(got)) result.truncated = true;
          continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        g.reset();  // EOF or a read error: this stream is done
        break;
      }
    }
  }

  // 2. Wait for the exit, still bounded by the deadline (a child may close its output and go on).
  int status = 0;
  detail::reap_state state = detail::reap_state::running;
  if (!timed_out) {
    for (;;) {
      state = detail::reap(pid, status, false);
      if (state != detail::reap_state::running) break;
      if (remaining_ms() == 0) {
        timed_out = true;
        break;
      }
      const timespec pause{0, 2 * 1000 * 1000};  // 2 ms
      ::nanosleep(&pause, nullptr);
    }
  }
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
  if (timed_out) {
    detail::kill_group(pid);
    detail::reap(pid, status, true);
    return unexpected(detail::process_error(errc::process_timed_out, src, argv, static_cast<int>(limits.timeout.count()),
                                            "no exit within " + std::to_string(limits.timeout.count()) + " ms; killed"));
  }
  if (state != detail::reap_state::exited)
    return unexpected(detail::process_error(errc::process_failed, src, argv, -1,
                                            "exit status unavailable (SIGCHLD is ignored by this process, so the child was reaped by the system)"));
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_status = 128 + WTERMSIG(status);
    return unexpected(detail::process_error(errc::process_failed, src, argv, result.exit_status,
                                            "killed by signal " + std::to_string(WTERMSIG(status))));
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CUARCH_END_NAMESPACE
