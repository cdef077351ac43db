// The `cuarch` command line: shared plumbing. Each command lives in its own cmd_*.cpp and registers
// itself here; main.cpp turns the registry into CLI11 subcommands, so commands stay independent.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/core.h>

namespace CLI {
class App;
}

namespace cuarch_cli {

// Exit codes (README, docs/design.md): the same for every command.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  // resolution / validation failed; reasons on stderr
inline constexpr int exit_usage = 2;   // bad usage or malformed input

/// Prints "cuarch <command>: <message>" and where help is to stderr; returns exit_usage.
inline int usage_error(std::string_view command, std::string_view message) {
  fmt::print(stderr, "cuarch {}: {}\n(see: cuarch {} --help)\n", command, message, command);
  return exit_usage;
}

class flag_set;

/// One command: its one-line summary, the help text after the option list, and `setup`, which
/// declares the command's options on its CLI11 subcommand and returns what runs it once the
/// command line has been parsed and checked.
struct command {
  std::string summary;
  std::string footer;
  std::function<std::function<int()>(flag_set&)> setup;
};

inline std::map<std::string, command>& registry() {
  static std::map<std::string, command> commands;
  return commands;
}

/// Registers a command at start-up (one per cmd_*.cpp).
struct register_command {
  register_command(std::string name, command c) { registry().emplace(std::move(name), std::move(c)); }
};

}  // namespace cuarch_cli
