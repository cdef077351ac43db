// Reading the recorded results of real tools (tests/data/*.tsv): a field escapes a backslash, a tab,
// a newline and a carriage return as \\, \t, \n and \r, so the inputs, which test exactly those
// bytes, survive one line per row (the recorders under scripts/toolkits/ write them so).
#pragma once

#include <string>

inline std::string unescape_tsv_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
  }
  return out;
}
