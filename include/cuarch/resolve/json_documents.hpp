// The JSON documents of `cuarch list`, `cuarch check` and of a command line that could not be
// understood (cuarch.list/1, cuarch.check/1, cuarch.error/1). The command line and the Python
// module both print these, so they cannot drift apart. The resolution's documents are in
// outputs.hpp, the doctor's in doctor/report.hpp; every document starts with "schema" and
// "cuarch_version" (core/detail/json.hpp, begin_document). Members and versioning: docs/json.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/arch.hpp"
#include "../core/arch_table.hpp"
#include "../core/compatibility.hpp"
#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/error.hpp"
#include "outputs.hpp"

CUARCH_BEGIN_NAMESPACE

/// One checked target: buildable, or the reason it is not.
struct check_item {
  arch_target target{};
  std::optional<error> reason;
};

/// Every target checked against `toolkit` by the table, in the order given.
struct check_report {
  cuda_version toolkit{};
  std::vector<check_item> items;

  /// The first failure, if any: the document's "error" and the summary callers report.
  const error* first_failure() const noexcept {
    for (const auto& i : items)
      if (i.reason) return &*i.reason;
    return nullptr;
  }
  bool ok() const noexcept { return first_failure() == nullptr; }
};

/// Every target `toolkit` builds by the table; a release newer than the table lists what the newest
/// known release builds, and says so ("newer_than_table").
CUARCH_FUNC std::string list_json(const cuda_version& toolkit);

/// `cuarch list` could not answer (a version that is not one): {"ok": false, "toolkit": null, "error"}.
CUARCH_FUNC std::string list_failure_json(const error& e);

/// Checks each target with check_buildable(), then every pair with check_same_compilation() (a
/// baseline sm_XY given with its sm_XYf fails with targets_conflict); nothing is skipped.
CUARCH_FUNC check_report check_targets(const std::vector<arch_target>& targets, const cuda_version& toolkit);

/// The cuarch.check/1 document of a report.
CUARCH_FUNC std::string to_json(const check_report& r);

/// The input could not be checked (a malformed target, or toolkit version: then `toolkit` is nullopt).
CUARCH_FUNC std::string check_failure_json(const error& e, const std::optional<cuda_version>& toolkit);

/// A command line that could not be understood, for `--format json` callers, who read stdout; its
/// code is "bad_usage" (no errc: nothing was asked of the library yet). `command` empty: none known.
CUARCH_FUNC std::string usage_error_json(std::string_view command, std::string_view message);

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "../core/detail/json.hpp"

CUARCH_BEGIN_NAMESPACE

// ---- cuarch.list/1 ------------------------------------------------------------------------------

CUARCH_FUNC std::string list_json(const cuda_version& toolkit) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::list).key("ok").value(true).key("toolkit").value(to_text(toolkit).view());
  w.key("table").begin_object().key("oldest").value(to_text(oldest_known_toolkit()).view());
  w.key("newest").value(to_text(newest_known_toolkit()).view()).end_object();
  w.key("newer_than_table").value(newest_known_toolkit() < toolkit.release());
  w.key("targets").begin_array();
  for_each_buildable(toolkit, [&](const arch_target& t) { detail::json_target(w, t); });
  w.end_array().end_object();
  return w.str();
}

CUARCH_FUNC std::string list_failure_json(const error& e) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::list).key("ok").value(false).key("toolkit").null().key("error");
  detail::json_error(w, e);
  w.end_object();
  return w.str();
}

// ---- cuarch.check/1 -----------------------------------------------------------------------------

CUARCH_FUNC check_report check_targets(const std::vector<arch_target>& targets, const cuda_version& toolkit) {
  check_report report{toolkit, {}};
  report.items.reserve(targets.size());
  for (const auto& t : targets) {
    std::optional<error> reason;
    if (const auto ok = check_buildable(t, toolkit); !ok) reason = ok.error();
    // Buildable one by one is not enough: a baseline sm_XY beside its sm_XYf is refused by nvcc in
    // one compilation (check_same_compilation); the sm_XY item carries the conflict and its fix.
    for (std::size_t i = 0; !reason && t.variant == arch_variant::baseline && i < targets.size(); ++i)
      if (const auto one = check_same_compilation(t, targets[i]); !one) reason = one.error();
    report.items.push_back({t, reason});
  }
  return report;
}

CUARCH_FUNC std::string to_json(const check_report& r) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::check).key("ok").value(r.ok());
  w.key("toolkit").value(to_text(r.toolkit).view()).key("error");
  detail::json_optional_error(w, r.first_failure());
  detail::json_objects(w.key("diagnostics"), r.items, [&](const check_item& i) {
    w.key("target").value(to_text(i.target).view()).key("ok").value(!i.reason).key("reason");
    detail::json_optional_error(w, i.reason);
  });
  w.end_object();
  return w.str();
}

CUARCH_FUNC std::string check_failure_json(const error& e, const std::optional<cuda_version>& toolkit) {
  detail::json_writer w;
  detail::text_or_null(detail::begin_document(w, json_schema::check).key("ok").value(false).key("toolkit"), toolkit)
      .key("error");
  detail::json_error(w, e);
  w.key("diagnostics").begin_array().end_array().end_object();
  return w.str();
}

// ---- cuarch.error/1 -----------------------------------------------------------------------------

CUARCH_FUNC std::string usage_error_json(std::string_view command, std::string_view message) {
  detail::json_writer w;
  detail::text_or_null(detail::begin_document(w, json_schema::error).key("ok").value(false).key("command"), command);
  w.key("error").begin_object().key("code").value("bad_usage").key("kind").value("bad_usage");
  w.key("exit_status").value(static_cast<int>(exit_class::bad_input)).key("message").value(message).end_object();
  w.end_object();
  return w.str();
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
