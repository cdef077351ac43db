// `cuarch list` and `cuarch check`: what a CUDA release can build, by the knowledge table.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/core/parse.hpp>

#include <optional>
#include <string>

#include "cli.hpp"

namespace {

using namespace cuarch_cli;

std::optional<cuarch::arch_dialect> dialect_named(std::string_view name) {
  if (name == "generic") return cuarch::arch_dialect::generic;
  if (name == "torch") return cuarch::arch_dialect::torch;
  if (name == "cmake") return cuarch::arch_dialect::cmake;
  if (name == "nvcc") return cuarch::arch_dialect::nvcc;
  return std::nullopt;
}

/// --toolkit V, required: these commands answer for a named release.
std::optional<cuarch::cuda_version> toolkit_option(std::string_view command, arguments& args, int& status) {
  const auto text = args.take("--toolkit");
  if (!text) {
    status = args.missing_value() ? usage_error(command, "option --toolkit needs a value")
                                  : usage_error(command, "--toolkit VERSION is required (e.g. --toolkit 12.4)");
    return std::nullopt;
  }
  const auto v = cuarch::parse_cuda_version(*text);
  if (!v) {
    status = usage_error(command, v.error().message());
    return std::nullopt;
  }
  return *v;
}

int run_list(arguments& args) {
  int status = 0;
  const auto toolkit = toolkit_option("list", args, status);
  if (!toolkit) return status;
  if (const int bad = reject_leftovers("list", args, false)) return bad;
  if (cuarch::newest_known_toolkit() < toolkit->release())
    fmt::print(stderr, "note: CUDA {} is newer than cuarch's table (newest: {}); listing what {} builds. "
                       "Ask the compiler itself for anything newer (cuarch doctor).\n",
               *toolkit, cuarch::newest_known_toolkit(), cuarch::newest_known_toolkit());
  if (toolkit->release() < cuarch::oldest_known_toolkit())
    return usage_error("list", fmt::format("CUDA {} is older than the oldest release cuarch knows ({})", *toolkit,
                                           cuarch::oldest_known_toolkit()));
  cuarch::for_each_buildable(*toolkit, [](const cuarch::arch_target& t) { fmt::print("{}\n", t); });
  return exit_ok;
}

int run_check(arguments& args) {
  int status = 0;
  const auto toolkit = toolkit_option("check", args, status);
  if (!toolkit) return status;
  const auto dialect_name = args.take("--dialect");
  const auto dialect = dialect_named(dialect_name.value_or("generic"));
  if (!dialect) return usage_error("check", "--dialect must be generic, torch, cmake or nvcc");
  std::vector<std::string> lists;
  while (auto a = args.take("--archs")) lists.push_back(*a);
  if (const int bad = reject_leftovers("check", args, true)) return bad;
  for (const auto& a : args.rest()) lists.push_back(a);
  if (lists.empty()) return usage_error("check", "give the targets to check, e.g. cuarch check --toolkit 12.4 sm_120a 9.0a");

  int failed = 0;
  for (const auto& list : lists) {
    const auto parsed = cuarch::parse_arch_list(list, *dialect);
    if (!parsed) return usage_error("check", parsed.error().message());
    if (parsed->keyword() != cuarch::arch_keyword::none)
      return usage_error("check", fmt::format("'{}' is a request, not a target: use cuarch resolve", list));
    for (const auto& p : *parsed) {
      const auto ok = cuarch::check_buildable(p.target, *toolkit);
      if (ok) {
        fmt::print("{}: ok with CUDA {}\n", p.target, *toolkit);
      } else {
        ++failed;
        fmt::print(stderr, "{}\n", ok.error().message());
      }
    }
  }
  return failed == 0 ? exit_ok : exit_failed;
}

const register_command list_command{
    "list", "every target a CUDA release can build, one per line",
    "usage: cuarch list --toolkit VERSION\n\n"
    "Prints every target (sm_XY[a|f], compute_XY[a|f]) that CUDA VERSION can build, by cuarch's table.\n",
    run_list};

const register_command check_command{
    "check", "validate targets against a CUDA release; exit 1 with reasons",
    "usage: cuarch check --toolkit VERSION [--dialect generic|torch|cmake|nvcc] [--archs LIST]... TARGET...\n\n"
    "Checks every target against CUDA VERSION. Exit 0: all buildable; 1: one reason line per failing\n"
    "target on stderr; 2: a malformed target or bad usage.\n"
    "Example: cuarch check --toolkit 12.4 sm_120a 9.0a\n",
    run_check};

}  // namespace
