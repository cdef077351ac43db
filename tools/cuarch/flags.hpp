// How every command declares and reads its options, on top of CLI11, with the rules users expect
// of a command line: a repeated option is an error (unless it is declared repeatable), an option's
// value is never another option (`--archs --format` names --archs), `--` ends the options, and
// values of enumerated options are spelled by the library's name maps (to_string / parse_*).
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "suggest.hpp"

namespace cuarch_cli {

/// "a|b|c" from a name map: the help text of an enumerated option, never a table of its own.
template <class Names>
std::string choices(const Names& all) {
  std::string out;
  for (const auto e : all) out.append(out.empty() ? "" : "|").append(to_string(e));
  return out;
}

/// The literal values an option's value name lists: "LIST|native|all|all-major" -> native, all,
/// all-major (the words in capitals are placeholders). What completion offers, and what a mistyped
/// value is compared with: the help's own text, so the three cannot drift apart.
inline std::vector<std::string> value_words(const std::string& value_name) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= value_name.size()) {
    const std::size_t end = std::min(value_name.find('|', begin), value_name.size());
    const std::string word = value_name.substr(begin, end - begin);
    const bool literal = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
             c == '.';
    });
    if (literal) out.push_back(word);
    begin = end + 1;
  }
  return out;
}

/// The commands of the program, in the order the help lists them.
inline std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) out.push_back(sub->get_name());
  return out;
}

/// The long names of an app's options ("--archs"), in the order they were declared.
inline std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

/// "unknown option '--arch=9.0'; did you mean '--archs'?": the option part (before any '=') compared
/// with the app's long options.
inline std::string unknown_option(const CLI::App& app, const std::string& typed) {
  const std::string name = typed.substr(0, typed.find('='));
  return "unknown option '" + typed + "'" +
         (name.size() > 2 && name[1] == '-' ? did_you_mean(name, long_options(app)) : "");
}

/// Reads a --format text|json option (list, check, inspect, doctor) into `json`; the usage error's
/// status, if it is wrong.
inline std::optional<int> read_format(const char* command, const CLI::Option* option, bool& json) {
  const auto text = option->results().empty() ? std::nullopt : std::optional<std::string>(option->results().back());
  if (!text || *text == "text") return std::nullopt;
  if (*text == "json") {
    json = true;
    return std::nullopt;
  }
  return usage_error(command, "--format must be text|json, not '" + *text + "'" +
                                  did_you_mean(*text, value_words(option->get_type_name())));
}

/// The options of one command, read after parsing.
class flag_set {
 public:
  explicit flag_set(CLI::App& app) : app_(app) {}

  CLI::App& app() { return app_; }
  std::string name() const { return app_.get_name(); }

  /// An option with one value ("--archs LIST" or "--archs=LIST"). Repeatable ones keep every value.
  CLI::Option* value(const std::string& names, const std::string& value_name, const std::string& description,
                     const std::string& group, bool repeatable = false) {
    CLI::Option* o = app_.add_option(names, CLI::callback_t{}, description);
    o->type_name(value_name)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->group(group);
    if (repeatable) repeatable_.insert(o);
    return o;
  }
  /// The arguments that are not options (and everything after --), in order.
  CLI::Option* positionals(const std::string& name, const std::string& value_name, const std::string& description) {
    CLI::Option* o = app_.add_option(name, CLI::callback_t{}, description);
    o->type_name(value_name)
        ->expected(1, CLI::detail::expected_max_vector_size)
        ->allow_extra_args()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    repeatable_.insert(o);
    return o;
  }
  /// A flag without a value ("--json").
  CLI::Option* flag(const std::string& names, const std::string& description, const std::string& group) {
    CLI::Option* o = app_.add_flag(names, description);
    o->group(group);
    return o;
  }

  /// What an argument the command does not take might have meant: `cuarch env torch` -> "; did you
  /// mean '--for torch'?" (empty: no idea).
  void on_unexpected(std::function<std::string(const std::string&)> hint) { unexpected_hint_ = std::move(hint); }

  static bool given(const CLI::Option* o) { return o->count() > 0; }
  /// The value of a non-repeatable option, if given.
  static std::optional<std::string> get(const CLI::Option* o) {
    if (o->results().empty()) return std::nullopt;
    return o->results().back();
  }
  static const std::vector<std::string>& all(const CLI::Option* o) { return o->results(); }

  /// After parsing: the first misuse, as a message for usage_error, or nullopt. Checks repeated
  /// options, values that are options, and leftovers (unknown options, unexpected arguments).
  std::optional<std::string> misuse() const {
    for (const CLI::Option* o : app_.get_options()) {
      if (o->count() > 1 && repeatable_.count(o) == 0)
        return "option " + spelling(o) + " was given " + std::to_string(o->count()) + " times; give it once";
      if (o->get_type_size() == 0) continue;  // a flag
      for (const auto& v : o->results())
        if (is_option(v))
          return "option " + spelling(o) + " needs a value, but was followed by the option '" + v +
                 "' (to pass that text as the value, write " + spelling(o) + "=" + v + ")";
    }
    return leftover(app_.remaining());
  }

  /// The first argument nobody took, as a message: an unknown option, or an unexpected argument
  /// (anything after `--`, or a positional where the command takes none). `options_ended`: the
  /// arguments come from after a `--` that CLI11 already took away.
  std::optional<std::string> leftover(const std::vector<std::string>& remaining, bool options_ended = false) const {
    for (const auto& extra : remaining) {
      if (extra == "--" && !options_ended) {  // CLI11 keeps the mark among the leftovers
        options_ended = true;
        continue;
      }
      if (!options_ended && extra.size() > 1 && extra[0] == '-') return unknown_option(app_, extra);
      return "unexpected argument '" + extra + "'" + (unexpected_hint_ ? unexpected_hint_(extra) : "");
    }
    return std::nullopt;
  }

 private:
  // The name users see: the long one.
  static std::string spelling(const CLI::Option* o) {
    if (!o->get_lnames().empty()) return "--" + o->get_lnames().front();
    if (!o->get_snames().empty()) return "-" + o->get_snames().front();
    return o->get_name();
  }
  // One of this command's options (--name, --name=..., -x), or the end-of-options mark.
  bool is_option(std::string_view v) const {
    if (v == "--") return true;
    for (const CLI::Option* o : app_.get_options()) {
      for (const auto& l : o->get_lnames()) {
        const std::string s = "--" + l;
        if (v == s || v.substr(0, s.size() + 1) == s + "=") return true;
      }
      for (const auto& sn : o->get_snames())
        if (v == "-" + sn) return true;
    }
    return false;
  }

  CLI::App& app_;
  std::set<const CLI::Option*> repeatable_;
  std::function<std::string(const std::string&)> unexpected_hint_;
};

}  // namespace cuarch_cli
