// A minimal JSON writer for cuarch's reports (doctor --json, resolve --format json). Output only;
// strings are escaped per RFC 8259, so paths and raw tool output are always valid JSON.
#pragma once

#include <string>
#include <string_view>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

inline void append_json_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

/// Builds one JSON document. Keys and commas are managed; the caller opens and closes scopes.
class json_writer {
 public:
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }
  json_writer& key(std::string_view k) {
    comma();
    append_json_string(out_, k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  json_writer& value(std::string_view s) {
    comma();
    append_json_string(out_, s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  json_writer& value(long long n) {
    comma();
    out_ += std::to_string(n);
    return *this;
  }
  json_writer& value(int n) { return value(static_cast<long long>(n)); }
  json_writer& value(bool b) {
    comma();
    out_ += b ? "true" : "false";
    return *this;
  }
  json_writer& null() {
    comma();
    out_ += "null";
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  json_writer& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  json_writer& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_ && !out_.empty()) out_ += ',';
    first_ = false;
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace detail
CUARCH_END_NAMESPACE
