// The head of every JSON document cuarch prints: its schema id and the cuarch version that wrote
// it, always the first two members, so a reader can decide whether it understands the document
// before reading anything else. The ids and the versioning rule are in docs/json.md; each id has a
// JSON Schema in docs/schema/ (cuarch.resolve/1 -> docs/schema/cuarch.resolve-1.schema.json).
#pragma once

#include <string>
#include <string_view>

#include "../config.hpp"
#include "../version.hpp"
#include "json.hpp"

CUARCH_BEGIN_NAMESPACE

/// The schema ids of cuarch's JSON documents. "/1" changes only when a member is removed or
/// renamed, or changes its type or meaning (docs/json.md); adding members keeps it.
namespace json_schema {
inline constexpr std::string_view resolve = "cuarch.resolve/1";  // cuarch resolve --format json, Python to_json()
inline constexpr std::string_view doctor = "cuarch.doctor/1";    // cuarch doctor --json, cuarch.doctor()
inline constexpr std::string_view list = "cuarch.list/1";        // cuarch list --format json
inline constexpr std::string_view check = "cuarch.check/1";      // cuarch check --format json
inline constexpr std::string_view error = "cuarch.error/1";      // a command line that could not be understood
inline constexpr std::string_view env = "cuarch.env/1";          // cuarch env --for TOOL --format json, cuarch.env()
}  // namespace json_schema

/// "0.1.0": the version of this cuarch (core/version.hpp).
inline std::string cuarch_version_text() {
  return std::to_string(CUARCH_VERSION_MAJOR) + "." + std::to_string(CUARCH_VERSION_MINOR) + "." + std::to_string(CUARCH_VERSION_PATCH);
}

namespace detail {

/// Opens a document's object and writes its first members, "schema" and "cuarch_version"; the
/// caller adds the rest and closes the object.
inline json_writer& begin_document(json_writer& w, std::string_view schema) {
  return w.begin_object().key("schema").value(schema).key("cuarch_version").value(cuarch_version_text());
}

}  // namespace detail
CUARCH_END_NAMESPACE
