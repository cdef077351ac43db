// A fixed-capacity, constexpr string: lets pure functions build text (arch spellings, error
// subjects) without allocating, so they also work inside static_assert under C++17.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

template <std::size_t Capacity>
class text {
 public:
  constexpr text() = default;
  constexpr text(std::string_view s) { append(s); }               // NOLINT: implicit, like a string
  constexpr text(const char* s) { append(std::string_view(s)); }  // NOLINT
  text(const std::string& s) { append(std::string_view(s)); }     // NOLINT

  /// Appends as much of s as fits; a cut-off end is marked with "..." so it is never silent, and
  /// the cut falls between words (or at least between UTF-8 characters), never inside one.
  constexpr text& append(std::string_view s) {
    for (char c : s) {
      if (cut()) break;
      if (size_ == Capacity) {
        mark_truncated();
        break;
      }
      data_[size_++] = c;
    }
    return *this;
  }
  constexpr text& append(char c) { return append(std::string_view(&c, 1)); }
  constexpr text& append_int(long long v) {
    const unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    if (v < 0) append('-');
    if (u >= 10) append_int(static_cast<long long>(u / 10));
    return append(static_cast<char>('0' + u % 10));
  }

  constexpr std::string_view view() const noexcept { return {data_, size_}; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  std::string str() const { return std::string(view()); }

 private:
  // A cut text keeps a mark past its terminating NUL (data_[Capacity], never read as text once the
  // text is shorter), so later appends stop without growing the type: sizeof(error) is pinned.
  constexpr bool cut() const noexcept { return data_[Capacity] != '\0'; }
  constexpr void mark_truncated() {
    if (Capacity < 4) return;
    std::size_t at = Capacity - 3;  // where "..." starts: after the last whole word, if one ends in the last 24 bytes
    for (std::size_t i = at; i > 0 && at - i < 24; --i)
      if (data_[i] == ' ') {
        at = i;
        break;
      }
    while (at > 0 && (static_cast<unsigned char>(data_[at]) & 0xC0u) == 0x80u) --at;  // not inside a UTF-8 character
    data_[at] = data_[at + 1] = data_[at + 2] = '.';
    size_ = at + 3;
    data_[size_] = '\0';
    data_[Capacity] = '\1';
  }

  char data_[Capacity + 1]{};  // +1 keeps a terminating NUL for C APIs (and, past it, the cut mark)
  std::size_t size_ = 0;
};

/// Input echoed in a message (an option's value, a variable's): at most `keep` bytes of it, cut between
/// UTF-8 characters, and when longer a mark that says how much was cut ("xxx... (96880 more bytes)").
inline std::string echoed(std::string_view s, std::size_t keep = 120) {
  if (s.size() <= keep) return std::string(s);
  std::size_t end = keep;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end)) + "... (" + std::to_string(s.size() - end) + " more bytes)";
}

/// `value` in single quotes, as a POSIX shell reads it back verbatim (each ' written '\'').
inline std::string single_quoted(std::string_view value) {
  std::string out = "'";
  for (const char ch : value) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// How much of a path echoed() keeps in words: real toolkit paths are under 200 bytes, and a 100 kB
/// garbage value is not repeated in every line that says where something was found.
inline constexpr std::size_t path_words = 512;

}  // namespace detail
CUARCH_END_NAMESPACE
