// report: the doctor (docs/design.md, "The doctor"): its three entry points, find_disagreements()
// defined in analysis.hpp, the screen and its JSON below, where definitions are compiled.
#pragma once

#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../detect/detector.hpp"
#include "finding.hpp"

CUARCH_BEGIN_NAMESPACE

/// Every disagreement and broken source in a detection, most severe first.
CUARCH_FUNC std::vector<finding> find_disagreements(const detection& d);

/// The `cuarch doctor` screen: the governing compilers and driver with why, the devices, every
/// source found (chosen or not, failed or not), the toolkit roots, and the findings.
CUARCH_FUNC std::string render_text(const detection& d, const std::vector<finding>& findings);

/// The same report as JSON: one document, schema "cuarch.doctor/1" (docs/json.md).
CUARCH_FUNC std::string render_json(const detection& d, const std::vector<finding>& findings);

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "../core/detail/json.hpp"
#  include "../core/detail/utf8.hpp"
#  include "analysis.hpp"

CUARCH_BEGIN_NAMESPACE

// ---- render_text: the `cuarch doctor` screen ----------------------------------------------------
// Every text from the machine goes through detail::printable: a control character or a byte that is
// not UTF-8 is shown escaped, never sent to the terminal raw.

namespace detail {

inline std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

inline std::string short_name(source_kind s) {
  switch (s) {
    case source_kind::cuda_runtime: return "cudart";
    case source_kind::toolkit_files: return "file";
    case source_kind::python_wheel: return "wheel";
    case source_kind::compile_time: return "compile-time";
    default: return std::string(to_string(s));
  }
}

inline std::string path_and_real(const std::string& path, const std::string& real) {
  return printable(echoed(real.empty() || real == path ? path : path + " -> " + real, 2 * path_words));
}

/// "origin; also; also": where `x` (a candidate or a toolkit root) was met, first and again.
template <class Found>
std::string text_origins(const Found& x) {
  std::string s = printable(x.origin);
  for (const auto& v : x.also_found_via) s += "; " + printable(v);
  return s;
}

inline void text_role(std::string& out, const detection& d, const selection& s, const char* label_text) {
  out += "  " + pad(label_text, 9);
  const candidate* c = d.chosen(s);
  out += (c ? pad(std::string(to_string(c->source)) + " " + to_text(c->result->version).str(), 18) +
                  path_and_real(c->path, c->real_path)
            : "none: " + printable(s.failure ? s.failure->message() : std::string("not looked for"))) +
         "\n";
  if (c || !s.why.empty()) out += "           why: " + printable(s.why) + "\n";
  if (c && c->compiler && c->compiler->supported_sm_numbers) {
    out += "           builds:";
    for (const int n : *c->compiler->supported_sm_numbers) out += " sm_" + std::to_string(n);
    out += " (and their a/f variants per cuarch's table)\n";
  }
}

inline void text_devices(std::string& out, const detection& d) {
  out += "devices\n";
  const auto devs = d.devices();
  if (devs) {
    for (const auto& dev : *devs)
      out += "  " + pad(std::to_string(dev.ordinal), 3) + pad(to_text(dev.cc).str(), 6) +
             (dev.name.empty() ? std::string() : printable(dev.name) + " ") + "(" + std::string(to_string(dev.source)) +
             ")\n";
    if (d.given_devices && d.driver_devices) {
      if (*d.driver_devices) {
        out += "  the driver shows:";
        for (const auto& dev : **d.driver_devices)
          out += " " + std::to_string(dev.ordinal) + ":" + to_text(dev.cc).str() + " " + printable(dev.name);
        out += "\n";
      } else {
        out += "  (driver devices: " + printable(d.driver_devices->error().message()) + ")\n";
      }
    }
  } else {
    out += "  none: " + printable(devs.error().message()) + "\n";
  }
  // How the driver's devices were read: NVML leaves CUDA untouched; cuInit is said, with why.
  if (!d.devices_via.empty()) out += "  read through " + printable(d.devices_via) + "\n";
  for (const auto& note : d.devices_notes) out += "  note: " + printable(note) + "\n";
}

/// Every source found (chosen or not, failed or not), then the toolkit roots and Python environments.
inline void text_sources(std::string& out, const detection& d) {
  out += "sources (discovery order; * governs its role, ! failed)\n";
  for (const auto& c : d.candidates) {
    const char mark = c.chosen ? '*' : c.result ? ' ' : '!';
    std::string kind = short_name(c.source);
    if (c.describes != source_kind::none) kind += ":" + short_name(c.describes);
    out += "  " + std::string(1, mark) + " " + pad(kind, 13) +
           pad(c.result ? to_text(c.result->version).str() : std::string("error"), 9) +
           path_and_real(c.path, c.real_path) + "\n";
    out += "      via " + text_origins(c);
    if (c.result && !c.result->raw.empty() && c.source != source_kind::nvrtc)
      out += "  [" + printable(c.result->raw) + "]";
    if (!c.result) out += "\n      " + printable(c.result.error().message());
    out += "\n";
  }
  if (!d.toolkit_roots.empty() || !d.python_environments.empty()) out += "toolkit roots and Python environments\n";
  for (const auto& r : d.toolkit_roots) {
    out += "  " + std::string(r.problem ? "! " : "  ") + path_and_real(r.path, r.real_path) + "  (" + text_origins(r) +
           ")\n";
    if (r.problem) out += "      " + printable(r.problem->message()) + "\n";
  }
  for (const auto& p : d.python_environments) {
    out += "  " + std::string(p.problem ? "! " : "  ") + printable(p.prefix) + "  (" + printable(p.origin) + ")";
    for (const auto& sp : p.site_packages) out += "\n      site-packages " + printable(sp);
    out += "\n";
    if (p.problem) out += "      " + printable(p.problem->message()) + "\n";
  }
}

}  // namespace detail

CUARCH_FUNC std::string render_text(const detection& d, const std::vector<finding>& findings) {
  using detail::printable;
  std::string out = "cuarch doctor " + cuarch_version_text() +
                    ": every CUDA source this process can see\n\ncompile path\n";
  detail::text_role(out, d, d.jit_compiler, "JIT");
  detail::text_role(out, d, d.offline_compiler, "offline");
  if (d.nvcc_on_path && d.offline_compiler.index != d.nvcc_on_path) {
    const candidate& p = d.candidates[*d.nvcc_on_path];
    out += "           but a shell runs " + printable(p.path) + " (first on PATH: " +
           (p.result ? "nvcc " + to_text(p.result->version).str()
                     : "fails: " + std::string(to_string(p.result.error().code))) +
           ")\n";
  }
  out += "load path\n";
  detail::text_role(out, d, d.driver, "driver");
  detail::text_role(out, d, d.runtime, "runtime");

  detail::text_devices(out, d);
  detail::text_sources(out, d);
  std::size_t serious = 0;
  for (const auto& f : findings) serious += f.level != severity::info ? 1 : 0;
  out += "findings (" + std::to_string(findings.size()) + ", " + std::to_string(serious) + " warnings or problems)\n";
  if (findings.empty()) out += "  none: every source agrees\n";
  for (const auto& f : findings) {
    out += "  [" + std::string(to_string(f.level)) + "] " + std::string(to_string(f.kind)) + ": " + printable(f.what) +
           "\n";
    out += "      means: " + printable(f.meaning) + "\n";
  }
  return out;
}

// ---- render_json: the `cuarch doctor --json` report, schema "cuarch.doctor/1" (docs/json.md) -----

namespace detail {

/// The devices, {"error": ...} when they could not be read, or null when they were not asked for.
inline void json_devices(json_writer& w, const std::optional<expected<std::vector<device_info>, error>>& devs) {
  if (!devs) return void(w.null());
  if (*devs)
    return json_objects(w, **devs, [&](const device_info& dev) {
      w.key("ordinal").value(dev.ordinal).key("cc").value(to_text(dev.cc).view());
      w.key("name").value(dev.name).key("source").value(to_string(dev.source));
    });
  json_error(w.begin_object().key("error"), devs->error());
  w.end_object();
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
    if (c.result)
      w.key("version").value(to_text(c.result->version).view()).key("raw").value(c.result->raw).key("error").null();
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
  detail::json_devices(w.key("devices").begin_object().key("given"), d.given_devices);
  detail::json_devices(w.key("driver"), d.driver_devices);
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
#endif  // CUARCH_DEFINITIONS
