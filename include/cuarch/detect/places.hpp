// The places detection looks in, as file-system facts: a toolkit's library directories, the default
// install locations, wrapper scripts that hand over to a toolkit's program, and how a variable's
// path is checked (a library's versioned files: wheel_layout.hpp). No loading, no running.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/decode.hpp"
#include "../core/error.hpp"
#include "../core/source_kind.hpp"
#include "../sources/posix/posix.hpp"
#include "../sources/toolkit_files.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// A variable naming a file or directory: relative values are refused (cuarch does not look in
/// the current directory on a variable's word).
inline std::optional<error> check_variable_path(const std::string& name, const std::string& value, source_kind src) {
  if (!value.empty() && value.front() == '/') return std::nullopt;
  return errors::invalid_environment(
      src, name, value,
      "a relative path: cuarch does not load or run anything from the current directory; use an absolute path");
}

/// The library directories of a toolkit root.
inline std::vector<std::string> library_dirs(const std::string& root) {
  std::vector<std::string> dirs{join(root, "lib64"), join(root, "lib")};
  for (const auto& t : list_dir(join(root, "targets"))) dirs.push_back(join(root, "targets/" + t + "/lib"));
  return dirs;
}

/// /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda: those that exist.
inline std::vector<std::string> default_toolkit_roots() {
  std::vector<std::string> roots{"/usr/local/cuda"};
  std::vector<std::pair<cuda_version, std::string>> versioned;
  for (const auto& name : list_dir("/usr/local", "cuda-"))
    if (const auto v = parse_cuda_version(std::string_view(name).substr(5)))
      versioned.emplace_back(*v, "/usr/local/" + name);
  std::sort(versioned.begin(), versioned.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
  for (auto& v : versioned) roots.push_back(std::move(v.second));
  roots.emplace_back("/opt/cuda");
  roots.erase(std::remove_if(roots.begin(), roots.end(), [](const std::string& r) { return !is_directory(r); }),
              roots.end());
  return roots;
}

/// The program a tiny wrapper script hands over to: the target of its final `exec /abs/path "$@"`
/// line (Debian's /usr/bin/nvcc, /usr/local/bin/nvcc shims). Empty for anything else.
inline std::string exec_wrapper_target(const std::string& path) {
  if (path.empty()) return {};
  const auto text = read_regular_file(path, 4096, source_kind::none);
  if (!text || text->compare(0, 2, "#!") != 0) return {};
  std::string_view last;  // the last line that is not blank or a comment
  for (const std::string_view raw : split(*text, '\n'))
    if (const std::string_view line = trim(raw); !line.empty() && line.front() != '#') last = line;
  if (!starts_with(last, "exec ")) return {};
  std::string_view target = trim(last.substr(5));
  const std::size_t space = target.find(' ');
  const std::string_view args = space == std::string_view::npos ? std::string_view() : trim(target.substr(space + 1));
  target = target.substr(0, space);
  if (target.empty() || target.front() != '/' || !(args.empty() || args == "\"$@\"" || args == "$@")) return {};
  const std::string real = real_path(std::string(target));
  return real != path ? real : std::string();
}

}  // namespace detail

CUARCH_END_NAMESPACE
