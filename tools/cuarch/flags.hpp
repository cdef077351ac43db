// How every command declares and reads its options, on top of CLI11, with the rules users expect
// of a command line: a repeated option is an error (unless it is declared repeatable), an option's
// value is never another option (`--archs --format` names --archs), `--` ends the options, and
// values of enumerated options are spelled by the library's name maps (to_string / parse_*).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"

namespace cuarch_cli {

/// "a|b|c" from a name map: the help text of an enumerated option, never a table of its own.
template <class Names>
std::string choices(const Names& all) {
  std::string out;
  for (const auto e : all) out.append(out.empty() ? "" : "|").append(to_string(e));
  return out;
}

/// The options of one command, read after parsing.
class flag_set {
 public:
  explicit flag_set(CLI::App& app) : app_(app) {}

  CLI::App& app() { return app_; }
  std::string name() const { return app_.get_name(); }

  /// An option with one value ("--archs LIST" or "--archs=LIST"). Repeatable ones keep every value.
  CLI::Option* value(const std::string& names, const std::string& value_name, const std::string& description, const std::string& group,
                     bool repeatable = false) {
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
  static std::optional<std::string> leftover(const std::vector<std::string>& remaining, bool options_ended = false) {
    for (const auto& extra : remaining) {
      if (extra == "--" && !options_ended) {  // CLI11 keeps the mark among the leftovers
        options_ended = true;
        continue;
      }
      if (!options_ended && extra.size() > 1 && extra[0] == '-') return "unknown option '" + extra + "'";
      return "unexpected argument '" + extra + "'";
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
};

}  // namespace cuarch_cli
