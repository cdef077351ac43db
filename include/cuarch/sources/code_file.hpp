// The CUDA code in a file or a directory of files (a JIT cache), read with core/fatbin.hpp. Opened
// like every file cuarch reads (posix/posix.hpp) and mapped, never read whole: a 456 MB
// libtorch_cuda.so costs the pages of its section table and fatbin entry headers.
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/fatbin.hpp"
#include "../core/inventory.hpp"
#include "posix/posix.hpp"

CUARCH_BEGIN_NAMESPACE

/// The code in the file at `path` (list_code on its mapped bytes). Errors: unreadable_input (the
/// caller's input: exit 2) naming the path: it cannot be opened or mapped, is no regular file, or
/// its CUDA code is malformed (the byte offset and what is wrong there).
inline expected<code_listing, error> read_code_file(const std::string& path) {
  const auto as_input = [](error e) {  // the caller's input (exit 2), not a toolkit's file
    e.code = errc::unreadable_input;
    return unexpected(std::move(e));
  };
  detail::fd_guard fd;
  struct stat st {};
  if (auto e = detail::open_regular_file(path, source_kind::user_input, fd, st)) return as_input(std::move(*e));
  if (st.st_size == 0) return code_listing{};
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (map == MAP_FAILED) {
    const int e = errno;
    return as_input(detail::file_read_error(source_kind::user_input, path, "cannot map it: " + detail::errno_text(e), e));
  }
  // Access is scattered (headers), not sequential: do not read ahead the whole file.
  (void)::madvise(map, size, MADV_RANDOM);
  expected<code_listing, error> out = list_code(std::string_view(static_cast<const char*>(map), size));
  ::munmap(map, size);
  if (!out) {
    out.error().subject = path;
    out.error().location = path;
  }
  return out;
}

/// The regular files under `path` (itself when it is no directory), sorted, at most `max_files`,
/// `max_depth` directories deep; symbolic links are not followed into directories.
inline std::vector<std::string> code_files_under(const std::string& path, std::size_t max_files = 100000, int max_depth = 16) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> out;
  std::vector<std::pair<std::string, int>> dirs{{path, 0}};
  while (!dirs.empty() && out.size() < max_files) {
    const auto [dir, depth] = dirs.back();
    dirs.pop_back();
    for (const std::string& name : detail::list_dir(dir)) {
      const std::string full = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + name;
      if (::lstat(full.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth + 1 < max_depth) dirs.emplace_back(full, depth + 1);
      } else if (S_ISREG(st.st_mode) && out.size() < max_files) {
        out.push_back(full);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The most of an inventory file cuarch reads (`kubectl get nodes -o json` of 1,000 nodes: 10-50 MB).
inline constexpr std::size_t max_inventory_bytes = std::size_t{128} << 20;

/// The nodes of the inventory file at `path` (parse_inventory). Errors: unreadable_input (exit 2)
/// naming the path.
inline expected<inventory, error> read_inventory_file(const std::string& path) {
  const auto text = detail::read_regular_file(path, max_inventory_bytes, source_kind::device_list);
  if (!text) {
    error e = detail::inventory_error(path, "the file", std::string(text.error().raw.view()));
    e.native_status = text.error().native_status;
    return unexpected(e);
  }
  return parse_inventory(*text, path);
}

CUARCH_END_NAMESPACE
