// cuarch.check() and cuarch.list_targets(): what a CUDA release can build, by cuarch's table (as
// `cuarch check` and `cuarch list` in tools/cuarch/cmd_list_check.cpp). Pure: no detection.
#include <cuarch/cuarch.hpp>
#include <cuarch/core/detail/json.hpp>
#include <cuarch/core/detail/json_error.hpp>

#include <string>
#include <utility>
#include <vector>

#include "calls.hpp"
#include "error_codes.hpp"

namespace cuarch_python {
namespace {

outcome usage(std::string message) {
  outcome o;
  o.kind = outcome::usage;
  o.message = std::move(message);
  return o;
}

std::string release_text(const cuarch::cuda_version& v) { return std::string(cuarch::to_text(v).view()); }

/// A failed check: {"ok": false, "error": <the first failure>, "diagnostics": [one per target]},
/// the shape of the library's resolution-failure document, each error in the library's one JSON
/// shape for an error (core/detail/json_error.hpp).
struct check_item {
  std::string target;
  std::optional<cuarch::error> problem;
};
std::string check_failure_json(const cuarch::error& first, const std::vector<check_item>& items) {
  cuarch::detail::json_writer w;
  w.begin_object().key("ok").value(false).key("error");
  cuarch::detail::json_error(w, first);
  w.key("diagnostics").begin_array();
  for (const auto& i : items) {
    w.begin_object().key("target").value(i.target).key("ok").value(!i.problem).key("reason");
    if (i.problem) cuarch::detail::json_error(w, *i.problem);
    else w.null();
    w.end_object();
  }
  w.end_array().end_object();
  return w.str();
}

outcome failed_input(const cuarch::error& e, const std::string& prefix) {
  outcome o;
  o.kind = outcome::failed;
  o.json = cuarch::to_json(cuarch::resolution_failure{e, {}});
  o.code = std::string(code_name(e.code));
  o.input_error = is_input_error(e.code);
  o.message = prefix + e.message();
  return o;
}

}  // namespace

outcome check(const std::string& targets, const std::string& toolkit_text, const std::string& dialect_name) {
  const auto dialect = cuarch::parse_arch_dialect(dialect_name);
  if (!dialect) return usage("dialect must be 'generic', 'torch', 'cmake' or 'nvcc', not '" + dialect_name + "'");
  const auto toolkit = cuarch::parse_cuda_version(toolkit_text);
  if (!toolkit) return failed_input(toolkit.error(), "toolkit: ");
  const auto parsed = cuarch::parse_arch_list(targets, *dialect);
  if (!parsed) return failed_input(parsed.error(), "");
  if (parsed->keyword() != cuarch::arch_keyword::none)
    return usage("'" + targets + "' is a request, not a list of targets: use cuarch.resolve()");

  outcome o;
  std::vector<check_item> items;
  std::optional<cuarch::error> first;
  std::string reasons;
  for (const auto& p : *parsed) {
    check_item item{std::string(cuarch::to_text(p.target).view()), std::nullopt};
    if (const auto ok = cuarch::check_buildable(p.target, *toolkit); !ok) {
      item.problem = ok.error();
      if (!first) first = ok.error();
      reasons += "\n  - " + ok.error().message();
    }
    o.names.push_back(item.target);
    items.push_back(std::move(item));
  }
  if (first) {
    o.kind = outcome::failed;
    o.json = check_failure_json(*first, items);
    o.code = std::string(code_name(first->code));
    o.input_error = false;
    o.message = "not buildable with CUDA " + release_text(*toolkit) + ":" + reasons;
  }
  return o;
}

outcome list_targets(const std::string& toolkit_text) {
  const auto toolkit = cuarch::parse_cuda_version(toolkit_text);
  if (!toolkit) return failed_input(toolkit.error(), "toolkit: ");
  if (toolkit->release() < cuarch::oldest_known_toolkit())
    return usage("CUDA " + release_text(*toolkit) + " is older than the oldest release cuarch knows (" +
                 release_text(cuarch::oldest_known_toolkit()) + ")");
  outcome o;
  if (cuarch::newest_known_toolkit() < toolkit->release())
    o.note = "CUDA " + release_text(*toolkit) + " is newer than cuarch's table (newest: " + release_text(cuarch::newest_known_toolkit()) +
             "); listing what " + release_text(cuarch::newest_known_toolkit()) +
             " builds. Ask the compiler itself for anything newer (cuarch.doctor()).";
  cuarch::for_each_buildable(*toolkit, [&](const cuarch::arch_target& t) { o.names.emplace_back(cuarch::to_text(t).view()); });
  return o;
}

}  // namespace cuarch_python
