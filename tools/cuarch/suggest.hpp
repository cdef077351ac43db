// "Did you mean": the names nearest a mistyped one, as git, cargo and pip suggest. The names come
// from where they are registered (CLI11's table of commands and options, the library's name maps),
// never from a list of this file's own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cuarch_cli {

/// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: "reslove" is one
/// swap from "resolve" (the optimal string alignment distance).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// "; did you mean 'resolve'?" (with `spell` applied to the name: "'--archs'", "'--for torch'") for the
/// names of `names` nearest `typed`, or "" when none is near: at most a third of the typed length
/// away (at least 1), so that a typo is answered and an unrelated word is not.
template <class Spell>
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& names, Spell spell) {
  const std::size_t most = std::max<std::size_t>(1, typed.size() / 3);
  std::size_t best = most;
  std::vector<std::string> nearest;
  for (const auto& name : names) {
    const std::size_t d = edit_distance(typed, name);
    if (d == 0 || d > best) continue;  // d == 0: the name is right, the error is elsewhere
    if (d < best) nearest.clear();
    best = d;
    if (std::find(nearest.begin(), nearest.end(), name) == nearest.end()) nearest.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < nearest.size(); ++i)
    out.append(i == 0                    ? "; did you mean '"
               : i + 1 == nearest.size() ? " or '"
                                         : ", '")
        .append(spell(nearest[i]))
        .append("'");
  return out.empty() ? out : out + "?";
}

inline std::string did_you_mean(std::string_view typed, const std::vector<std::string>& names) {
  return did_you_mean(typed, names, [](const std::string& n) { return n; });
}

}  // namespace cuarch_cli
