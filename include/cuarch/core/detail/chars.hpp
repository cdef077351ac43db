// constexpr character helpers for the parsers (no <cctype>: it is locale-dependent and not constexpr),
// and split(), the one splitter of comma- and colon-separated lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
/// ' ', '\t', '\n', '\v', '\f' or '\r': one bit test (the word scans of nvcc flags run it per character).
constexpr bool is_space(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' && ((std::uint64_t{1} << ' ' | std::uint64_t{0x1F} << '\t') >> u & 1u);
}
constexpr char to_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  return true;
}
constexpr bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }
constexpr bool istarts_with(std::string_view s, std::string_view p) noexcept {
  return iequals(s.substr(0, p.size()), p);
}
constexpr bool ends_with(std::string_view s, std::string_view p) noexcept {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
constexpr std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Reads a run of decimal digits at the front of s (at most 9, so no overflow). Returns the number
/// of characters consumed (0 when s does not start with a digit or the run is too long).
constexpr std::size_t read_uint(std::string_view s, int& out) noexcept {
  // A range loop over at most 10 characters, not s[n] under n < s.size(): g++ 12 at -O3 unrolls the
  // indexed loop past a short literal's end and warns (-Warray-bounds) in every includer.
  std::size_t n = 0;
  int v = 0;
  for (const char c : s.substr(0, 10)) {
    if (!is_digit(c)) break;
    if (n == 9) return 0;
    v = v * 10 + (c - '0');
    ++n;
  }
  if (n > 0) out = v;
  return n;
}

/// The whole of s is one unsigned decimal number.
constexpr bool parse_uint(std::string_view s, int& out) noexcept { return !s.empty() && read_uint(s, out) == s.size(); }

/// The entries of a list separated by `sep`, verbatim: n separators make n + 1 entries, empty ones kept.
inline std::vector<std::string_view> split(std::string_view list, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0, at = 0; at != std::string_view::npos; start = at + 1) {
    at = list.find(sep, start);
    out.push_back(list.substr(start, at - start));  // npos - start: to the end
  }
  return out;
}

}  // namespace detail
CUARCH_END_NAMESPACE
