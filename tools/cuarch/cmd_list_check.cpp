// `cuarch list` and `cuarch check`: what a CUDA release can build, by the knowledge table.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/resolve/json_documents.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;

/// --format text|json: how list and check print. The JSON documents are the library's
/// (resolve/json_documents.hpp), the same ones Python's cuarch.check() raises with.
CLI::Option* add_format(flag_set& f) {
  return f.value("--format", "text|json",
                 "text (default): one line per target; json: one document on stdout (docs/json.md)", "Options");
}

/// --toolkit VERSION, required: these commands answer for a named release. A missing one is a
/// usage error; one that is not a version is the library's invalid_version error (exit 2).
struct toolkit_reading {
  std::optional<cuarch::cuda_version> release;
  std::optional<cuarch::error> invalid;  // the text was given but is not a version
  std::optional<int> status;             // a usage error was reported
};
toolkit_reading read_toolkit(const char* command, const CLI::Option* option) {
  toolkit_reading r;
  const auto text = flag_set::get(option);
  if (!text) {
    r.status = usage_error(command, "--toolkit VERSION is required (e.g. --toolkit 12.4)");
    return r;
  }
  auto v = cuarch::parse_cuda_version(*text);
  if (!v) r.invalid = v.error();
  else if (auto old = cuarch::unknown_old_toolkit(*v)) r.invalid = std::move(old);  // the library's rule, as resolve
  else r.release = *v;
  return r;
}

/// The reason on stderr, worded as a usage error, and the document on stdout for --format json.
int input_failure(const char* command, const cuarch::error& e, bool json, const std::string& document) {
  if (json) print_to(stdout, "{}\n", document);
  print_to(stderr, "cuarch {}: {}\n(see: cuarch {} --help)\n", command, say(e.message()), command);
  return cuarch::exit_status(e.code);
}

/// A release NVIDIA never published (12.7) is answered, with a note: it is a typo or a guess.
void print_never_released(const cuarch::cuda_version& release) {
  print_to(stderr,
           "note: CUDA {} was never released; cuarch's table answers for it as for the release before it. "
           "Check the version you meant (cuarch doctor shows the toolkits here).\n",
           release.release());
}

std::function<int()> setup_list(flag_set& f) {
  CLI::Option* toolkit = f.value("--toolkit", "VERSION", "the CUDA release, e.g. 12.4 (required)", "Options");
  CLI::Option* format = add_format(f);
  return [toolkit, format] {
    bool json = false;
    if (const auto bad = read_format("list", format, json)) return *bad;
    const auto tk = read_toolkit("list", toolkit);
    if (tk.status) return *tk.status;
    if (tk.invalid) return input_failure("list", *tk.invalid, json, cuarch::list_failure_json(*tk.invalid));
    const cuarch::cuda_version release = *tk.release;
    if (cuarch::never_released(release)) print_never_released(release);
    if (cuarch::newest_known_toolkit() < release.release())
      print_to(stderr,
               "note: CUDA {} is newer than cuarch's table (newest: {}); listing what {} builds. "
               "Ask the compiler itself for anything newer (cuarch doctor).\n",
               release, cuarch::newest_known_toolkit(), cuarch::newest_known_toolkit());
    if (json) print_to(stdout, "{}\n", cuarch::list_json(release));
    else cuarch::for_each_buildable(release, [](const cuarch::arch_target& t) { print_to(stdout, "{}\n", t); });
    return exit_ok;
  };
}

std::function<int()> setup_check(flag_set& f) {
  struct flags {
    CLI::Option* toolkit;
    CLI::Option* dialect;
    CLI::Option* archs;
    CLI::Option* format;
    CLI::Option* targets;
  };
  flags o{};
  o.toolkit = f.value("--toolkit", "VERSION", "the CUDA release to check against, e.g. 12.4 (required)", "Options");
  o.dialect = f.value("--dialect", choices(cuarch::all_arch_dialects),
                      "how to read the targets (default: generic, which reads them all)", "Options");
  o.archs = f.value("--archs", "LIST", "targets to check, as one list (repeatable)", "Options", /*repeatable=*/true);
  o.format = add_format(f);
  o.targets = f.positionals("targets", "TARGET", "targets to check; after -- they may start with '-'");
  return [o] {
    bool json = false;
    if (const auto bad = read_format("check", o.format, json)) return *bad;
    const auto tk = read_toolkit("check", o.toolkit);
    if (tk.status) return *tk.status;
    if (tk.invalid)
      return input_failure("check", *tk.invalid, json, cuarch::check_failure_json(*tk.invalid, std::nullopt));
    const cuarch::cuda_version release = *tk.release;
    if (cuarch::never_released(release)) print_never_released(release);
    cuarch::arch_dialect dialect = cuarch::arch_dialect::generic;
    if (const auto name = flag_set::get(o.dialect)) {
      const auto d = cuarch::parse_arch_dialect(*name);
      if (!d)
        return usage_error("check", "--dialect must be " + choices(cuarch::all_arch_dialects) + ", not '" + *name + "'");
      dialect = *d;
    }
    std::vector<std::string> lists = flag_set::all(o.archs);
    for (const auto& t : flag_set::all(o.targets)) lists.push_back(t);
    if (lists.empty())
      return usage_error("check", "give the targets to check, e.g. cuarch check --toolkit 12.4 sm_120a 9.0a");

    // Every list is read before any is checked: a malformed one is exit 2 with nothing checked.
    std::vector<cuarch::arch_target> targets;
    for (const auto& list : lists) {
      auto p = cuarch::parse_arch_list(list, dialect);
      if (!p) return input_failure("check", p.error(), json, cuarch::check_failure_json(p.error(), release));
      if (p->keyword() != cuarch::arch_keyword::none)
        return usage_error("check", fmt::format("'{}' is a request, not a target: use cuarch resolve", list));
      for (const auto& one : *p) targets.push_back(one.target);
    }
    const cuarch::check_report report = cuarch::check_targets(targets, release);
    for (const auto& item : report.items) {
      if (!item.reason) {
        if (!json) print_to(stdout, "{}: ok with CUDA {}\n", item.target, release);
      } else {
        print_to(stderr, "{}\n", say(item.reason->message()));
      }
    }
    if (json) print_to(stdout, "{}\n", cuarch::to_json(report));
    return report.ok() ? exit_ok : exit_failed;
  };
}

const register_command list_command{
    "list",
    {"every target a CUDA release can build, one per line",
     "Prints every target (sm_XY[a|f], compute_XY[a|f]) that CUDA VERSION can build, by cuarch's table.\n"
     "--format json prints one document (cuarch.list/1, docs/json.md).\n"
     "Exit codes: 0 listed; 2 bad usage or a release older than the table.",
     setup_list}};

const register_command check_command{
    "check",
    {"validate targets against a CUDA release; exit 1 with reasons",
     "Checks every target against CUDA VERSION. Exit 0: all buildable; 1: one reason line per failing\n"
     "target on stderr; 2: a malformed target or bad usage. --format json prints one document\n"
     "(cuarch.check/1, docs/json.md) on stdout whatever the exit status.\n"
     "Example: cuarch check --toolkit 12.4 sm_120a 9.0a\n"
     "         cuarch check --toolkit 12.4 --dialect nvcc -- -arch=sm_90a",
     setup_check}};

}  // namespace
