// One JSON shape for a cuarch::error, shared by every report (doctor --json, resolve --format json).
#pragma once

#include "../error.hpp"
#include "json.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

inline void json_error(json_writer& w, const error& e) {
  w.begin_object();
  w.key("code").value(to_string(e.code));
  w.key("errc").value(static_cast<int>(e.code));
  w.key("source").value(to_string(e.source));
  w.key("subject").value(e.subject.view());
  w.key("location").value(e.location.view());
  w.key("raw").value(e.raw.view());
  w.key("native_status").value(e.native_status);
  w.key("message").value(e.message());
  w.end_object();
}

}  // namespace detail
CUARCH_END_NAMESPACE
