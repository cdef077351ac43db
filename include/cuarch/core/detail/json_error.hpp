// One JSON shape for a cuarch::error, shared by every report: the members and their meaning are in
// docs/json.md, "The error object"; everything comes from classify() (core/errc.hpp).
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
