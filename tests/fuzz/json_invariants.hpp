// What every JSON document cuarch writes must satisfy, shared by the libFuzzer target
// (tests/fuzz/json_fuzz.cpp) and its deterministic replay (tests/json_test.cpp):
//   * the whole document is valid UTF-8 (no stray byte, no cut character, no encoded surrogate);
//   * it is well-formed RFC 8259 JSON, read by a strict reader written here independently of the
//     writer (no lone surrogate escapes, no raw control character, no trailing garbage);
//   * every string handed to the writer comes back: exactly when it was valid UTF-8, otherwise
//     from its "<key>_bytes" sibling (lower-case hex of the raw bytes; see core/detail/json.hpp).
#pragma once

#include <cuarch/core/detail/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuarch_fuzz {

/// Strict UTF-8 (RFC 3629): shortest form, no surrogates, nothing above U+10FFFF.
inline bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b == 0xE0) n = 2, lo = 0xA0;
    else if (b == 0xED) n = 2, hi = 0x9F;
    else if (b >= 0xE1 && b <= 0xEF) n = 2;
    else if (b == 0xF0) n = 3, lo = 0x90;
    else if (b == 0xF4) n = 3, hi = 0x8F;
    else if (b >= 0xF1 && b <= 0xF3) n = 3;
    else return false;
    if (i + n >= s.size()) return false;  // cut in the middle of a character
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return false;
    for (std::size_t k = 2; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (c < 0x80 || c > 0xBF) return false;
    }
    i += n + 1;
  }
  return true;
}

/// A parsed JSON value (a small DOM: enough to compare documents in tests).
struct json_value {
  enum class type { null, boolean, number, string, array, object } kind = type::null;
  std::string text;  // string: decoded UTF-8; number: its spelling; boolean: "true"/"false"
  std::vector<json_value> elements;
  std::vector<std::pair<std::string, json_value>> members;

  const json_value* find(std::string_view key) const {
    for (const auto& m : members)
      if (m.first == key) return &m.second;
    return nullptr;
  }
};

/// A strict RFC 8259 reader. Returns nothing on any deviation.
class strict_json_reader {
 public:
  static std::optional<json_value> read(std::string_view doc) {
    if (!is_valid_utf8(doc)) return std::nullopt;
    strict_json_reader r(doc);
    json_value v;
    r.ws();
    if (!r.value(v, 0)) return std::nullopt;
    r.ws();
    if (r.pos_ != doc.size()) return std::nullopt;
    return v;
  }

 private:
  explicit strict_json_reader(std::string_view d) : d_(d) {}
  bool more() const { return pos_ < d_.size(); }
  char peek() const { return d_[pos_]; }
  void ws() {
    while (more() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }
  bool lit(std::string_view w) {
    if (d_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  bool hex4(unsigned& out) {
    if (pos_ + 4 > d_.size()) return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = d_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') out |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') out |= static_cast<unsigned>(c - 'A' + 10);
      else return false;
    }
    return true;
  }
  static void put_utf8(std::string& s, unsigned cp) {
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
    if (!lit("\"")) return false;
    while (more()) {
      const char c = d_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (!more()) return false;
      const char e = d_[pos_++];
      switch (e) {
        case '"': s += '"'; break;
        case '\\': s += '\\'; break;
        case '/': s += '/'; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a lone low surrogate is no character
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned low = 0;
            if (!lit("\\u") || !hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          put_utf8(s, cp);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool number(std::string& out) {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t at = pos_;
      while (more() && peek() >= '0' && peek() <= '9') ++pos_;
      return pos_ > at;
    };
    if (more() && peek() == '-') ++pos_;
    if (more() && peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (more() && peek() == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (more() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (more() && (peek() == '+' || peek() == '-')) ++pos_;
      if (!digits()) return false;
    }
    out = std::string(d_.substr(start, pos_ - start));
    return true;
  }
  bool value(json_value& v, int depth) {
    if (depth > 64 || !more()) return false;
    const char c = peek();
    if (c == '{') {
      ++pos_;
      v.kind = json_value::type::object;
      ws();
      if (lit("}")) return true;
      for (;;) {
        ws();
        std::string key;
        if (!string(key)) return false;
        ws();
        if (!lit(":")) return false;
        ws();
        json_value member;
        if (!value(member, depth + 1)) return false;
        v.members.emplace_back(std::move(key), std::move(member));
        ws();
        if (lit("}")) return true;
        if (!lit(",")) return false;
      }
    }
    if (c == '[') {
      ++pos_;
      v.kind = json_value::type::array;
      ws();
      if (lit("]")) return true;
      for (;;) {
        ws();
        json_value element;
        if (!value(element, depth + 1)) return false;
        v.elements.push_back(std::move(element));
        ws();
        if (lit("]")) return true;
        if (!lit(",")) return false;
      }
    }
    if (c == '"') {
      v.kind = json_value::type::string;
      return string(v.text);
    }
    if (lit("true") || lit("false")) {
      v.kind = json_value::type::boolean;
      v.text = d_[pos_ - 1] == 'e' && d_[pos_ - 2] == 'u' ? "true" : "false";
      return true;
    }
    if (lit("null")) return true;
    v.kind = json_value::type::number;
    return number(v.text);
  }

  std::string_view d_;
  std::size_t pos_ = 0;
};

inline std::string hex_of(std::string_view raw) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : raw) {
    const auto b = static_cast<unsigned char>(ch);
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
  return out;
}

/// A writer script read from bytes: every string the writer is given (keys and values, nested in
/// objects and arrays) is recorded in an expected tree, so the output can be checked against it.
class json_script {
 public:
  explicit json_script(std::string_view input) : in_(input) {}

  /// Builds the document; returns it and the tree of raw strings it must carry.
  std::pair<std::string, json_value> run() {
    cuarch::detail::json_writer w;
    json_value root;
    root.kind = json_value::type::object;
    w.begin_object();
    object(w, root, 0);
    w.end_object();
    return {w.str(), std::move(root)};
  }

 private:
  std::uint8_t byte() { return pos_ < in_.size() ? static_cast<std::uint8_t>(in_[pos_++]) : 0; }
  std::string text() {
    const std::size_t n = byte() % 24;
    std::string s(in_.substr(pos_, n));
    pos_ += s.size();
    return s;
  }
  void object(cuarch::detail::json_writer& w, json_value& into, int depth) {
    while (pos_ < in_.size()) {
      const std::uint8_t op = byte() % 6;
      if (op == 5) return;  // close this object
      std::string key = text();
      w.key(key);
      json_value v;
      fill(w, v, op, depth);
      into.members.emplace_back(std::move(key), std::move(v));
    }
  }
  void array(cuarch::detail::json_writer& w, json_value& into, int depth) {
    while (pos_ < in_.size()) {
      const std::uint8_t op = byte() % 6;
      if (op == 5) return;
      json_value v;
      fill(w, v, op, depth);
      into.elements.push_back(std::move(v));
    }
  }
  void fill(cuarch::detail::json_writer& w, json_value& v, std::uint8_t op, int depth) {
    if (op >= 3 && depth >= 8) op = 0;
    switch (op) {
      case 0:
        v.kind = json_value::type::string;
        v.text = text();
        w.value(v.text);
        break;
      case 1:
        v.kind = json_value::type::number;
        v.text = std::to_string(static_cast<long long>(byte()) - 128);
        w.value(std::stoll(v.text));
        break;
      case 2:
        if (byte() % 2) {
          w.null();
        } else {
          v.kind = json_value::type::boolean;
          v.text = "true";
          w.value(true);
        }
        break;
      case 3:
        v.kind = json_value::type::object;
        w.begin_object();
        object(w, v, depth + 1);
        w.end_object();
        break;
      default:
        v.kind = json_value::type::array;
        w.begin_array();
        array(w, v, depth + 1);
        w.end_array();
        break;
    }
  }

  std::string_view in_;
  std::size_t pos_ = 0;
};

/// Does `got` (parsed output) carry `want` (what the script gave the writer)? Invalid UTF-8 keys
/// and strings must come with their "_key_bytes" / "_bytes" siblings, right after the member.
inline bool carries(const json_value& want, const json_value& got);

inline bool carries_string(const std::string& raw, const json_value& got) {
  if (got.kind != json_value::type::string) return false;
  return is_valid_utf8(raw) ? got.text == raw : got.text != raw;
}

inline bool carries_object(const json_value& want, const json_value& got) {
  if (got.kind != json_value::type::object) return false;
  std::size_t i = 0;
  auto next_is = [&](const std::string& key, const json_value& hex_or_list) -> bool {
    return i < got.members.size() && got.members[i].first == key && carries(hex_or_list, got.members[i].second) &&
           (++i, true);
  };
  for (const auto& [raw_key, value] : want.members) {
    if (i >= got.members.size()) return false;
    const std::string written_key = got.members[i].first;
    if (is_valid_utf8(raw_key) && written_key != raw_key) return false;
    if (!carries(value, got.members[i].second)) return false;
    ++i;
    if (!is_valid_utf8(raw_key)) {
      json_value hex;
      hex.kind = json_value::type::string;
      hex.text = hex_of(raw_key);
      if (!next_is(written_key + "_key_bytes", hex)) return false;
    }
    if (value.kind == json_value::type::string && !is_valid_utf8(value.text)) {
      json_value hex;
      hex.kind = json_value::type::string;
      hex.text = hex_of(value.text);
      if (!next_is(written_key + "_bytes", hex)) return false;
    }
    if (value.kind == json_value::type::array) {
      json_value list;
      list.kind = json_value::type::array;
      bool any = false;
      for (const auto& e : value.elements) {
        json_value item;  // null for an element that needed no recovery
        if (e.kind == json_value::type::string && !is_valid_utf8(e.text)) {
          item.kind = json_value::type::string;
          item.text = hex_of(e.text);
          any = true;
        }
        list.elements.push_back(std::move(item));
      }
      if (any && !next_is(written_key + "_bytes", list)) return false;
    }
  }
  return i == got.members.size();
}

inline bool carries(const json_value& want, const json_value& got) {
  switch (want.kind) {
    case json_value::type::string: return carries_string(want.text, got);
    case json_value::type::object: return carries_object(want, got);
    case json_value::type::array:
      if (got.kind != json_value::type::array || got.elements.size() != want.elements.size()) return false;
      for (std::size_t k = 0; k < want.elements.size(); ++k)
        if (!carries(want.elements[k], got.elements[k])) return false;
      return true;
    default: return got.kind == want.kind && got.text == want.text;
  }
}

/// The property: whatever bytes the writer is given, its document is valid UTF-8, well-formed, and
/// carries every string (exactly, or recoverably through its _bytes sibling). Returns what is
/// violated, or nullptr; `doc` receives the document.
inline const char* json_writer_violation(std::string_view input, std::string& doc) {
  json_script script(input);
  auto [written, want] = script.run();
  doc = std::move(written);
  if (!is_valid_utf8(doc)) return "output is not valid UTF-8";
  const auto got = strict_json_reader::read(doc);
  if (!got) return "output is not well-formed JSON";
  if (!carries(want, *got)) return "a string given to the writer cannot be recovered from the output";
  return nullptr;
}

}  // namespace cuarch_fuzz
