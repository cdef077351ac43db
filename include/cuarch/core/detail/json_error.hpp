// One JSON shape for a cuarch::error, shared by every report (doctor --json, resolve --format json):
//   "code"           the code's stable snake_case identifier ("process_failed"): match on this one
//   "kind"           the same identifier (a finding's identifier is also its "kind")
//   "title"          short human words for the code ("process failed"); may be reworded
//   "errc"           the code's number (may change when codes are added: match on "code")
//   "exit_status"    what the command line exits with for it: 1 failed, 2 bad usage or input
//   "source", "subject", "location", "raw", "native_status", "message"   the error's fields, as text
// Keys name the same things as in the rest of cuarch's JSON ("kind" is also a finding's identifier).
// Everything comes from classify() (core/errc.hpp); text that is not UTF-8 gets "<key>_bytes".
#pragma once

#include <optional>

#include "../errc.hpp"
#include "../error.hpp"
#include "json.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

inline void json_error(json_writer& w, const error& e) {
  const errc_class c = classify(e.code);
  w.begin_object();
  w.key("code").value(c.name);
  w.key("kind").value(c.name);
  w.key("title").value(c.title);
  w.key("errc").value(static_cast<int>(e.code));
  w.key("exit_status").value(static_cast<int>(c.exit));
  w.key("source").value(to_string(e.source));
  w.key("subject").value(e.subject.view());
  w.key("location").value(e.location.view());
  w.key("raw").value(e.raw.view());
  w.key("native_status").value(e.native_status);
  w.key("message").value(e.message());
  w.end_object();
}

/// The error, or null: the value of every "error"/"reason" key. `e` is a std::optional<error> or
/// anything that reads like one (bool, *).
template <class OptionalError>
void json_optional_error(json_writer& w, const OptionalError& e) {
  if (e) json_error(w, *e);
  else w.null();
}

}  // namespace detail
CUARCH_END_NAMESPACE
