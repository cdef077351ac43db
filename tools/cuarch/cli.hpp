// The `cuarch` command line: shared plumbing. Each command lives in its own cmd_*.cpp and registers
// itself here; main.cpp turns the registry into CLI11 subcommands, so commands stay independent.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <cuarch/core/detail/utf8.hpp>
#include <cuarch/resolve/json_documents.hpp>

#include <fmt/core.h>

#include "progress.hpp"

namespace CLI {
class App;
}

namespace cuarch_cli {

/// fmt::print that never throws. fmt throws where the stream's descriptor is closed (a caller that
/// ran cuarch with 2>&- or 1>&-), which ended every command with SIGABRT instead of its exit status.
/// stdout's failure is said once, by output_done(); a message to a closed stderr is lost, and the
/// exit status still says how the command ended.
template <class... T>
void print_to(std::FILE* stream, fmt::format_string<T...> format, T&&... args) noexcept {
  try {
    const std::string text = fmt::format(format, std::forward<T>(args)...);
    std::fwrite(text.data(), 1, text.size(), stream);
  } catch (...) {  // formatting allocates: out of memory leaves the line unsaid, as a closed stream does
  }
}

// Exit codes (README, docs/design.md): the same for every command.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  // resolution / validation failed; reasons on stderr
inline constexpr int exit_usage = 2;   // bad usage or malformed input

/// Whether the command line asked for JSON (`--format json`, `--format=json` or `--json` before
/// any `--`). Read from the raw arguments by main() before parsing, because a caller that asked for
/// JSON reads stdout even when the command line itself is wrong (docs/json.md).
inline bool& json_requested() {
  static bool requested = false;
  return requested;
}

/// The value of `--format` in the raw arguments (before any `--`), or empty.
inline std::string& requested_format() {
  static std::string format;
  return format;
}

/// Whether any `--format json` (or the doctor's `--json`) was given: a caller that asked for JSON reads
/// stdout, even when the same option was also given otherwise (a usage error).
inline bool asks_for_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "--json" || a == "--format=json" ||
        (a == "--format" && i + 1 < argc && std::string_view(argv[i + 1]) == "json"))
      return true;
  }
  return false;
}

inline std::string format_in(int argc, const char* const* argv) {
  std::string format;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "--json") format = "json";
    else if (a.substr(0, 9) == "--format=") format = std::string(a.substr(9));
    else if (a == "--format" && i + 1 < argc) format = argv[i + 1];
  }
  return format;
}

/// Prints "cuarch <command>: <message>" and where help is to stderr (and, when JSON was asked for,
/// the cuarch.error/1 document on stdout); returns exit_usage. `command` empty: none was recognised.
/// Text for stderr: control characters from any input made visible, the lines kept (the doctor's
/// escaping, cuarch::detail::printable). Every command prints its stderr through it.
inline std::string say(std::string_view text) { return cuarch::detail::printable(text, true); }

inline int usage_error(std::string_view command, std::string_view message);

/// The command's stdout holds its output and nothing else (issue 18). Detection loads libraries
/// and runs their code in this process: a constructor that prints, or calls exit(0), must not turn
/// into a success with corrupt or empty output. While a `detecting` scope lives, fd 1 is a copy of
/// stderr (what a library writes, through stdio or write(2), lands there) and the real stdout waits
/// on a private descriptor; the scope's end flushes and gives fd 1 back. An exit() from a library
/// inside the scope is caught by an atexit handler (installed by main() first thing): it says so on
/// stderr and ends the process with exit_failed, never 0 with nothing written. After the command,
/// main() points fd 1 at stderr again: a library's destructor printing at exit cannot append to the
/// output either. (An _exit() or a signal from a library cannot be caught: its status is not 0.)
inline bool& detection_in_progress() {
  static bool active = false;
  return active;
}

inline void exit_during_detection() {
  if (!detection_in_progress()) return;
  std::fflush(stdout);  // what the library printed goes to stderr, where fd 1 points now
  static constexpr char message[] =
      "cuarch: a library loaded while detecting called exit() before cuarch wrote its output; "
      "nothing was written to stdout (exit 1)\n";
  if (::write(2, message, sizeof message - 1) < 0) { /* nowhere left to say it */
  }
  ::_exit(exit_failed);
}

/// SIGINT, SIGTERM and SIGHUP while detecting (issue 18): the handler only records the signal and
/// sets `interrupted`, the cancel flag the command hands the library (resolve_options::cancel); the
/// running probe (nvcc --version in its own process group, which a terminal's Ctrl-C does not reach)
/// is killed and reaped within about 20 ms and nothing more is asked. The scope's end then ends
/// cuarch by the same signal (its default action), so the shell sees 128 + signo and a script's loop
/// stops as it would for any program killed by Ctrl-C. A second signal acts at once (SA_RESETHAND;
/// the probe then dies with cuarch, PR_SET_PDEATHSIG). A signal ignored when cuarch started (nohup, a
/// background job's SIGINT) stays ignored.
inline std::atomic<bool> interrupted{false};
inline volatile std::sig_atomic_t interrupting_signal = 0;
inline constexpr int interrupt_signals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" inline void on_interrupt(int sig) {
  interrupting_signal = sig;
  interrupted.store(true);
}

class detecting {
 public:
  detecting() {
    std::fflush(stdout);
    saved_ = ::fcntl(1, F_DUPFD_CLOEXEC, 3);  // -1: no stdout to keep (closed), nothing to guard
    if (saved_ >= 0) ::dup2(2, 1);
    detection_in_progress() = true;
    for (std::size_t i = 0; i < std::size(interrupt_signals); ++i) {
      struct sigaction sa {};
      sa.sa_handler = on_interrupt;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;  // no SA_RESTART: a wait in poll() wakes with EINTR at once
      if (::sigaction(interrupt_signals[i], nullptr, &old_[i]) == 0 && old_[i].sa_handler != SIG_IGN)
        ::sigaction(interrupt_signals[i], &sa, nullptr);
    }
  }
  ~detecting() {
    progress_.stop();     // the progress line, if drawn, is erased before anything else is said
    std::fflush(stdout);  // a library's buffered printf goes where fd 1 points now: stderr
    detection_in_progress() = false;
    if (saved_ >= 0) {
      ::dup2(saved_, 1);
      ::close(saved_);
    }
    for (std::size_t i = 0; i < std::size(interrupt_signals); ++i) ::sigaction(interrupt_signals[i], &old_[i], nullptr);
    if (const int sig = interrupting_signal) {
      print_to(stderr, "cuarch: interrupted by signal {}; a probe it was running, if any, was killed\n", sig);
      std::fflush(stderr);
      ::signal(sig, SIG_DFL);
      sigset_t just;
      sigemptyset(&just);
      sigaddset(&just, sig);
      ::sigprocmask(SIG_UNBLOCK, &just, nullptr);
      ::raise(sig);
      ::_exit(128 + sig);  // not reached: the default action of these signals ends the process
    }
  }
  detecting(const detecting&) = delete;
  detecting& operator=(const detecting&) = delete;

  /// For the library's options: the progress line's hook (none unless stderr is a terminal).
  cuarch::progress_hook progress() const { return progress_.hook(); }

 private:
  mutable progress_line progress_;  // the scope is const where it is used; the line is not its state
  int saved_ = -1;
  struct sigaction old_[std::size(interrupt_signals)]{};
};

/// At the end of main(): the output is written; anything later (a library's destructor at exit) goes
/// to stderr. An output that did not reach its reader (a full disk, a closed pipe, a closed fd 1) is a
/// failure, whatever the command decided: a caller that reads stdout must not take exit 0 for an
/// answer it never got. Returns the exit status: `status`, or exit_failed with one line on stderr.
inline int output_done(int status) {
  errno = 0;
  const bool written = std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int why = errno;
  ::dup2(2, 1);
  if (written) return status;
  print_to(stderr, "cuarch: could not write the output to stdout ({}); exit 1\n",
           why != 0 ? std::strerror(why) : "write error");
  return status == exit_ok ? exit_failed : status;
}

class flag_set;

/// One command: its one-line summary, the help text after the option list, and `setup`, which
/// declares the command's options on its CLI11 subcommand and returns what runs it once the
/// command line has been parsed and checked.
struct command {
  std::string summary;
  std::string footer;
  std::function<std::function<int()>(flag_set&)> setup;
  // What a refusal of this command prints on stdout so that its consumer fails too (env's `eval`).
  std::function<std::string()> refused_output = nullptr;
};

inline std::map<std::string, command>& registry() {
  static std::map<std::string, command> commands;
  return commands;
}

/// Registers a command at start-up (one per cmd_*.cpp).
struct register_command {
  register_command(std::string name, command c) { registry().emplace(std::move(name), std::move(c)); }
};

inline int usage_error(std::string_view command, std::string_view message) {
  if (json_requested()) print_to(stdout, "{}\n", cuarch::usage_error_json(command, message));
  else if (const auto it = registry().find(std::string(command)); it != registry().end() && it->second.refused_output)
    print_to(stdout, "{}", it->second.refused_output());
  if (command.empty()) print_to(stderr, "cuarch: {}\n(see: cuarch --help)\n", say(message));
  else print_to(stderr, "cuarch {}: {}\n(see: cuarch {} --help)\n", command, say(message), command);
  return exit_usage;
}

}  // namespace cuarch_cli
