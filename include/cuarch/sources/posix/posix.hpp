// Small POSIX helpers for the edge headers: errno text, real paths, the current directory.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "../../core/config.hpp"

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

/// getcwd(3) as a string; empty on failure.
inline std::string current_directory() {
  std::string buf(4096, '\0');
  if (!::getcwd(buf.data(), buf.size())) return {};
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

}  // namespace detail
CUARCH_END_NAMESPACE
