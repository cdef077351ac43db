// UTF-8 for output: cuarch reports paths, environment values and tool output, which are bytes,
// not text. These helpers find where bytes stop being UTF-8 so writers can replace them (JSON)
// or show them escaped (terminal text), never pass them on raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// One step of strict UTF-8 decoding (RFC 3629: shortest form, no surrogates, at most U+10FFFF).
struct utf8_step {
  std::size_t length = 0;   // bytes consumed (at least 1)
  bool valid = false;       // false: these bytes are one "maximal subpart" to replace with one U+FFFD
  char32_t code_point = 0;  // when valid
};

/// Decodes the character at s[at]. An invalid sequence consumes its maximal subpart (the lead
/// byte and the continuation bytes that fit it), as the Unicode standard recommends and as
/// Python's errors="replace" and browsers do: "\xe2\x82" is one replacement, "\xc0\xaf" two.
constexpr utf8_step decode_utf8(std::string_view s, std::size_t at) noexcept {
  const auto b = static_cast<unsigned char>(s[at]);
  if (b < 0x80) return {1, true, b};
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  char32_t cp = 0;
  if (b >= 0xC2 && b <= 0xDF) need = 1, cp = b & 0x1Fu;
  else if (b == 0xE0) need = 2, lo = 0xA0, cp = 0;
  else if (b == 0xED) need = 2, hi = 0x9F, cp = 0xD;
  else if (b >= 0xE1 && b <= 0xEF) need = 2, cp = b & 0x0Fu;
  else if (b == 0xF0) need = 3, lo = 0x90, cp = 0;
  else if (b == 0xF4) need = 3, hi = 0x8F, cp = 4;
  else if (b >= 0xF1 && b <= 0xF3) need = 3, cp = b & 0x07u;
  else return {1, false, 0};
  std::size_t n = 1;
  for (; n <= need; ++n) {
    if (at + n >= s.size()) return {n, false, 0};
    const auto c = static_cast<unsigned char>(s[at + n]);
    const unsigned char min = n == 1 ? lo : 0x80, max = n == 1 ? hi : 0xBF;
    if (c < min || c > max) return {n, false, 0};
    cp = (cp << 6) | (c & 0x3Fu);
  }
  return {n, true, cp};
}

/// Control characters: C0, DEL and C1. Valid UTF-8, but they move cursors, recolour terminals or
/// end lines when shown raw.
constexpr bool is_control(char32_t cp) noexcept { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

inline void append_hex_byte(std::string& out, unsigned char b) {
  static constexpr char digits[] = "0123456789abcdef";
  out += digits[b >> 4];
  out += digits[b & 0xF];
}

/// Lower-case hex of every byte, e.g. "2fff" for "/\xff": how JSON keeps bytes that are not text.
inline std::string hex_bytes(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (const char c : raw) append_hex_byte(out, static_cast<unsigned char>(c));
  return out;
}

/// The text for a terminal: valid printable UTF-8 as is; control characters as \n, \t, \r, \e
/// or \xNN; bytes that are not UTF-8 as \xNN (so the raw bytes stay readable). Backslashes are
/// kept as they are: this is for people; the JSON report is the exact form. `keep_line_breaks`:
/// '\n' stays a line break: what every command line prints on stderr goes through it, so a control
/// character from any input (an argument, a variable, a tool's output) reaches the terminal escaped.
inline std::string printable(std::string_view s, bool keep_line_breaks = false) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const utf8_step step = decode_utf8(s, i);
    const char32_t c = step.valid ? step.code_point : 0;
    if (step.valid && (!is_control(c) || (c == '\n' && keep_line_breaks))) out.append(s.substr(i, step.length));
    else if (c == '\n' || c == '\t' || c == '\r' || c == 0x1B)
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : "\\e";
    else
      for (std::size_t k = 0; k < step.length; ++k) {
        out += "\\x";
        append_hex_byte(out, static_cast<unsigned char>(s[i + k]));
      }
    i += step.length;
  }
  return out;
}

}  // namespace detail
CUARCH_END_NAMESPACE
