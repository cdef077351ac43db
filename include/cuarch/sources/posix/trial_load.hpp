// A library that was never loaded in this process is loaded in a forked child first, bounded by the
// detection's deadline, and in this process only once the child's dlopen() returned
// (docs/reliability.md, "Never hangs"). What a constructor does to the child (hangs, exits, crashes)
// it does not do here: a dlopen() abandoned in this process would keep glibc's loader lock, so the
// host could neither load its own libraries nor exit(); a constructor calling _exit(0) would end the
// host with status 0.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/errors.hpp"
#include "bounded_call.hpp"
#include "posix.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// A trial load that did not return by its deadline: `what` is not tried again while its file is
/// the same one (a constructor that hung once hangs again; re-asking it, as explain_failure's walk
/// of the alternatives does, would only wait again).
struct hung_trial {
  std::string what;
  file_identity file;
  long long waited_ms = 0;
  library_clock::time_point when;
};
inline std::vector<hung_trial>& hung_trials() {  // under process_lock; never destroyed
  static auto* v = new std::vector<hung_trial>;
  return *v;
}

/// The loader's r_debug, the one it updates and debuggers read: DT_DEBUG in the executable's dynamic
/// section names it. `_r_debug` may be a copy the loader never updates (a PIE executable that names
/// the symbol gets a copy relocation); it is used only when no DT_DEBUG is found.
inline const r_debug* loader_debug_state() noexcept {
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(::getauxval(AT_PHDR));
  const auto n = ::getauxval(AT_PHNUM);
  const ElfW(Phdr)* self = nullptr, *dynamic = nullptr;  // the headers' own entry, and the dynamic section's
  for (unsigned long i = 0; ph && i < n; ++i) {
    if (ph[i].p_type == PT_PHDR) self = &ph[i];
    if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
  }
  // The load bias: where the headers are, less where they say they are.
  const ElfW(Dyn)* dyn = self && dynamic ? reinterpret_cast<const ElfW(Dyn)*>(reinterpret_cast<ElfW(Addr)>(ph) -
                                                                              self->p_vaddr + dynamic->p_vaddr)
                                         : nullptr;
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn)
    if (dyn->d_tag == DT_DEBUG && dyn->d_un.d_ptr) return reinterpret_cast<const r_debug*>(dyn->d_un.d_ptr);
  return &_r_debug;
}

/// How one trial ended: what the child wrote ("ok"; "no " and dlerror()'s text; "busy": it was
/// forked while another thread was mapping a library, so its dlopen() would have aborted), whether
/// it was killed at `until`, and its wait status.
struct trial_outcome {
  std::string said;
  bool timed_out = false;
  bool cancelled = false;    // by the caller (Ctrl-C): the child is killed, the library not judged
  bool status_known = true;  // false: the host ignores SIGCHLD, so the system reaped it
  int status = 0;
};

/// The trial child's exit status when it could not set up its descriptors (before any dlopen()).
inline constexpr int child_setup_failed = 125;

/// One child that dlopen()s `what` and says how it went; `fork_error` is set where none started.
inline trial_outcome try_in_child(const std::string& what, int flags, library_clock::time_point until,
                                  const std::atomic<bool>* cancel, int& fork_error) {
  trial_outcome t;
  fork_error = 0;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    fork_error = errno;
    return t;
  }
  fd_guard from_child(fds[0]), to_parent(fds[1]);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    fork_error = errno;
    return t;
  }
  if (pid == 0) {
    // Dies with the thread that waits for it. Holds nothing of the host's: 0-2 are /dev/null (it
    // prints nowhere; the real load prints its banner once), its pipe is fd 3 (moved first, where the
    // host had closed 0-2 and the pipe landed there), every other descriptor is closed (a constructor
    // can neither write into the host's files nor keep its pipes open).
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    const int pipe_end = to_parent.fd < 3 ? ::fcntl(to_parent.fd, F_DUPFD_CLOEXEC, 3) : to_parent.fd;
    const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (pipe_end < 0 || devnull < 0 || ::dup2(devnull, 0) < 0 || ::dup2(devnull, 1) < 0 || ::dup2(devnull, 2) < 0 ||
        (pipe_end != 3 && ::dup3(pipe_end, 3, O_CLOEXEC) < 0))
      ::_exit(child_setup_failed);
    close_from(4);
    constexpr int to_host = 3;
    const int lazily = (flags & ~RTLD_NOW) | RTLD_LAZY;  // the constructors run as in the real load; binding is its
    const char* refused = nullptr;
    if (loader_debug_state()->r_state != r_debug::RT_CONSISTENT) {
      refused = "";  // glibc would assert in dlopen(): say so, and let the parent try again
    } else if (!::dlopen(what.c_str(), lazily)) {
      refused = ::dlerror();
      if (!refused) refused = "unknown dynamic loader error";
    }
    const std::string_view head = !refused ? "ok" : *refused ? "no " : "busy";
    if (::write(to_host, head.data(), head.size()) < 0 ||
        (refused && ::write(to_host, refused, std::strlen(refused)) < 0))
      ::_exit(126);
    ::_exit(0);
  }
  to_parent.reset();
  for (char buf[512];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - library_clock::now()).count();
    if (left <= 0 || (cancel && cancel->load())) {
      (left <= 0 ? t.timed_out : t.cancelled) = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{from_child.fd, POLLIN, 0};  // a flag cannot wake poll(): with one, look every 20 ms
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, cancel ? 20 : 1000)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    const ssize_t n = ::read(from_child.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child ended
    if (t.said.size() < 4096) t.said.append(buf, static_cast<std::size_t>(n));
  }
  while (::waitpid(pid, &t.status, 0) < 0)
    if (errno != EINTR) {
      t.status_known = false;
      break;
    }
  return t;
}

/// dlopen(what, flags) in a forked child, waited for until `until` or `cancel`. nullopt when it
/// returned a handle there; else library_not_found (its dlerror(), or how the child ended before
/// answering), deadline_exceeded (the child is killed; at the deadline, `what` is not tried again
/// while its file is the same; cancelled, it is) or
/// library_call_failed (no child could be started). `asked_as` is the error's subject.
inline std::optional<error> trial_dlopen(const std::string& what, source_kind src, std::string_view asked_as, int flags,
                                         library_clock::time_point until, const std::atomic<bool>* cancel = nullptr) {
  const file_identity file = identity_of(what);
  {
    process_lock lock;
    for (const auto& h : hung_trials())
      if (h.what == what && h.file == file) {
        const auto ago = std::chrono::duration_cast<std::chrono::seconds>(library_clock::now() - h.when).count();
        return errors::deadline_exceeded(src, "dlopen in " + what, what,
                                         "not tried again: a child process that tried it " + std::to_string(ago) +
                                             " s ago was still inside dlopen() after " + std::to_string(h.waited_ms) +
                                             " ms (killed); the file is unchanged since");
      }
  }
  const auto started = library_clock::now();
  trial_outcome t;
  for (int fork_error = 0;;) {
    t = try_in_child(what, flags, until, cancel, fork_error);
    if (fork_error != 0)
      return errors::library_call_failed(src, "fork for a trial load", fork_error, what,
                                         "no child could be started to try " + what + " first, so it was not loaded (" +
                                             errno_text(fork_error) +
                                             "); free processes or raise the limit (ulimit -u, the cgroup's pids.max)");
    if (t.said != "busy" || library_clock::now() >= until) break;
    const timespec ms{0, 1000000};
    ::nanosleep(&ms, nullptr);  // another thread is mapping a library: try again once it has
  }
  if (t.said == "ok") return std::nullopt;
  if (t.cancelled)  // not judged: the next detection tries it again
    return errors::deadline_exceeded(src, "dlopen in " + what, what,
                                     "the caller cancelled the detection while a child process was trying " + what +
                                         " first (killed); it was not loaded into this process");
  if (t.said.rfind("no ", 0) == 0) return errors::library_not_found(src, asked_as, what, t.said.substr(3));
  if (t.timed_out || t.said == "busy") {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(library_clock::now() - started).count();
    if (t.timed_out) {
      process_lock lock;
      hung_trials().push_back(hung_trial{what, file, waited, started});
    }
    return errors::deadline_exceeded(
        src, "dlopen in " + what, what,
        t.timed_out ? "dlopen() did not return by the detection's deadline in a child process that tried " + what +
                          " first (killed); it was not loaded into this process"
                    : "another thread of this process was loading a library until the deadline, so " + what +
                          " could not be tried first; it was not loaded");
  }
  const std::string how = !t.status_known         ? "its exit status was lost (SIGCHLD is ignored)"
                          : WIFSIGNALED(t.status) ? "killed by signal " + std::to_string(WTERMSIG(t.status))
                                                  : "exit status " + std::to_string(WEXITSTATUS(t.status));
  if (t.status_known && WIFEXITED(t.status) && WEXITSTATUS(t.status) == child_setup_failed)
    return errors::library_not_found(src, asked_as, what,
                                     "the child process that was to try it first could not set up its descriptors (" +
                                         how + "); it was not loaded into this process");
  return errors::library_not_found(src, asked_as, what,
                                   "a child process that tried it first ended before dlopen() returned (" + how +
                                       "): a constructor of the library, or of one it needs, ended the process; it was "
                                       "not loaded into this one");
}

}  // namespace detail
CUARCH_END_NAMESPACE
