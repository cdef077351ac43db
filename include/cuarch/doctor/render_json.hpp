// render_json: the `cuarch doctor --json` report, one document (schema "cuarch.doctor/1", first
// members "schema" and "cuarch_version") with stable keys. Written with the
// one JSON writer (core/detail/json.hpp: always valid UTF-8, raw bytes kept in "<key>_bytes") and
// the one error shape (core/detail/json_error.hpp). Key names follow the rest of cuarch's JSON:
// "kind" is a stable snake_case identifier (of a finding, of an error), "source" a source_kind,
// "path"/"real_path" file names, "version" a version, "error" an error object or null.
#pragma once

#include "../core/detail/json.hpp"
#include "../core/detail/json_document.hpp"
#include "../core/detail/json_error.hpp"
#include "definitions.hpp"  // declarations; refused where definitions are not compiled

CUARCH_BEGIN_NAMESPACE

namespace detail {

inline void json_devices(json_writer& w, const std::vector<device_info>& devs) {
  w.begin_array();
  for (const auto& dev : devs) {
    w.begin_object();
    w.key("ordinal").value(dev.ordinal);
    w.key("cc").value(to_text(dev.cc).view());
    w.key("name").value(dev.name);
    w.key("source").value(to_string(dev.source));
    w.end_object();
  }
  w.end_array();
}

inline void json_role(json_writer& w, const selection& s) {
  w.begin_object();
  w.key("candidate");
  if (s.index) {
    w.value(static_cast<long long>(*s.index));
  } else {
    w.null();
  }
  w.key("why").value(s.why);
  w.key("error");
  detail::json_optional_error(w, s.failure);
  w.end_object();
}

}  // namespace detail

// Declared, with its contract, in report.hpp.
CUARCH_FUNC std::string render_json(const detection& d, const std::vector<finding>& findings) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::doctor);
  w.key("roles").begin_object();
  w.key("jit_compiler");
  detail::json_role(w, d.jit_compiler);
  w.key("offline_compiler");
  detail::json_role(w, d.offline_compiler);
  w.key("driver");
  detail::json_role(w, d.driver);
  w.key("runtime");
  detail::json_role(w, d.runtime);
  w.key("nvcc_on_path");
  if (d.nvcc_on_path) {
    w.value(static_cast<long long>(*d.nvcc_on_path));
  } else {
    w.null();
  }
  w.end_object();

  w.key("candidates").begin_array();
  for (std::size_t i = 0; i < d.candidates.size(); ++i) {
    const candidate& c = d.candidates[i];
    w.begin_object();
    w.key("index").value(static_cast<long long>(i));
    w.key("source").value(to_string(c.source));
    w.key("describes");
    if (c.describes != source_kind::none) {
      w.value(to_string(c.describes));
    } else {
      w.null();
    }
    w.key("how").value(to_string(c.how));
    w.key("origin").value(c.origin);
    w.key("path").value(c.path);
    w.key("real_path").value(c.real_path);
    w.key("toolkit_root").value(c.toolkit_root);
    w.key("also_found_via").value(c.also_found_via);
    w.key("chosen").value(c.chosen);
    if (c.result) {
      w.key("version").value(to_text(c.result->version).view());
      w.key("raw").value(c.result->raw);
      w.key("error").null();
    } else {
      w.key("version").null();
      w.key("error");
      detail::json_error(w, c.result.error());
    }
    w.key("supported_sm_numbers").value(c.compiler ? c.compiler->supported_sm_numbers : std::nullopt);
    w.end_object();
  }
  w.end_array();

  w.key("toolkit_roots").begin_array();
  for (const auto& r : d.toolkit_roots) {
    w.begin_object();
    w.key("path").value(r.path);
    w.key("real_path").value(r.real_path);
    w.key("how").value(to_string(r.how));
    w.key("origin").value(r.origin);
    w.key("also_found_via").value(r.also_found_via);
    w.key("error");
    detail::json_optional_error(w, r.problem);
    w.end_object();
  }
  w.end_array();
  w.key("python_environments").begin_array();
  for (const auto& p : d.python_environments) {
    w.begin_object();
    w.key("prefix").value(p.prefix);
    w.key("how").value(to_string(p.how));
    w.key("origin").value(p.origin);
    w.key("site_packages").value(p.site_packages);
    w.key("error");
    detail::json_optional_error(w, p.problem);
    w.end_object();
  }
  w.end_array();

  w.key("devices").begin_object();
  w.key("given");
  if (d.given_devices) {
    detail::json_devices(w, *d.given_devices);
  } else {
    w.null();
  }
  w.key("driver");
  if (!d.driver_devices) {
    w.null();
  } else if (*d.driver_devices) {
    detail::json_devices(w, **d.driver_devices);
  } else {
    w.begin_object().key("error");
    detail::json_error(w, d.driver_devices->error());
    w.end_object();
  }
  w.key("driver_via");  // "NVML (<path>)" or "cuInit (<path>)"; null when the driver was not asked
  if (d.devices_via.empty()) w.null();
  else w.value(d.devices_via);
  w.key("driver_notes").value(d.devices_notes);
  w.key("effective");
  if (const auto devs = d.devices()) {
    detail::json_devices(w, *devs);
  } else {
    w.begin_object().key("error");
    detail::json_error(w, devs.error());
    w.end_object();
  }
  w.end_object();

  w.key("findings").begin_array();
  for (const auto& f : findings) {
    w.begin_object();
    w.key("kind").value(to_string(f.kind));
    w.key("severity").value(to_string(f.level));
    w.key("what").value(f.what);
    w.key("meaning").value(f.meaning);
    w.key("candidates").begin_array();
    for (const auto i : f.candidates) w.value(static_cast<long long>(i));
    w.end_array();
    w.end_object();
  }
  w.end_array();

  w.key("environment").begin_object();
  for (const auto& [k, v] : d.env.vars()) w.key(k).value(v);
  w.end_object();
  w.key("elapsed_us").value(static_cast<long long>(d.elapsed.count()));
  w.end_object();
  return w.str();
}

CUARCH_END_NAMESPACE
