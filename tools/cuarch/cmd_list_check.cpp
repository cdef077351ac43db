// `cuarch list` and `cuarch check`: what a CUDA release can build, by the knowledge table.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/fmt.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;

/// --toolkit VERSION, required: these commands answer for a named release. nullopt after a usage error.
std::optional<cuarch::cuda_version> read_toolkit(const char* command, const CLI::Option* option, int& status) {
  const auto text = flag_set::get(option);
  if (!text) {
    status = usage_error(command, "--toolkit VERSION is required (e.g. --toolkit 12.4)");
    return std::nullopt;
  }
  const auto v = cuarch::parse_cuda_version(*text);
  if (!v) {
    status = usage_error(command, v.error().message());
    return std::nullopt;
  }
  return *v;
}

/// A release NVIDIA never published (12.7) is answered, with a note: it is a typo or a guess.
void print_never_released(const cuarch::cuda_version& release) {
  fmt::print(stderr, "note: CUDA {} was never released; cuarch's table answers for it as for the release before it. "
                     "Check the version you meant (cuarch doctor shows the toolkits here).\n",
             release.release());
}

std::function<int()> setup_list(flag_set& f) {
  CLI::Option* toolkit = f.value("--toolkit", "VERSION", "the CUDA release, e.g. 12.4 (required)", "Options");
  return [toolkit] {
    int status = 0;
    const auto release = read_toolkit("list", toolkit, status);
    if (!release) return status;
    if (cuarch::never_released(*release)) print_never_released(*release);
    if (cuarch::newest_known_toolkit() < release->release())
      fmt::print(stderr, "note: CUDA {} is newer than cuarch's table (newest: {}); listing what {} builds. "
                         "Ask the compiler itself for anything newer (cuarch doctor).\n",
                 *release, cuarch::newest_known_toolkit(), cuarch::newest_known_toolkit());
    if (release->release() < cuarch::oldest_known_toolkit())
      return usage_error("list", fmt::format("CUDA {} is older than the oldest release cuarch knows ({})", *release,
                                             cuarch::oldest_known_toolkit()));
    cuarch::for_each_buildable(*release, [](const cuarch::arch_target& t) { fmt::print("{}\n", t); });
    return exit_ok;
  };
}

std::function<int()> setup_check(flag_set& f) {
  struct flags {
    CLI::Option* toolkit;
    CLI::Option* dialect;
    CLI::Option* archs;
    CLI::Option* targets;
  };
  flags o{};
  o.toolkit = f.value("--toolkit", "VERSION", "the CUDA release to check against, e.g. 12.4 (required)", "Options");
  o.dialect = f.value("--dialect", choices(cuarch::all_arch_dialects), "how to read the targets (default: generic, which reads them all)", "Options");
  o.archs = f.value("--archs", "LIST", "targets to check, as one list (repeatable)", "Options", /*repeatable=*/true);
  o.targets = f.positionals("targets", "TARGET", "targets to check; after -- they may start with '-'");
  return [o] {
    int status = 0;
    const auto release = read_toolkit("check", o.toolkit, status);
    if (!release) return status;
    if (cuarch::never_released(*release)) print_never_released(*release);
    cuarch::arch_dialect dialect = cuarch::arch_dialect::generic;
    if (const auto name = flag_set::get(o.dialect)) {
      const auto d = cuarch::parse_arch_dialect(*name);
      if (!d) return usage_error("check", "--dialect must be " + choices(cuarch::all_arch_dialects) + ", not '" + *name + "'");
      dialect = *d;
    }
    std::vector<std::string> lists = flag_set::all(o.archs);
    for (const auto& t : flag_set::all(o.targets)) lists.push_back(t);
    if (lists.empty()) return usage_error("check", "give the targets to check, e.g. cuarch check --toolkit 12.4 sm_120a 9.0a");

    // Every list is read before any is checked: a malformed one is exit 2 with nothing printed.
    std::vector<cuarch::parsed_arch_list> parsed;
    for (const auto& list : lists) {
      auto p = cuarch::parse_arch_list(list, dialect);
      if (!p) return usage_error("check", p.error().message());
      if (p->keyword() != cuarch::arch_keyword::none)
        return usage_error("check", fmt::format("'{}' is a request, not a target: use cuarch resolve", list));
      parsed.push_back(*p);
    }
    int failed = 0;
    for (const auto& list : parsed)
      for (const auto& p : list) {
        const auto ok = cuarch::check_buildable(p.target, *release);
        if (ok) {
          fmt::print("{}: ok with CUDA {}\n", p.target, *release);
        } else {
          ++failed;
          fmt::print(stderr, "{}\n", ok.error().message());
        }
      }
    return failed == 0 ? exit_ok : exit_failed;
  };
}

const register_command list_command{
    "list", {"every target a CUDA release can build, one per line",
             "Prints every target (sm_XY[a|f], compute_XY[a|f]) that CUDA VERSION can build, by cuarch's table.\n"
             "Exit codes: 0 listed; 2 bad usage or a release older than the table.",
             setup_list}};

const register_command check_command{
    "check", {"validate targets against a CUDA release; exit 1 with reasons",
              "Checks every target against CUDA VERSION. Exit 0: all buildable; 1: one reason line per failing\n"
              "target on stderr; 2: a malformed target or bad usage.\n"
              "Example: cuarch check --toolkit 12.4 sm_120a 9.0a\n"
              "         cuarch check --toolkit 12.4 --dialect nvcc -- -arch=sm_90a",
              setup_check}};

}  // namespace
