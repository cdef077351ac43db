// cuarch: command-line entry point; dispatches to the registered commands.
#include <cuarch/core/version.hpp>

#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  using namespace cuarch_cli;
  auto print_usage = [](std::FILE* to) {
    fmt::print(to, "usage: cuarch <command> [options]\n\ncommands:\n");
    for (const auto& [name, cmd] : registry()) fmt::print(to, "  {:<9} {}\n", name, cmd.summary);
    fmt::print(to, "\n'cuarch <command> --help' describes a command. Exit codes: 0 ok, 1 failed, 2 bad usage or input.\n");
  };
  if (argc < 2) {
    print_usage(stderr);
    return exit_usage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return exit_ok;
  }
  if (name == "--version") {
    fmt::print("cuarch {}.{}.{}\n", CUARCH_VERSION_MAJOR, CUARCH_VERSION_MINOR, CUARCH_VERSION_PATCH);
    return exit_ok;
  }
  const auto it = registry().find(name);
  if (it == registry().end()) {
    fmt::print(stderr, "cuarch: unknown command '{}'\n", name);
    print_usage(stderr);
    return exit_usage;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  arguments args(std::move(rest));
  if (args.flag("--help") || args.flag("-h")) {
    fmt::print("{}", it->second.help);
    return exit_ok;
  }
  return it->second.run(args);
}
