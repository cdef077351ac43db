// The one JSON writer of cuarch's reports (doctor --json, resolve --format json), what every
// document shares (its head, the error object), and the one reader (json_strings, at the end:
// version.json, kubectl's node list).
//
// Its documents are always valid UTF-8 and well-formed RFC 8259 JSON, whatever bytes they are
// given: paths, environment values and tool output are bytes, not text.
//   * Valid UTF-8 is written as is, except control characters (C0, DEL, C1) and U+2028/U+2029,
//     which are escaped (\n, \t, \u001b, ...), so a report is safe to print and to embed in JS.
//   * A string that is not valid UTF-8 (a non-UTF-8 path, a text cut in the middle of a character)
//     is written with each invalid sequence replaced by U+FFFD (one per maximal subpart, as Python's
//     errors="replace" does), and its raw bytes stay in the document as lower-case hex:
//       - an object member "k" gets a sibling member "k_bytes" right after it:
//           {"path":"/opt/\uFFFD/cuda","path_bytes":"2f6f70742fff2f63756461"}
//       - strings directly in an array that is member "k" get a parallel array "k_bytes" after it,
//         null where an element was valid: {"list":["ok","\uFFFD"],"list_bytes":[null,"ff"]}
//       - a key that is not valid UTF-8 gets "<key as written>_key_bytes" after its value.
//     The siblings appear only when something was replaced, so consumers that know the value is
//     ASCII never see them. (Strings in an array nested directly in an array, and a top-level
//     string, have no key to hang a sibling on; cuarch writes neither.)
// Why not \u00XX escapes for the bad bytes: a standard parser turns them into Latin-1 characters,
// a different but valid-looking path. U+FFFD is visibly "not this", and the hex is exact.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../errc.hpp"
#include "../error.hpp"
#include "../version.hpp"
#include "chars.hpp"
#include "utf8.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// Appends s as a JSON string (quotes included); returns false if s was not valid UTF-8 (then
/// invalid sequences were replaced by U+FFFD, and the caller keeps the raw bytes).
inline bool append_json_string(std::string& out, std::string_view s) {
  bool valid = true;
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const utf8_step step = decode_utf8(s, i);
    if (!step.valid) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      valid = false;
    } else {
      switch (step.code_point) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (is_control(step.code_point) || step.code_point == 0x2028 || step.code_point == 0x2029) {
            out += "\\u";
            append_hex_byte(out, static_cast<unsigned char>(step.code_point >> 8));
            append_hex_byte(out, static_cast<unsigned char>(step.code_point & 0xFF));
          } else {
            out.append(s.substr(i, step.length));
          }
      }
    }
    i += step.length;
  }
  out += '"';
  return valid;
}

/// Builds one JSON document. Keys, commas and the "_bytes" siblings are managed; the caller opens
/// and closes scopes.
class json_writer {
 public:
  json_writer& begin_object() { return open(false); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open(true); }
  json_writer& end_array() { return close(']'); }
  json_writer& key(std::string_view k) {
    comma();
    frame* f = top();
    const std::size_t start = out_.size() + 1;
    const bool valid = append_json_string(out_, k);
    if (f) {
      f->key.assign(out_, start, out_.size() - 1 - start);  // the key as written, without quotes
      if (!valid) sibling(*f, "_key_bytes", '"' + hex_bytes(k) + '"');
    }
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  json_writer& value(std::string_view s) {
    comma();
    const bool valid = append_json_string(out_, s);
    if (frame* f = top()) {
      if (f->is_array) {
        f->element_bytes.push_back(valid ? std::string() : hex_bytes(s));
      } else if (!valid) {
        sibling(*f, "_bytes", '"' + hex_bytes(s) + '"');
      }
    }
    return done();
  }
  json_writer& value(const std::string& s) { return value(std::string_view(s)); }
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  json_writer& value(long long n) { return literal(std::to_string(n)); }
  json_writer& value(int n) { return value(static_cast<long long>(n)); }
  json_writer& value(bool b) { return literal(b ? "true" : "false"); }
  json_writer& null() { return literal("null"); }
  /// [x, ...]
  template <class T>
  json_writer& value(const std::vector<T>& items) {
    begin_array();
    for (const T& x : items) value(x);
    return end_array();
  }
  /// The list, or null when there is none (e.g. "supported_sm_numbers" of a compiler without one).
  json_writer& value(const std::optional<std::vector<int>>& numbers) { return numbers ? value(*numbers) : null(); }
  const std::string& str() const { return out_; }

 private:
  struct frame {
    bool is_array = false;
    bool first = true;
    std::string key;                         // objects: the current member's key, as written
    std::string pending;                     // objects: siblings to write after the current member
    std::vector<std::string> element_bytes;  // arrays: hex of each string element ("" = valid, or not a string)
  };

  frame* top() { return stack_.empty() ? nullptr : &stack_.back(); }
  /// A number, true, false or null.
  json_writer& literal(std::string_view text) {
    comma();
    out_ += text;
    return element_done();
  }
  void sibling(frame& f, std::string_view suffix, const std::string& json_value) {
    // The key as written is already valid, escaped JSON string content.
    f.pending.append(",\"").append(f.key).append(suffix).append("\":").append(json_value);
  }
  /// A non-string value completed: in an array it is an element with nothing to recover.
  json_writer& element_done() {
    if (frame* f = top(); f && f->is_array) f->element_bytes.emplace_back();
    return done();
  }
  /// A value completed: an object member's siblings follow it.
  json_writer& done() {
    if (frame* f = top(); f && !f->is_array && !f->pending.empty()) {
      out_ += f->pending;
      f->pending.clear();
    }
    return *this;
  }
  json_writer& open(bool is_array) {
    comma();
    out_ += is_array ? '[' : '{';
    frame f;
    f.is_array = is_array;
    stack_.push_back(std::move(f));
    return *this;
  }
  json_writer& close(char c) {
    out_ += c;
    if (stack_.empty()) return *this;
    frame closed = std::move(stack_.back());
    stack_.pop_back();
    frame* parent = top();
    if (!parent) return *this;
    if (parent->is_array) return element_done();
    const auto& bytes = closed.element_bytes;
    if (std::any_of(bytes.begin(), bytes.end(), [](const std::string& b) { return !b.empty(); })) {
      std::string list = "[";
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (i) list += ',';
        list += bytes[i].empty() ? std::string("null") : '"' + bytes[i] + '"';
      }
      sibling(*parent, "_bytes", list + "]");
    }
    return done();
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (frame* f = top()) {
      if (!f->first) out_ += ',';
      f->first = false;
    }
  }

  std::string out_;
  std::vector<frame> stack_;
  bool after_key_ = false;
};

}  // namespace detail

// The head of every JSON document cuarch prints: its schema id and the cuarch version that wrote
// it, always the first two members, so a reader can decide whether it understands the document
// before reading anything else. The ids and the versioning rule are in docs/json.md; each id has a
// JSON Schema in docs/schema/ (cuarch.resolve/1 -> docs/schema/cuarch.resolve-1.schema.json).

/// The schema ids of cuarch's JSON documents. "/1" changes only when a member is removed or
/// renamed, or changes its type or meaning (docs/json.md); adding members keeps it.
namespace json_schema {
inline constexpr std::string_view resolve = "cuarch.resolve/1";  // cuarch resolve --format json, Python to_json()
inline constexpr std::string_view doctor = "cuarch.doctor/1";    // cuarch doctor --json, cuarch.doctor()
inline constexpr std::string_view list = "cuarch.list/1";        // cuarch list --format json
inline constexpr std::string_view check = "cuarch.check/1";      // cuarch check --format json
inline constexpr std::string_view error = "cuarch.error/1";      // a command line that could not be understood
inline constexpr std::string_view env = "cuarch.env/1";          // cuarch env --for TOOL --format json, cuarch.env()
inline constexpr std::string_view inspect = "cuarch.inspect/1";  // cuarch inspect --format json, cuarch.inspect()
}  // namespace json_schema

/// "0.1.0": the version of this cuarch (core/version.hpp).
inline std::string cuarch_version_text() {
  return std::to_string(CUARCH_VERSION_MAJOR) + "." + std::to_string(CUARCH_VERSION_MINOR) + "." + std::to_string(CUARCH_VERSION_PATCH);
}

namespace detail {

/// Opens a document's object and writes its first members, "schema" and "cuarch_version"; the
/// caller adds the rest and closes the object.
inline json_writer& begin_document(json_writer& w, std::string_view schema) {
  return w.begin_object().key("schema").value(schema).key("cuarch_version").value(cuarch_version_text());
}

/// One JSON shape for a cuarch::error, shared by every report: the members and their meaning are in
/// docs/json.md, "The error object"; everything comes from classify() (core/errc.hpp).
inline void json_error(json_writer& w, const error& e, const option_speller& spell = {}) {
  const errc_class c = classify(e.code);
  w.begin_object();
  w.key("code").value(c.name);
  w.key("kind").value(c.name);
  w.key("title").value(c.title);
  w.key("errc").value(static_cast<int>(e.code));
  w.key("exit_status").value(static_cast<int>(c.exit));
  w.key("source").value(to_string(e.source));
  w.key("subject").value(e.subject.view());
  w.key("location").value(e.location.view());
  w.key("raw").value(e.raw.view());
  w.key("native_status").value(e.native_status);
  w.key("message").value(e.message(spell));
  w.end_object();
}

/// The error, or null: the value of every "error"/"reason" key. `e` is a std::optional<error> or
/// anything that reads like one (bool, *).
template <class OptionalError>
void json_optional_error(json_writer& w, const OptionalError& e, const option_speller& spell = {}) {
  if (e) json_error(w, *e, spell);
  else w.null();
}

/// A target's form as the documents name it (a target's "form", an image's "kind"): arch_form's order.
inline constexpr std::string_view form_names[] = {"sass", "ptx", "lto"};

/// [{...}, ...]: one object per item, its members written by `members(item)`.
template <class Range, class Members>
void json_objects(json_writer& w, const Range& items, Members&& members) {
  w.begin_array();
  for (const auto& item : items) {
    w.begin_object();
    members(item);
    w.end_object();
  }
  w.end_array();
}

/// The index, or null when there is none.
inline json_writer& json_index(json_writer& w, const std::optional<std::size_t>& i) {
  return i ? w.value(static_cast<long long>(*i)) : w.null();
}

/// `s`, or null when it is empty.
inline json_writer& text_or_null(json_writer& w, std::string_view s) { return s.empty() ? w.null() : w.value(s); }
/// to_text(*v), or null when there is none.
template <class T>
json_writer& text_or_null(json_writer& w, const std::optional<T>& v) {
  return v ? w.value(to_text(*v).view()) : w.null();
}

/// Where and why a JSON text is not RFC 8259 JSON, or not what cuarch reads: a duplicate key.
struct json_syntax_error {
  std::size_t offset = 0;  // of the byte where it went wrong
  std::size_t line = 1;
  std::string what;  // "a lone surrogate \ud800", "duplicate key \"kind\""
  /// "line 2, offset 41: duplicate key \"kind\"".
  std::string message() const { return "line " + std::to_string(line) + ", offset " + std::to_string(offset) + ": " + what; }
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
    if (r.value(0) && (r.skip_ws(), r.pos_ == r.text_.size() || r.fail("text after the JSON value"))) return std::nullopt;
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
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  static int hex(char c) noexcept {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
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
      if (static_cast<unsigned char>(c) < 0x20) return fail("a raw control character in a string (it must be escaped)", at);
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
        if (keys[i].first == keys[i - 1].first) return fail("duplicate key \"" + printable(keys[i].first) + "\"", keys[i].second);
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
