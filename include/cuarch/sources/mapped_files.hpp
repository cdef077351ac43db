// The files a process has mapped as code: what `cuarch inspect --pid` and cuarch.inspect_loaded()
// judge (front_door/inspect_here.hpp, inspect_loaded), before the first launch that would fail with
// "no kernel image is available". Listed without loading or running anything, and without CUDA.
#pragma once

#include <link.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "posix/posix.hpp"
#include "posix/process_lock.hpp"

CUARCH_BEGIN_NAMESPACE

/// The files of a process's code, each once, in the order the process mapped them (the program
/// first), and those it maps that were deleted or replaced since (" (deleted)": not readable by path).
struct mapped_files {
  std::vector<std::string> paths;
  std::vector<std::string> deleted;
};

/// The ELF objects mapped into this process (dl_iterate_phdr, under the process lock): the program
/// (as /proc/self/exe names it), then every shared library by the path it was loaded from. The vDSO,
/// which has no file, is left out.
inline mapped_files mapped_files_here() {
  mapped_files out;
  detail::each_loaded_object([&](const dl_phdr_info& info) {
    std::string path = info.dlpi_name ? info.dlpi_name : "";
    if (path.empty() && out.paths.empty()) path = detail::real_path("/proc/self/exe");  // the program: no name
    if (!path.empty() && path.front() == '/' && std::find(out.paths.begin(), out.paths.end(), path) == out.paths.end())
      out.paths.push_back(std::move(path));
    return false;
  });
  return out;
}

/// The most of /proc/PID/maps read: a process with 100,000 mappings writes about 10 MB.
inline constexpr std::size_t max_maps_bytes = std::size_t{64} << 20;

namespace detail {

/// The files of /proc/PID/maps text mapped executable (perms with x), in address order, each once.
inline mapped_files files_of_maps(std::string_view rest) {
  mapped_files out;
  std::set<std::string, std::less<>> seen;  // a process may map 100,000 regions: no scan per line
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    // "start-end perms offset dev inode   path": the path is all after the fifth field.
    std::string_view fields[5];
    for (auto& f : fields) {
      line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
      f = line.substr(0, line.find(' '));
      line.remove_prefix(f.size());
    }
    line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
    if (fields[1].find('x') == std::string_view::npos || line.empty() || line.front() != '/') continue;
    constexpr std::string_view gone = " (deleted)";
    const bool deleted = line.size() > gone.size() && line.substr(line.size() - gone.size()) == gone;
    if (seen.insert(std::string(line)).second)
      (deleted ? out.deleted : out.paths).emplace_back(deleted ? line.substr(0, line.size() - gone.size()) : line);
  }
  return out;
}

}  // namespace detail

/// The files process `pid` maps executable (/proc/PID/maps, perms with x): its program and shared
/// libraries, in address order. Errors: file_unreadable naming /proc/PID/maps, with why (no such
/// process; another user's, which needs ptrace access: run as that user or as root).
inline expected<mapped_files, error> mapped_files_of(long pid) {
  const std::string maps = "/proc/" + std::to_string(pid) + "/maps";
  if (pid <= 0)
    return unexpected(detail::file_read_error(source_kind::user_input, maps, "a process ID is a positive number"));
  auto text = detail::read_regular_file(maps, max_maps_bytes, source_kind::user_input);
  if (!text) {
    error e = text.error();
    const int why = e.native_status;
    if (why == ENOENT || why == ESRCH)
      e = detail::file_read_error(source_kind::user_input, maps,
                                  "no process " + std::to_string(pid) + " is running here", why);
    else if (why == EACCES || why == EPERM)
      e = detail::file_read_error(source_kind::user_input, maps,
                                  "reading another user's mappings needs ptrace access: run as that user or as root",
                                  why);
    return unexpected(std::move(e));
  }
  return detail::files_of_maps(*text);
}

CUARCH_END_NAMESPACE
