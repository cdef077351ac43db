// The one JSON reader (version.json, `kubectl get nodes -o json`), apart from the writer
// (json.hpp): the resolve layer writes JSON, only detection and the inventory read it.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "chars.hpp"
#include "utf8.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// Where and why a JSON text is not RFC 8259 JSON, or not what cuarch reads: a duplicate key.
struct json_syntax_error {
  std::size_t offset = 0;  // of the byte where it went wrong
  std::size_t line = 1;
  std::string what;  // "a lone surrogate \ud800", "duplicate key \"kind\""
  /// "line 2, offset 41: duplicate key \"kind\"".
  std::string message() const {
    return "line " + std::to_string(line) + ", offset " + std::to_string(offset) + ": " + what;
  }
};

/// The one JSON reader (version.json, `kubectl get nodes -o json`), streaming: it hands `h` every
/// string by its path, object keys joined by '.', array elements indexed ("cuda_nvcc.version",
/// "items[0].metadata.name"), as h.string(path, value), and says when each value ends,
/// h.end(path, is_object); numbers, booleans and null are checked and skipped. Strings are decoded
/// per RFC 8259 (\uXXXX to UTF-8, surrogate pairs joined). Refused, with the line and offset: a
/// malformed text, a bad escape or a lone surrogate, a duplicate key in one object (the last
/// would silently win), nesting deeper than 32. Time and memory are linear in the text: the path
/// is one string grown and cut back, and each object's keys are checked once, sorted, when it closes.
template <class Handler>
class json_reader {
 public:
  static std::optional<json_syntax_error> read(std::string_view text, Handler& h) {
    json_reader r(text, h);
    if (r.value(0) && (r.skip_ws(), r.pos_ == r.text_.size() || r.fail("text after the JSON value")))
      return std::nullopt;
    json_syntax_error e = std::move(r.error_);
    for (std::size_t i = 0; i < e.offset && i < text.size(); ++i) e.line += text[i] == '\n';
    return e;
  }

 private:
  json_reader(std::string_view t, Handler& h) : text_(t), h_(h) {}
  bool fail(std::string what, std::size_t at = static_cast<std::size_t>(-1)) {
    if (error_.what.empty()) {
      error_.offset = at == static_cast<std::size_t>(-1) ? pos_ : at;
      error_.what = std::move(what);
    }
    return false;
  }
  void skip_ws() {  // RFC 8259's four: space, tab, line feed, carriage return
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  static int hex(char c) noexcept {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  }
  /// The four hex digits after "\u" at pos_, or -1.
  long hex4() {
    if (pos_ + 4 > text_.size()) return -1;
    long v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      const int d = hex(text_[pos_ + i]);
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    pos_ += 4;
    return v;
  }
  static void append_utf8(std::string& s, unsigned long cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool string(std::string& s) {
    if (!eat('"')) return fail("a string was expected");
    while (pos_ < text_.size()) {
      const std::size_t at = pos_;
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("a raw control character in a string (it must be escaped)", at);
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char esc = text_[pos_++];
      switch (esc) {
        case '"': s += '"'; continue;
        case '\\': s += '\\'; continue;
        case '/': s += '/'; continue;
        case 'b': s += '\b'; continue;
        case 'f': s += '\f'; continue;
        case 'n': s += '\n'; continue;
        case 'r': s += '\r'; continue;
        case 't': s += '\t'; continue;
        case 'u': break;
        default: return fail(std::string("a bad escape \\") + (static_cast<unsigned char>(esc) < 0x20 ? '?' : esc), at);
      }
      long cp = hex4();
      if (cp < 0) return fail("a bad escape \\u (four hex digits must follow)", at);
      if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a lone surrogate " + std::string(text_.substr(at, 6)), at);
      if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: a low one must follow
        const long low = text_.substr(pos_, 2) == "\\u" ? (pos_ += 2, hex4()) : -1;
        if (low < 0xDC00 || low > 0xDFFF) return fail("a lone surrogate " + std::string(text_.substr(at, 6)), at);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      append_utf8(s, static_cast<unsigned long>(cp));
    }
    return fail("the text ends inside a string");
  }
  /// RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  bool number() {
    const std::size_t start = pos_;
    const auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      return pos_ > from;
    };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') ++pos_;
    else if (!digits()) return fail("a value was expected", start);
    if (pos_ < text_.size() && text_[pos_] == '.' && (++pos_, !digits())) return fail("a malformed number", start);
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) return fail("a malformed number", start);
    }
    return true;
  }
  bool value(int depth) {
    if (depth > 32) return fail("nesting deeper than 32");
    skip_ws();
    if (pos_ >= text_.size()) return fail("the text ends where a value was expected");
    const char c = text_[pos_];
    if (c == '{' || c == '[') return container(depth, c == '{');
    if (c == '"') {
      std::string s;
      if (!string(s)) return false;
      h_.string(path_, std::move(s));
      h_.end(path_, false);
      return true;
    }
    for (const std::string_view word : {"true", "false", "null"})
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        h_.end(path_, false);
        return true;
      }
    if (!number()) return false;
    h_.end(path_, false);
    return true;
  }
  bool container(int depth, bool object) {
    ++pos_;
    const std::size_t base = path_.size();
    std::vector<std::pair<std::string, std::size_t>> keys;  // this object's keys, where each is
    if (!eat(object ? '}' : ']')) {
      for (std::size_t index = 0;; ++index) {
        if (object) {
          skip_ws();
          const std::size_t at = pos_;
          std::string key;
          if (!string(key)) return false;
          if (!eat(':')) return fail("':' was expected after a key");
          path_.append(base ? "." : "").append(key);
          keys.emplace_back(std::move(key), at);
        } else {
          path_.append("[").append(std::to_string(index)).append("]");
        }
        if (!value(depth + 1)) return false;
        path_.resize(base);
        if (eat(',')) continue;
        if (eat(object ? '}' : ']')) break;
        return fail(object ? "',' or '}' was expected" : "',' or ']' was expected");
      }
    }
    if (object) {  // sorted by key, then place: the second of two equal keys is named
      std::sort(keys.begin(), keys.end());
      for (std::size_t i = 1; i < keys.size(); ++i)
        if (keys[i].first == keys[i - 1].first)
          return fail("duplicate key \"" + printable(keys[i].first) + "\"", keys[i].second);
    }
    h_.end(path_, object);
    return true;
  }

  std::string_view text_;
  Handler& h_;
  std::size_t pos_ = 0;
  std::string path_;
  json_syntax_error error_;
};

/// Every string member of a JSON text by its path (json_reader): version.json's few members.
class json_strings {
 public:
  static std::optional<std::map<std::string, std::string>> read(std::string_view text) {
    json_strings j;
    if (json_reader<json_strings>::read(text, j)) return std::nullopt;
    return std::move(j.out_);
  }
  void string(const std::string& path, std::string&& value) { out_[path] = std::move(value); }
  void end(const std::string&, bool) {}

 private:
  std::map<std::string, std::string> out_;
};

}  // namespace detail
CUARCH_END_NAMESPACE
