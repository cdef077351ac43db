// render_text: the `cuarch doctor` screen. Every text from the machine goes through detail::printable:
// a control character or a byte that is not UTF-8 is shown escaped, never sent to the terminal raw.
#pragma once

#include <string_view>

#include "../core/detail/json.hpp"  // cuarch_version_text()
#include "../core/detail/utf8.hpp"
#include "definitions.hpp"  // declarations; refused where definitions are not compiled

CUARCH_BEGIN_NAMESPACE

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
  out += (c ? pad(std::string(to_string(c->source)) + " " + text_of(c->result->version), 18) + path_and_real(c->path, c->real_path)
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
      out += "  " + pad(std::to_string(dev.ordinal), 3) + pad(text_of(dev.cc), 6) +
             (dev.name.empty() ? std::string() : printable(dev.name) + " ") + "(" + std::string(to_string(dev.source)) + ")\n";
    if (d.given_devices && d.driver_devices) {
      if (*d.driver_devices) {
        out += "  the driver shows:";
        for (const auto& dev : **d.driver_devices)
          out += " " + std::to_string(dev.ordinal) + ":" + text_of(dev.cc) + " " + printable(dev.name);
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
    out += "  " + std::string(1, mark) + " " + pad(kind, 13) + pad(c.result ? text_of(c.result->version) : std::string("error"), 9) +
           path_and_real(c.path, c.real_path) + "\n";
    out += "      via " + text_origins(c);
    if (c.result && !c.result->raw.empty() && c.source != source_kind::nvrtc) out += "  [" + printable(c.result->raw) + "]";
    if (!c.result) out += "\n      " + printable(c.result.error().message());
    out += "\n";
  }
  if (!d.toolkit_roots.empty() || !d.python_environments.empty()) out += "toolkit roots and Python environments\n";
  for (const auto& r : d.toolkit_roots) {
    out += "  " + std::string(r.problem ? "! " : "  ") + path_and_real(r.path, r.real_path) + "  (" + text_origins(r) + ")\n";
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
  std::string out = "cuarch doctor " + cuarch_version_text() + ": every CUDA source this process can see\n\ncompile path\n";
  detail::text_role(out, d, d.jit_compiler, "JIT");
  detail::text_role(out, d, d.offline_compiler, "offline");
  if (d.nvcc_on_path && (!d.offline_compiler.index || *d.offline_compiler.index != *d.nvcc_on_path)) {
    const candidate& p = d.candidates[*d.nvcc_on_path];
    out += "           but a shell runs " + printable(p.path) + " (first on PATH: " +
           (p.result ? "nvcc " + detail::text_of(p.result->version) : "fails: " + std::string(to_string(p.result.error().code))) +
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
    out += "  [" + std::string(to_string(f.level)) + "] " + std::string(to_string(f.kind)) + ": " + printable(f.what) + "\n";
    out += "      means: " + printable(f.meaning) + "\n";
  }
  return out;
}

CUARCH_END_NAMESPACE
