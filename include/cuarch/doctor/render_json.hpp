// render_json: the `cuarch doctor --json` report, schema "cuarch.doctor/1" (docs/json.md).
#pragma once

#include "../core/detail/json.hpp"
#include "definitions.hpp"  // declarations; refused where definitions are not compiled

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// The devices, or {"error": ...} when they could not be read.
inline void json_devices(json_writer& w, const expected<std::vector<device_info>, error>& devs) {
  if (!devs) {
    json_error(w.begin_object().key("error"), devs.error());
    w.end_object();
    return;
  }
  json_objects(w, *devs, [&](const device_info& dev) {
    w.key("ordinal").value(dev.ordinal).key("cc").value(to_text(dev.cc).view());
    w.key("name").value(dev.name).key("source").value(to_string(dev.source));
  });
}

inline void json_role(json_writer& w, const selection& s) {
  json_index(w.begin_object().key("candidate"), s.index).key("why").value(s.why);
  json_optional_error(w.key("error"), s.failure);
  w.end_object();
}

}  // namespace detail

CUARCH_FUNC std::string render_json(const detection& d, const std::vector<finding>& findings) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::doctor);
  w.key("roles").begin_object();
  detail::json_role(w.key("jit_compiler"), d.jit_compiler);
  detail::json_role(w.key("offline_compiler"), d.offline_compiler);
  detail::json_role(w.key("driver"), d.driver);
  detail::json_role(w.key("runtime"), d.runtime);
  detail::json_index(w.key("nvcc_on_path"), d.nvcc_on_path).end_object();

  detail::json_objects(w.key("candidates"), d.candidates, [&](const candidate& c) {
    w.key("index").value(static_cast<long long>(&c - d.candidates.data())).key("source").value(to_string(c.source));
    detail::text_or_null(w.key("describes"), c.describes == source_kind::none ? "" : to_string(c.describes));
    w.key("how").value(to_string(c.how)).key("origin").value(c.origin).key("path").value(c.path);
    w.key("real_path").value(c.real_path).key("toolkit_root").value(c.toolkit_root);
    w.key("also_found_via").value(c.also_found_via).key("chosen").value(c.chosen);
    if (c.result) w.key("version").value(to_text(c.result->version).view()).key("raw").value(c.result->raw).key("error").null();
    else detail::json_error(w.key("version").null().key("error"), c.result.error());
    w.key("supported_sm_numbers").value(c.compiler ? c.compiler->supported_sm_numbers : std::nullopt);
  });
  detail::json_objects(w.key("toolkit_roots"), d.toolkit_roots, [&](const toolkit_root& r) {
    w.key("path").value(r.path).key("real_path").value(r.real_path).key("how").value(to_string(r.how));
    w.key("origin").value(r.origin).key("also_found_via").value(r.also_found_via);
    detail::json_optional_error(w.key("error"), r.problem);
  });
  detail::json_objects(w.key("python_environments"), d.python_environments, [&](const python_environment& p) {
    w.key("prefix").value(p.prefix).key("how").value(to_string(p.how)).key("origin").value(p.origin);
    w.key("site_packages").value(p.site_packages);
    detail::json_optional_error(w.key("error"), p.problem);
  });

  // The devices each way they were read; driver_via null when the driver was not asked.
  w.key("devices").begin_object().key("given");
  if (d.given_devices) detail::json_devices(w, *d.given_devices);
  else w.null();
  w.key("driver");
  if (d.driver_devices) detail::json_devices(w, *d.driver_devices);
  else w.null();
  detail::text_or_null(w.key("driver_via"), d.devices_via).key("driver_notes").value(d.devices_notes);
  detail::json_devices(w.key("effective"), d.devices());
  w.end_object();

  detail::json_objects(w.key("findings"), findings, [&](const finding& f) {
    w.key("kind").value(to_string(f.kind)).key("severity").value(to_string(f.level));
    w.key("what").value(f.what).key("meaning").value(f.meaning).key("candidates").begin_array();
    for (const auto i : f.candidates) w.value(static_cast<long long>(i));
    w.end_array();
  });

  w.key("environment").begin_object();
  for (const auto& [k, v] : d.env.vars()) w.key(k).value(v);
  w.end_object().key("elapsed_us").value(static_cast<long long>(d.elapsed.count())).end_object();
  return w.str();
}

CUARCH_END_NAMESPACE
