// Small POSIX helpers, and the one way every file cuarch reads is opened: O_NONBLOCK | O_CLOEXEC (a
// FIFO opens at once instead of waiting for a writer), a regular file only, at most a cap of bytes.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../../core/config.hpp"
#include "../../core/detail/chars.hpp"
#include "../../core/error.hpp"
#include "../../core/expected.hpp"
#include "../../core/source_kind.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// strerror, thread-safely.
inline std::string errno_text(int e) { return std::error_code(e, std::generic_category()).message(); }

/// realpath(3) as a string (symlinks resolved, absolute); empty on failure, errno kept.
inline std::string real_path(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  if (!r) return {};
  std::string s(r);
  ::free(r);
  return s;
}

/// `path` made absolute against the current directory; empty when that cannot be read.
inline std::string absolute_path(const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  char cwd[4096];
  return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : std::string();
}

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

/// In a child between fork and exec (or a trial load): closes every descriptor from `first` up, so
/// that nothing of the host's (its pipes, sockets, files) is held or written by what runs there.
/// Only system calls: nothing here may allocate or lock.
inline void close_from(int first) noexcept {
#if defined(SYS_close_range)
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0) return;
#endif
  struct rlimit lim {};  // before Linux 5.9: each one that may be open
  const rlim_t top = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? lim.rlim_cur : 65536;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < top && fd < 1048576; ++fd) ::close(static_cast<int>(fd));
}

/// What tells a file from its replacement: device, inode, size and modification time (all zero
/// where it cannot be stat()ed, such as a library name that is no path).
struct file_identity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  long long mtime_s = 0;
  long mtime_ns = 0;
  friend bool operator==(const file_identity& a, const file_identity& b) {
    return a.device == b.device && a.inode == b.inode && a.size == b.size && a.mtime_s == b.mtime_s &&
           a.mtime_ns == b.mtime_ns;
  }
  friend bool operator!=(const file_identity& a, const file_identity& b) { return !(a == b); }
};
inline file_identity identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino, st.st_size, static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec};
}

/// Splits a PATH-style list at ':'. Empty entries (the current directory) are kept, to be refused.
inline std::vector<std::string> split_path_list(std::string_view list) {
  const auto entries = split(list, ':');
  return std::vector<std::string>(entries.begin(), entries.end());
}

/// The entries of a directory (not "." and ".."), sorted; empty when it cannot be read. With a
/// prefix, only the names that start with it (copying and sorting a toolkit's lib directory was 40 %
/// of detecting the JIT compiler: docs/performance.md).
inline std::vector<std::string> list_dir(const std::string& dir, std::string_view prefix = {}) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n(e->d_name);
    if (n != "." && n != ".." && n.substr(0, prefix.size()) == prefix) names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

/// What a file is, in words, for "not a regular file" errors.
inline std::string_view file_type_words(mode_t mode) noexcept {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

/// All of a file (more than the cap is an error), or only its first `cap` bytes.
enum class read_extent : unsigned char { whole_file, prefix };

inline error file_read_error(source_kind src, const std::string& path, std::string_view why, int status = 0) {
  return located_error(errc::file_unreadable, src, path, path, why, status);
}

/// Opens `path` into `fd` and fstat()s it into `st`. file_unreadable names the path: open or fstat
/// failed (native_status = errno), or it is no regular file ("not a regular file: a FIFO").
inline std::optional<error> open_regular_file(const std::string& path, source_kind src, fd_guard& fd, struct stat& st) {
  fd.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0) {
    const int e = errno;
    return file_read_error(src, path, errno_text(e), e);
  }
  if (!S_ISREG(st.st_mode))
    return file_read_error(src, path, std::string("not a regular file: ").append(file_type_words(st.st_mode)));
  return std::nullopt;
}

/// Reads a regular file without blocking, at most `cap` bytes. Errors: open_regular_file's, and
/// file_unreadable when a read fails or (whole_file) it is larger than `cap` (/proc files say size 0).
inline expected<std::string, error> read_regular_file(const std::string& path, std::size_t cap, source_kind src,
                                                      read_extent extent = read_extent::whole_file) {
  fd_guard fd;
  struct stat st {};
  if (auto e = open_regular_file(path, src, fd, st)) return unexpected(std::move(*e));
  const auto too_large = [&] {
    return unexpected(file_read_error(
        src, path, "larger than " + std::to_string(cap) + " bytes, the most cuarch reads of this file"));
  };
  if (extent == read_extent::whole_file && st.st_size > 0 && static_cast<unsigned long long>(st.st_size) > cap)
    return too_large();
  // One byte more than the cap tells "exactly cap" from "more" for files whose size fstat does not know.
  const std::size_t want = extent == read_extent::whole_file ? cap + 1 : cap;
  std::string text;
  text.resize(std::min<std::size_t>(want, st.st_size > 0 ? static_cast<std::size_t>(st.st_size) + 1 : 4096));
  std::size_t have = 0;
  while (have < want) {
    if (have == text.size()) text.resize(std::min(want, text.size() * 2));
    const ssize_t got = ::read(fd.fd, &text[have], text.size() - have);
    if (got > 0) {
      have += static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0) break;
    if (errno == EINTR) continue;
    const int e = errno;
    return unexpected(file_read_error(src, path, errno_text(e), e));
  }
  text.resize(have);
  if (extent == read_extent::whole_file && have > cap) return too_large();
  return text;
}

}  // namespace detail
CUARCH_END_NAMESPACE
