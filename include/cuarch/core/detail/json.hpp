// The one JSON writer of cuarch's reports (doctor --json, resolve --format json), and what every
// document shares (its head, the error object). The reader is json_reader.hpp: only detection
// reads JSON, so what every includer of the resolve layer parses stays without it.
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
    std::size_t plain = i;  // printable ASCII but '"' and '\\' is written as it is, a run at a time
    while (plain < s.size() && s[plain] >= 0x20 && s[plain] < 0x7F && s[plain] != '"' && s[plain] != '\\') ++plain;
    out.append(s.data() + i, plain - i);
    if ((i = plain) == s.size()) break;
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
  return std::to_string(CUARCH_VERSION_MAJOR) + "." + std::to_string(CUARCH_VERSION_MINOR) + "." +
         std::to_string(CUARCH_VERSION_PATCH);
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

}  // namespace detail
CUARCH_END_NAMESPACE
