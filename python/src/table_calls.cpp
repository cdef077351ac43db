// cuarch.check() and cuarch.list_targets(): what a CUDA release can build, by cuarch's table (as
// `cuarch check` and `cuarch list` in tools/cuarch/cmd_list_check.cpp). Pure: no detection. The
// documents a failure carries are the library's (resolve/json_documents.hpp), byte for byte what
// `cuarch check --format json` and `cuarch list --format json` print.
#include <cuarch/cuarch.hpp>
#include <cuarch/resolve/json_documents.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calls.hpp"

namespace cuarch_python {
namespace {

std::string release_text(const cuarch::cuda_version& v) { return std::string(cuarch::to_text(v).view()); }

outcome failed_input(const cuarch::error& e, const std::string& prefix, std::string document) {
  outcome o;
  o.kind = outcome::failed;
  o.json = std::move(document);
  o.code = code_name(e.code);
  o.input_error = is_input_error(e.code);
  o.message = prefix + e.message(python_speller);
  return o;
}

}  // namespace

outcome check(const std::string& targets, const std::string& toolkit_text, const std::string& dialect_name) {
  const auto dialect = cuarch::parse_arch_dialect(dialect_name);
  if (!dialect)
    return usage("dialect must be one of " + names_of(cuarch::all_arch_dialects) + ", not '" + dialect_name + "'");
  const auto toolkit = cuarch::parse_cuda_version(toolkit_text);
  if (!toolkit)
    return failed_input(toolkit.error(), "toolkit: ", cuarch::check_failure_json(toolkit.error(), std::nullopt));
  if (const auto old = cuarch::unknown_old_toolkit(*toolkit))  // as cuarch check, list and resolve
    return failed_input(*old, "toolkit: ", cuarch::check_failure_json(*old, std::nullopt));
  const auto parsed = cuarch::parse_arch_list(targets, *dialect);
  if (!parsed) return failed_input(parsed.error(), "", cuarch::check_failure_json(parsed.error(), *toolkit));
  if (parsed->keyword() != cuarch::arch_keyword::none)
    return usage("'" + targets + "' is a request, not a list of targets: use cuarch.resolve()");

  std::vector<cuarch::arch_target> list;
  for (const auto& p : *parsed) list.push_back(p.target);
  const cuarch::check_report report = cuarch::check_targets(list, *toolkit);
  outcome o;
  for (const auto& item : report.items) o.names.emplace_back(cuarch::to_text(item.target).view());
  if (const cuarch::error* first = report.first_failure()) {
    std::string reasons;
    for (const auto& item : report.items)
      if (item.reason) reasons += "\n  - " + item.reason->message();
    o.kind = outcome::failed;
    o.json = cuarch::to_json(report);
    o.code = code_name(first->code);
    o.input_error = false;
    o.message = "not buildable with CUDA " + release_text(*toolkit) + ":" + reasons;
  }
  return o;
}

outcome list_targets(const std::string& toolkit_text) {
  const auto toolkit = cuarch::parse_cuda_version(toolkit_text);
  if (!toolkit) return failed_input(toolkit.error(), "toolkit: ", cuarch::list_failure_json(toolkit.error()));
  if (const auto old = cuarch::unknown_old_toolkit(*toolkit))  // as cuarch check, list and resolve
    return failed_input(*old, "toolkit: ", cuarch::list_failure_json(*old));
  outcome o;
  if (cuarch::newest_known_toolkit() < toolkit->release())
    o.note = "CUDA " + release_text(*toolkit) +
             " is newer than cuarch's table (newest: " + release_text(cuarch::newest_known_toolkit()) +
             "); listing what " + release_text(cuarch::newest_known_toolkit()) +
             " builds. Ask the compiler itself for anything newer (cuarch.doctor()).";
  cuarch::for_each_buildable(*toolkit,
                             [&](const cuarch::arch_target& t) { o.names.emplace_back(cuarch::to_text(t).view()); });
  o.json = cuarch::list_json(*toolkit);
  return o;
}

}  // namespace cuarch_python
