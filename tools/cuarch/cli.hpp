// The `cuarch` command line: shared plumbing. Each command lives in its own cmd_*.cpp and
// registers itself here, so commands stay independent of each other.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

namespace cuarch_cli {

// Exit codes (DESIGN §4.6).
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  // resolution / validation failed; reasons on stderr
inline constexpr int exit_usage = 2;   // bad usage or malformed input

/// The arguments after the command name, consumed as options are recognised.
class arguments {
 public:
  explicit arguments(std::vector<std::string> a) : args_(std::move(a)) {}

  /// Takes "--name VALUE" or "--name=VALUE"; nullopt if absent. A missing value is a usage error,
  /// reported through missing_value().
  std::optional<std::string> take(std::string_view name) {
    for (std::size_t i = 0; i < args_.size(); ++i) {
      const std::string& a = args_[i];
      if (a == name) {
        if (i + 1 >= args_.size()) {
          missing_value_ = std::string(name);
          args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i));
          return std::nullopt;
        }
        std::string v = args_[i + 1];
        args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i), args_.begin() + static_cast<std::ptrdiff_t>(i) + 2);
        return v;
      }
      if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
        std::string v = a.substr(name.size() + 1);
        args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i));
        return v;
      }
    }
    return std::nullopt;
  }
  /// Takes a flag without value ("--json").
  bool flag(std::string_view name) {
    for (std::size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == name) {
        args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    return false;
  }
  /// The option that was given without its value, if any.
  const std::optional<std::string>& missing_value() const { return missing_value_; }
  /// What is left: positional arguments (and unknown options, which callers must reject).
  const std::vector<std::string>& rest() const { return args_; }

 private:
  std::vector<std::string> args_;
  std::optional<std::string> missing_value_;
};

/// Prints "cuarch <command>: <message>" to stderr and returns exit_usage.
inline int usage_error(std::string_view command, std::string_view message) {
  fmt::print(stderr, "cuarch {}: {}\n(see: cuarch {} --help)\n", command, message, command);
  return exit_usage;
}

/// Rejects leftover options ("--bogus") and a missing option value; returns 0 when all is well.
inline int reject_leftovers(std::string_view command, const arguments& args, bool positionals_allowed) {
  if (args.missing_value()) return usage_error(command, "option " + *args.missing_value() + " needs a value");
  for (const auto& a : args.rest()) {
    if (a.size() > 1 && a[0] == '-' && !(a.size() > 1 && a[1] >= '0' && a[1] <= '9'))
      return usage_error(command, "unknown option '" + a + "'");
    if (!positionals_allowed) return usage_error(command, "unexpected argument '" + a + "'");
  }
  return 0;
}

struct command {
  std::string summary;
  std::string help;
  std::function<int(arguments&)> run;
};

inline std::map<std::string, command>& registry() {
  static std::map<std::string, command> commands;
  return commands;
}

/// Registers a command at start-up (one per cmd_*.cpp).
struct register_command {
  register_command(std::string name, std::string summary, std::string help, std::function<int(arguments&)> run) {
    registry().emplace(std::move(name), command{std::move(summary), std::move(help), std::move(run)});
  }
};

}  // namespace cuarch_cli
