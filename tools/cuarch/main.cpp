// cuarch: command-line entry point. Builds one CLI11 subcommand per registered command, parses,
// applies the rules of flags.hpp, and runs the command. Every usage error is exit 2 with the reason
// on stderr (and, when the arguments ask for JSON, the cuarch.error/1 document on stdout: see
// docs/json.md); help and version go to stdout with exit 0.
#include <cuarch/core/version.hpp>
#include <cuarch/sources/posix/bounded_call.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;

std::string version_text() {
  return fmt::format("cuarch {}.{}.{}", CUARCH_VERSION_MAJOR, CUARCH_VERSION_MINOR, CUARCH_VERSION_PATCH);
}

constexpr const char* program_footer =
    "'cuarch <command> --help' describes a command. Exit codes: 0 ok, 1 failed, 2 bad usage or input.";

// "--toolkit: 1 required TEXT missing" -> "--toolkit" (CLI11 puts the option's name first).
std::string option_named_in(const std::string& message) {
  const auto colon = message.find(':');
  return colon == std::string::npos ? message : message.substr(0, colon);
}

int run_command_line(int argc, char** argv) {
  CLI::App app{"cuarch: which CUDA targets to build, checked against the compiler that builds them", "cuarch"};
  app.set_version_flag("-V,--version", version_text(), "print the version and exit");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.allow_extras();  // unknown commands and options are reported below, in our words
  app.require_subcommand(0, 1);
  app.footer(program_footer);
  app.get_formatter()->column_width(38);

  // Each command's flags and runner, created before parsing (the flag sets point into `app`).
  std::list<flag_set> flag_sets;
  std::map<const CLI::App*, std::pair<flag_set*, std::function<int()>>> commands;
  for (auto& [name, cmd] : registry()) {
    CLI::App* sub = app.add_subcommand(name, cmd.summary);
    sub->allow_extras();
    if (!cmd.footer.empty()) sub->footer(cmd.footer);
    flag_set& flags = flag_sets.emplace_back(*sub);
    commands[sub] = {&flags, cmd.setup(flags)};
  }

  requested_format() = format_in(argc, argv);
  json_requested() = asks_for_json(argc, argv);
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return exit_usage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);  // the selected command's help, if one was named
    return exit_ok;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return exit_ok;
  } catch (const CLI::CallForVersion& v) {
    print_to(stdout, "{}\n", v.what());
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    const auto selected = app.get_subcommands();
    const std::string where = selected.empty() ? std::string() : selected.front()->get_name();
    std::string message = e.what();
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e))
      message = "option " + option_named_in(message) + " needs a value";
    return usage_error(where, message);
  }

  const auto selected = app.get_subcommands();
  if (selected.empty()) {  // one line and what was probably meant, never the whole help (issue 35)
    const auto& extras = app.remaining();
    if (extras.empty()) return usage_error("", "no command given");
    const std::string& first = extras.front();
    if (first.size() > 1 && first[0] == '-') return usage_error("", unknown_option(app, first));
    return usage_error("", "unknown command '" + first + "'" + did_you_mean(first, command_names(app)));
  }
  auto& [flags, run] = commands.at(selected.front());
  if (const auto bad = flags->misuse()) return usage_error(flags->name(), *bad);
  // After `--`, a command without positionals hands what follows back to the program.
  const bool options_ended = std::find(argv + 1, argv + argc, std::string_view("--")) != argv + argc;
  if (const auto bad = flags->leftover(app.remaining(), options_ended)) return usage_error(flags->name(), *bad);
  return run();
}

}  // namespace

int main(int argc, char** argv) {
  std::atexit(exit_during_detection);  // a library's exit() while detecting is a failure (cli.hpp)
  // A reader that went away is a write error said by output_done(), not a silent death by SIGPIPE.
  // Probes still get SIGPIPE's default action (subprocess.hpp resets it in the child).
  std::signal(SIGPIPE, SIG_IGN);
  const int status = output_done(run_command_line(argc, argv));
  if (cuarch::detail::library_call_stuck()) {  // exit() would wait on a library stuck in its constructor
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}
