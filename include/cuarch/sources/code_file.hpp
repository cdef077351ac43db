// The CUDA code in a file or a directory of files (a JIT cache), read with core/fatbin.hpp. Opened
// like every file cuarch reads (posix/posix.hpp) and read with pread, never mapped and never read
// whole: a 456 MB libtorch_cuda.so costs its section table and fatbin entry headers, and a file that
// shrinks while it is read is an error, where a mapping would kill the caller's process with SIGBUS.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/fatbin.hpp"
#include "../core/inventory.hpp"
#include "posix/posix.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// An open file as list_code reads it: pread at an offset, its size as fstat said at open. Small
/// reads are served from one cached block (entry headers lie back to back); a read that comes back
/// short, or fails, is the error "the file changed while it was read" (or the errno's words).
class file_bytes final : public code_bytes {
 public:
  file_bytes(int fd, std::uint64_t size, const std::string& path, const std::atomic<bool>* cancel) noexcept
      : code_bytes(size, cancel), fd_(fd), path_(path) {}

 protected:
  expected<std::string_view, error> fetch(std::uint64_t at, std::size_t n, std::string& buffer) override {
    if (n == 0) return std::string_view();
    if (at >= block_at_ && at - block_at_ <= block_.size() && n <= block_.size() - (at - block_at_)) {
      buffer.assign(block_, static_cast<std::size_t>(at - block_at_), n);
      return std::string_view(buffer);
    }
    if (n < block_size) {  // read ahead a block, up to the size said at open
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(block_size, size() - at));
      block_.resize(want);
      if (auto e = pread_all(at, block_)) {
        block_.clear();
        return unexpected(std::move(*e));
      }
      block_at_ = at;
      buffer.assign(block_, 0, n);
      return std::string_view(buffer);
    }
    buffer.resize(n);
    if (auto e = pread_all(at, buffer)) return unexpected(std::move(*e));
    return std::string_view(buffer);
  }
  std::uint64_t data_from(std::uint64_t at) override {
    const off_t data = ::lseek(fd_, static_cast<off_t>(at), SEEK_DATA);
    if (data >= 0) return static_cast<std::uint64_t>(data);
    return errno == ENXIO ? size() : at;  // ENXIO: only a hole up to the end; else unknown (no SEEK_DATA here)
  }

 private:
  static constexpr std::size_t block_size = 16384;

  std::optional<error> pread_all(std::uint64_t at, std::string& into) {
    std::size_t have = 0;
    while (have < into.size()) {
      const ssize_t got = ::pread(fd_, &into[have], into.size() - have, static_cast<off_t>(at + have));
      if (got > 0) {
        have += static_cast<std::size_t>(got);
      } else if (got == 0) {
        return changed("it ended at byte " + std::to_string(at + have) + ", before the " + std::to_string(size()) +
                       " bytes it had when opened");
      } else if (errno != EINTR) {
        const int e = errno;
        return errors::unreadable_input(source_kind::user_input, path_, path_,
                                        "reading at byte " + std::to_string(at + have) + ": " + errno_text(e));
      }
    }
    return std::nullopt;
  }
  error changed(const std::string& how) const {
    return errors::unreadable_input(
        source_kind::user_input, path_, path_,
        "the file changed while it was read (" + how + "); read it again once it is written");
  }

  int fd_;
  const std::string& path_;
  std::string block_;
  std::uint64_t block_at_ = 0;
};

/// Whether fstat says the file is the one opened: same size and modification time.
inline bool same_file_state(const struct stat& a, const struct stat& b) noexcept {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace detail

/// The code in the file at `path` (list_code, reading with pread). Errors: unreadable_input (the
/// caller's input: exit 2) naming the path: it cannot be opened or read, is no regular file, its
/// CUDA code is malformed (the byte offset and what is wrong there), or it changed while it was read
/// (shorter than when opened, or a new size or modification time after). `cancel`: the caller's
/// flag, looked at on every read; set, the reading stops with an error that says so. `wanted`: the
/// machine code whose builder is learnt (list_code).
inline expected<code_listing, error> read_code_file(const std::string& path, const std::atomic<bool>* cancel = nullptr,
                                                    const builder_wanted& wanted = {}) {
  const auto as_input = [](error e) {  // the caller's input (exit 2), not a toolkit's file
    e.code = errc::unreadable_input;
    return unexpected(std::move(e));
  };
  detail::fd_guard fd;
  struct stat st {};
  if (auto e = detail::open_regular_file(path, source_kind::user_input, fd, st)) return as_input(std::move(*e));
  if (st.st_size == 0) return code_listing{};
  detail::file_bytes bytes(fd.fd, static_cast<std::uint64_t>(st.st_size), path, cancel);
  expected<code_listing, error> out = list_code(bytes, wanted);
  struct stat after {};
  if (out && (::fstat(fd.fd, &after) != 0 || !detail::same_file_state(st, after)))
    out = unexpected(
        errors::unreadable_input(source_kind::user_input, path, path,
                                 "the file changed while it was read (its size or modification time); read it "
                                 "again once it is written"));
  if (!out) {
    out.error().subject = path;
    out.error().location = path;
  }
  return out;
}

/// The most regular files inspect reads under one directory.
inline constexpr std::size_t max_code_files = 100000;

/// The regular files under `path` (itself when it is no directory), sorted, `max_depth` directories
/// deep; symbolic links are not followed into directories. More than `max_files` is an error naming
/// the directory, the cap and the fix, never a silent cut. `cancel` set: stops, with what was found.
inline expected<std::vector<std::string>, error> code_files_under(const std::string& path,
                                                                  std::size_t max_files = max_code_files,
                                                                  int max_depth = 16,
                                                                  const std::atomic<bool>* cancel = nullptr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::vector<std::string>{path};
  std::vector<std::string> out;
  std::vector<std::pair<std::string, int>> dirs{{path, 0}};
  while (!dirs.empty() && !(cancel && cancel->load())) {
    const auto [dir, depth] = dirs.back();
    dirs.pop_back();
    for (const std::string& name : detail::list_dir(dir)) {
      const std::string full = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + name;
      if (::lstat(full.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth + 1 < max_depth) dirs.emplace_back(full, depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        if (out.size() == max_files)
          return unexpected(errors::unreadable_input(
              source_kind::user_input, path, path,
              "more than " + std::to_string(max_files) +
                  " files under this directory, the most cuarch inspect reads under one; name its subdirectories (or the files) instead"));
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
