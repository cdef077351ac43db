// nvcc and ptxas (the assembler Triton and nvcc run) as version sources: `<tool> --version`, with a
// timeout (posix/subprocess.hpp). A hang, a non-zero exit, or output naming no release is a typed
// error naming the tool's path.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/decode.hpp"
#include "nvrtc_source.hpp"  // probed_compiler
#include "posix/subprocess.hpp"
#include "tool_timeout.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// The line holding "release X.Y" (CR removed), for the observation's raw words.
inline std::string release_line(std::string_view out) {
  const std::size_t at = out.find("release ");
  if (at == std::string_view::npos) return std::string(trim(out.substr(0, 120)));
  const std::size_t begin = out.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
  return std::string(trim(out.substr(begin, out.find_first_of("\r\n", at) - begin)));
}

/// The last non-empty line of a tool's output: usually its error message.
inline std::string last_line(std::string_view text) {
  text = trim(text);
  const std::size_t nl = text.find_last_of("\r\n");
  return std::string(nl == std::string_view::npos ? text : trim(text.substr(nl + 1)));
}

}  // namespace detail

/// Runs `<path> --version` and reads the release. `kind` is source_kind::nvcc or ::ptxas. `env`: the
/// resolution's snapshot, whose program_environment() the tool gets (nullptr: the process's, copied
/// at the call, in this thread).
inline expected<probed_compiler, error> probe_tool_version(
    std::string path, source_kind kind, discovery how = discovery::explicit_argument,
    std::chrono::milliseconds timeout = default_tool_timeout,
    library_path_policy policy = library_path_policy::allow_relative, const std::atomic<bool>* cancel = nullptr,
    const environment* env = nullptr) {
  const auto unreadable = [kind](const std::string& what, std::string_view why, int status = 0) {
    return unexpected(detail::file_read_error(kind, what, why, status));
  };
  if (path.empty()) return unreadable("(empty path)", "no program path given");
  if (path.front() != '/') {
    if (policy != library_path_policy::allow_relative)
      return unreadable(path, "relative program path refused; pass an absolute path");
    path = detail::absolute_path(path);
    if (path.empty()) return unreadable("(relative path)", "the current directory cannot be read");
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;  // read once: errno_text may change it
    return unreadable(path, detail::errno_text(err), err);
  }
  if (S_ISDIR(st.st_mode)) return unreadable(path, "is a directory, not a program");
  // exec() refuses these anyway; say why before spawning anything
  if (!S_ISREG(st.st_mode))
    return unreadable(path, std::string("not a regular file: ").append(detail::file_type_words(st.st_mode)));
  if (::access(path.c_str(), X_OK) != 0) return unreadable(path, "not executable", errno);

  process_limits limits;
  limits.timeout = timeout;
  limits.cancel = cancel;  // the caller's flag: set, the run is killed (subprocess.hpp)
  const std::vector<std::string> program_env = env ? env->program_environment() : std::vector<std::string>();
  if (env) limits.env = &program_env;
  const auto run = run_process({path, "--version"}, limits, kind);
  if (!run) return unexpected(run.error());
  if (!run->exit_status_lost && run->exit_status != 0) {
    const std::string why = detail::last_line(run->err.empty() ? run->out : run->err);
    return unexpected(detail::located_error(
        errc::process_failed, kind, path, path,
        "exit status " + std::to_string(run->exit_status) + (why.empty() ? "" : ": " + why), run->exit_status));
  }
  auto version = parse_nvcc_version_output(run->out, kind);
  if (!version) version = parse_nvcc_version_output(run->err, kind);
  // Under SIGCHLD = SIG_IGN the exit status is gone: the output still answers if it names a release.
  constexpr std::string_view lost =
      "exit status lost (SIGCHLD is ignored in this process, so the system reaped the child)";
  if (!version) {
    if (run->exit_status_lost) {
      std::string why(lost);
      why.append(run->output_complete ? "; its output names no release: "
                                      : "; its output, cut short, names no release: ")
          .append(detail::trim(std::string_view(run->out.empty() ? run->err : run->out).substr(0, 80)));
      return unexpected(detail::located_error(errc::process_failed, kind, path, path, why, -1));
    }
    error e = version.error();
    e.subject = std::string(to_string(kind)) + " --version";
    e.location = path;
    e.raw = detail::trim(std::string_view(run->out.empty() ? run->err : run->out).substr(0, 190));
    return unexpected(e);
  }
  const std::string real = detail::real_path(path);
  probed_compiler p{{kind, *version, path, how,
                     detail::release_line(run->out.find("release ") != std::string::npos ? run->out : run->err)},
                    {kind, *version, real.empty() ? path : real, {}}};
  if (run->exit_status_lost)
    p.seen.raw.append("; ").append(lost).append(run->output_complete ? "; output complete"
                                                                     : "; output may be cut short");
  return p;
}

/// nvcc or ptxas run for its version: the compiler-source contract, `compiler()` (no supported-arch
/// list: `--list-gpu-code` omits a/f variants, so the table decides).
template <source_kind Kind>
class tool_source : public probed_source<tool_source<Kind>> {
 public:
  /// `env`: the snapshot whose program_environment() the tool runs with; nullopt: the process's,
  /// copied at each probe.
  explicit tool_source(std::string path, discovery how = discovery::explicit_argument,
                       std::chrono::milliseconds timeout = default_tool_timeout,
                       std::optional<environment> env = std::nullopt)
      : path_(std::move(path)), how_(how), timeout_(timeout), env_(std::move(env)) {}

  expected<probed_compiler, error> probe() const {
    return probe_tool_version(path_, Kind, how_, timeout_, library_path_policy::allow_relative, nullptr,
                              env_ ? &*env_ : nullptr);
  }

 private:
  std::string path_;
  discovery how_;
  std::chrono::milliseconds timeout_;
  std::optional<environment> env_;
};

using nvcc_compiler_source = tool_source<source_kind::nvcc>;
using ptxas_source = tool_source<source_kind::ptxas>;

CUARCH_END_NAMESPACE
