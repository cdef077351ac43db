// subprocess: runs a program (nvcc --version) without a shell, with a deadline, without touching the
// caller's process (vfork + execve of an absolute path, in its own process group). The promises and
// their tests: docs/reliability.md. Linux only.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "../../core/environment.hpp"
#include "posix.hpp"

CUARCH_BEGIN_NAMESPACE

struct process_limits {
  std::chrono::milliseconds timeout{10000};  // from spawn to exit, output included
  std::size_t max_output = 64 * 1024;        // bytes kept per stream; the rest is read and dropped
  // Set by the caller (another thread, a signal handler): the process group is killed and reaped
  // within about 20 ms, and the run fails with process_failed ("cancelled").
  const std::atomic<bool>* cancel = nullptr;
  // The program's whole environment, NAME=VALUE each (environment::program_environment() of the
  // caller's snapshot). nullptr: the process's, copied in the calling thread before the spawn. The
  // child never reads the live `environ`: another thread's setenv may free it between vfork and
  // execve ("Bad address", docs/reliability.md).
  const std::vector<std::string>* env = nullptr;
};

/// What a finished program said. A non-zero exit status is not an error here: callers decide.
struct process_result {
  int exit_status = 0;  // exit code, or 128 + signal number when killed by a signal
  std::string out, err;
  bool truncated = false;  // some output was dropped (over max_output)
  // exit_status is -1: SIGCHLD is ignored in this process, so the system reaped the child (the
  // output is still here; callers say the status was lost).
  bool exit_status_lost = false;
  // Both pipes reached end-of-file: nothing the child (or a grandchild) could still write is missing.
  bool output_complete = false;
};

namespace detail {

enum class reap_state { exited, running, lost };

/// Collects the child's status if it has exited (never blocks). `lost` (ECHILD): SIGCHLD is SIG_IGN.
inline reap_state reap(pid_t pid, int& status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return reap_state::exited;
    if (r == 0) return reap_state::running;
    if (errno != EINTR) return reap_state::lost;
  }
}

/// A descriptor readable when the process exits (Linux 5.3+), or -1 (the caller then polls).
inline int open_pidfd(pid_t pid) {
#if defined(SYS_pidfd_open)
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

/// What the child needs, made before vfork: until exec it shares the parent's memory and only makes
/// system calls (no allocation, no lock).
struct child_plan {
  const char* path;
  char* const* argv;
  char* const* envp;
  int out_w, err_w;
  pid_t parent;
  // Set when a step before exec fails. volatile: written on a path that never returns.
  volatile int* exec_errno;
};

/// The child, until exec: signal handlers back to default (a host's handler must not run here, on
/// the parent's memory), SIGPIPE/SIGINT/SIGTERM/SIGCHLD default and no signal blocked; its own
/// process group; death with the parent; stdin /dev/null, stdout/stderr the pipes, nothing else open.
[[noreturn]] inline void run_child(const child_plan& p) noexcept {
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (sig == SIGKILL || sig == SIGSTOP || ::sigaction(sig, nullptr, &sa) != 0) continue;
    const bool to_default = sig == SIGPIPE || sig == SIGINT || sig == SIGTERM || sig == SIGCHLD;
    if (!to_default && (sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL)) continue;  // ignored stays ignored
    sa = {};
    sa.sa_handler = SIG_DFL;
    ::sigaction(sig, &sa, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  int step = 0;
  if (::setpgid(0, 0) != 0 || ::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) step = errno;
  if (step == 0 && ::getppid() != p.parent) _exit(127);  // the parent died before PDEATHSIG was set
  // Pipe ends that landed on 0-2 (a host that closed them) are moved out of the way first.
  const int out_w = step == 0 && p.out_w < 3 ? ::fcntl(p.out_w, F_DUPFD, 3) : p.out_w;
  const int err_w = step == 0 && p.err_w < 3 ? ::fcntl(p.err_w, F_DUPFD, 3) : p.err_w;
  const int null_fd = step == 0 ? ::open("/dev/null", O_RDONLY) : -1;  // never wait for our stdin
  if (step == 0 &&
      (out_w < 0 || err_w < 0 || null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(out_w, 1) < 0 || ::dup2(err_w, 2) < 0))
    step = errno;
  if (step == 0) {
    close_from(3);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(p.path, p.argv, p.envp);
    step = errno;
  }
  *p.exec_errno = step;
  _exit(127);
}

/// vfork, then the child runs run_child; every signal is blocked around it so that no handler of the
/// host runs in the child before it has reset them. Returns the child's pid (or -1, errno set).
[[gnu::noinline]] inline pid_t spawn_child(const child_plan& plan) noexcept {
  sigset_t all, saved;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &saved);
  const pid_t pid = ::vfork();
  if (pid == 0) run_child(plan);
  const int e = errno;
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  errno = e;
  return pid;
}

/// Reads what a non-blocking pipe holds into `sink` (beyond max_output: dropped, `truncated`). Closes
/// the pipe at end-of-file or on a read error.
inline void read_available(fd_guard& pipe, std::string& sink, std::size_t max_output, bool& truncated) {
  char buf[4096];
  for (;;) {
    const ssize_t got = ::read(pipe.fd, buf, sizeof buf);
    if (got > 0) {
      const std::size_t keep = sink.size() < max_output
                                   ? std::min(max_output - sink.size(), static_cast<std::size_t>(got))
                                   : 0;
      sink.append(buf, keep);
      if (keep < static_cast<std::size_t>(got)) truncated = true;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) pipe.reset();  // EOF or a read error: done
    return;
  }
}

}  // namespace detail

/// Runs argv[0] (an absolute path). Errors, naming the command line and the program: process_failed
/// (cannot spawn: native_status = errno; killed by a signal: 128 + signal), process_timed_out.
inline expected<process_result, error> run_process(const std::vector<std::string>& argv,
                                                   const process_limits& limits = {},
                                                   source_kind src = source_kind::none) {
  using clock = std::chrono::steady_clock;
  // An error naming the command line and the program.
  const auto fail = [&](int status, std::string_view why, errc code = errc::process_failed) {
    std::string line;
    for (const auto& a : argv) line.append(line.empty() ? "" : " ").append(a);
    return detail::located_error(code, src, line, argv.empty() ? std::string_view() : std::string_view(argv.front()),
                                 why, status);
  };
  if (argv.empty() || argv.front().empty() || argv.front().front() != '/')
    return unexpected(fail(0, "the program path must be absolute"));

  // `e` is errno read once: errno_text may change it, and argument order is unspecified.
  const auto failed = [&](int e) { return unexpected(fail(e, detail::errno_text(e))); };
  int pipes[4] = {-1, -1, -1, -1};  // stdout's pipe, stderr's pipe
  // O_CLOEXEC: a program spawned concurrently by another thread must not inherit these ends.
  const bool piped = ::pipe2(pipes, O_CLOEXEC) == 0 && ::pipe2(pipes + 2, O_CLOEXEC) == 0;
  const int pipe_errno = errno;
  detail::fd_guard out_r(pipes[0]), out_w(pipes[1]), err_r(pipes[2]), err_w(pipes[3]);
  if (!piped) return failed(pipe_errno);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment, built here in the caller's thread: the child only reads this memory.
  const std::vector<std::string> own_env = limits.env ? std::vector<std::string>() : environment::process_entries();
  const std::vector<std::string>& env = limits.env ? *limits.env : own_env;
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  if (limits.cancel && limits.cancel->load()) return unexpected(fail(0, "cancelled by the caller before it started"));

  const auto deadline = clock::now() + limits.timeout;
  volatile int exec_errno = 0;
  const detail::child_plan plan{argv.front().c_str(), args.data(), envp.data(), out_w.fd, err_w.fd,
                                ::getpid(),           &exec_errno};
  const pid_t pid = detail::spawn_child(plan);
  const int spawn_errno = pid < 0 ? errno : exec_errno;
  out_w.reset();  // the child holds its own copies; EOF arrives when it (and its children) close them
  err_w.reset();
  if (pid < 0) return failed(spawn_errno);
  if (spawn_errno != 0) {  // exec (or a step before it) failed: the child has exited with 127
    int ignored = 0;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {}
    return failed(spawn_errno);
  }

  detail::fd_guard exit_fd(detail::open_pidfd(pid));
  const bool already_reaped = exit_fd.fd < 0 && errno == ESRCH;  // by the system, under SIGCHLD = SIG_IGN

  process_result result;
  for (const int fd : {out_r.fd, err_r.fd}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  // Rounded up: 0 only once the deadline has passed (rounded down, a run was called timed out early
  // and a caller sharing the deadline started another probe with a sliver of time left).
  auto remaining_ms = [&]() -> int {
    const auto left = deadline - clock::now();
    if (left <= clock::duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(ms > 1000000 ? 1000000 : ms);
  };

  int status = 0;
  detail::reap_state state = detail::reap_state::running;
  std::optional<error> stopped;  // why the wait ended before the child did: it is killed
  int fallback_ms = 1;           // without a pidfd: how long to wait before asking waitpid again (1, 2, 4 ... 64 ms)
  if (already_reaped) state = detail::reap(pid, status);
  while (state == detail::reap_state::running) {
    pollfd fds[3];
    nfds_t n = 0;
    if (out_r.fd >= 0) fds[n++] = pollfd{out_r.fd, POLLIN, 0};
    if (err_r.fd >= 0) fds[n++] = pollfd{err_r.fd, POLLIN, 0};
    if (exit_fd.fd >= 0) fds[n++] = pollfd{exit_fd.fd, POLLIN, 0};
    int wait = remaining_ms();
    if (wait == 0) {
      stopped = fail(static_cast<int>(limits.timeout.count()),
                     "no exit within " + std::to_string(limits.timeout.count()) + " ms; killed",
                     errc::process_timed_out);
      break;
    }
    if (exit_fd.fd < 0) {
      wait = std::min(wait, fallback_ms);
      fallback_ms = std::min(fallback_ms * 2, 64);
    }
    if (limits.cancel) wait = std::min(wait, 20);  // a flag cannot wake poll(): look at it every 20 ms
    const int pr = ::poll(fds, n, wait);
    if (const int e = errno; pr < 0 && e != EINTR) {
      stopped = fail(e, "waiting for its output failed (" + detail::errno_text(e) + "); killed");
      break;
    }
    if (limits.cancel && limits.cancel->load()) {
      stopped = fail(0, "cancelled by the caller; killed with its process group");
      break;
    }
    for (nfds_t i = 0; pr > 0 && i < n; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == exit_fd.fd) continue;
      if (fds[i].fd == out_r.fd) detail::read_available(out_r, result.out, limits.max_output, result.truncated);
      else detail::read_available(err_r, result.err, limits.max_output, result.truncated);
    }
    // Asked on the pidfd's word, or on every wake-up without one: the pipes say nothing about exit.
    const bool exit_signalled = exit_fd.fd >= 0 && pr > 0 && fds[n - 1].revents != 0;
    if (exit_signalled || exit_fd.fd < 0) state = detail::reap(pid, status);
  }
  if (stopped) {
    ::kill(-pid, SIGKILL);  // its own process group: grandchildren (a wrapper script's children) go too
    ::kill(pid, SIGKILL);
    // SIGKILL ends it at once unless it is stuck in the kernel: wait a bounded while, never forever.
    const auto until = clock::now() + std::chrono::milliseconds(1000);
    for (int step = 1; detail::reap(pid, status) == detail::reap_state::running && clock::now() < until;
         step = std::min(step * 2, 64)) {
      pollfd p{exit_fd.fd, POLLIN, 0};
      ::poll(&p, exit_fd.fd >= 0 ? 1 : 0, step);
    }
    return unexpected(std::move(*stopped));
  }
  // The child is gone: what it wrote is in the pipes. A grandchild holding them is not waited for.
  if (out_r.fd >= 0) detail::read_available(out_r, result.out, limits.max_output, result.truncated);
  if (err_r.fd >= 0) detail::read_available(err_r, result.err, limits.max_output, result.truncated);
  result.output_complete = out_r.fd < 0 && err_r.fd < 0;
  result.exit_status_lost = state == detail::reap_state::lost;
  if (!result.exit_status_lost && WIFSIGNALED(status))
    return unexpected(fail(128 + WTERMSIG(status), "killed by signal " + std::to_string(WTERMSIG(status))));
  result.exit_status = !result.exit_status_lost && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CUARCH_END_NAMESPACE
