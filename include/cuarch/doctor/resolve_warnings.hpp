// The doctor's findings that bear on one resolution, worded for the compile path that resolution
// used. `cuarch resolve` (and anyone resolving against a detection) prints them where the
// decision is made, instead of leaving them to a doctor run nobody makes at that moment.
//
// One analysis: the findings come from find_disagreements() (analysis.hpp); this header only
// chooses those that concern the compiler that decided and the targets it produced, rewrites the
// advice for the JIT style at hand, and adds two rules that only make sense for one answer:
//   * a compiler named by an override (--nvcc/--nvrtc, CUARCH_*, CUDACXX) while $CUDA_HOME holds
//     another release (PyTorch extensions and FlashInfer build with $CUDA_HOME/bin/nvcc), and
//   * a compiler of a newer major release than the driver (minor-version compatibility does not
//     cross majors, so even machine code is at risk). A newer minor is no warning for machine
//     code; for PTX it is (ptx_too_new_for_driver, kept only when the targets hold PTX).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "../core/arch.hpp"
#include "../core/config.hpp"
#include "../core/source_kind.hpp"
#include "../detect/detector.hpp"
#include "../resolve/resolution.hpp"
#include "../resolve/target_set.hpp"
#include "finding.hpp"
#include "report.hpp"

CUARCH_BEGIN_NAMESPACE

/// The disagreements in `d` that bear on a resolution made with the compiler of kind
/// `compiler_kind` (nvrtc or nvcc) governing its role, for `targets` (null: unknown, e.g. a
/// failure). Empty when nothing disagrees, or when detection asked too little to tell.
CUARCH_FUNC std::vector<resolution_warning> resolve_warnings(const detection& d, source_kind compiler_kind,
                                                             const target_set* targets = nullptr);

CUARCH_END_NAMESPACE

// Defined where definitions are compiled: every TU in header-only mode, src/cuarch.cpp in compiled
// mode (core/config.hpp).
#if CUARCH_DEFINITIONS
#  include "analysis.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

inline bool involves(const finding& f, const candidate* c, const detection& d) {
  if (!c) return false;
  const auto index = static_cast<std::size_t>(c - d.candidates.data());
  return std::find(f.candidates.begin(), f.candidates.end(), index) != f.candidates.end();
}

inline bool holds_ptx(const target_set* targets) {
  if (!targets) return true;  // unknown (a failure): PTX may be asked
  for (const auto& t : *targets)
    if (t.form != arch_form::sass) return true;
  return false;
}

/// The advice for nvcc vs NVRTC, for the compile path that decided.
inline std::string nvcc_vs_nvrtc_advice(bool jit, const candidate& jit_c, const candidate& off_c) {
  const std::string nvrtc = release_text(jit_c.result->version), nvcc = release_text(off_c.result->version);
  if (jit)
    return "these targets are for NVRTC " + nvrtc +
           ", right for a JIT that calls NVRTC (CuPy, jitify, cuda.core); a JIT that compiles with "
           "nvcc (FlashInfer, PyTorch extensions: $CUDA_HOME/bin/nvcc) and offline builds use nvcc " +
           nvcc + ": resolve for them with --compiler nvcc, or make both one toolkit";
  return "these targets are for nvcc " + nvcc +
         ", right for offline builds and for a JIT that compiles with nvcc (FlashInfer, PyTorch "
         "extensions); code JIT-compiled through NVRTC (CuPy, jitify, cuda.core) is built by NVRTC " +
         nvrtc + ": decide its targets from NVRTC (--compiler nvrtc), or make both one toolkit";
}

/// $CUDA_HOME's toolkit root and the release it holds (from its version files or its compiler).
struct cuda_home_release {
  const toolkit_root* root = nullptr;
  std::optional<cuda_version> version;
  std::string said_by;  // the file or compiler that said it
};

inline cuda_home_release find_cuda_home(const detection& d, source_kind kind) {
  cuda_home_release out;
  for (const auto& r : d.toolkit_roots) {
    const bool named = starts_with(r.origin, "CUDA_HOME=") ||
                       std::any_of(r.also_found_via.begin(), r.also_found_via.end(),
                                   [](const std::string& v) { return starts_with(v, "CUDA_HOME="); });
    if (named && !r.problem) {
      out.root = &r;
      break;
    }
  }
  if (!out.root) return out;
  for (const auto& c : d.candidates) {
    if (!c.result || c.toolkit_root != out.root->real_path) continue;
    const bool compiler = c.source == kind;
    const bool files = c.source == source_kind::toolkit_files && (c.describes == source_kind::none || c.describes == kind);
    if (!compiler && !files) continue;
    if (files && out.version) continue;  // the first file (version.json before cuda.h) says it
    out.version = c.result->version;
    out.said_by = c.path;
    if (compiler) break;  // the compiler itself beats its files
  }
  return out;
}

}  // namespace detail

CUARCH_FUNC std::vector<resolution_warning> resolve_warnings(const detection& d, source_kind compiler_kind, const target_set* targets) {
  std::vector<resolution_warning> out;
  const bool jit = compiler_kind == source_kind::nvrtc;
  const selection& role = jit ? d.jit_compiler : d.offline_compiler;
  const candidate* gov = d.chosen(role);
  const auto keep = [&](const finding& f, std::string meaning = {}) {
    out.push_back({std::string(to_string(f.kind)), f.what, meaning.empty() ? f.meaning : std::move(meaning)});
  };
  for (const finding& f : find_disagreements(d)) {
    if (f.level < severity::warning) continue;
    switch (f.kind) {
      case finding_kind::nvcc_vs_nvrtc: {
        const candidate* j = d.chosen(d.jit_compiler);
        const candidate* o = d.chosen(d.offline_compiler);
        if (j && o && j->result && o->result) keep(f, detail::nvcc_vs_nvrtc_advice(jit, *j, *o));
        break;
      }
      case finding_kind::cuda_home_vs_path:
        if (!jit) keep(f);
        break;
      case finding_kind::cuda_home_vs_cuda_path: keep(f); break;
      case finding_kind::invalid_environment:
      case finding_kind::invalid_toolkit_root:
        if (!role.named_root_failed) keep(f);  // else it is the failure itself, said once
        break;
      case finding_kind::nvcc_vs_headers:
      case finding_kind::nvcc_vs_toolkit_files:
      case finding_kind::nvrtc_vs_toolkit_files:
      case finding_kind::candidate_failed:
        if (detail::involves(f, gov, d)) keep(f);
        break;
      case finding_kind::ptx_too_new_for_driver:
        if (detail::involves(f, gov, d) && detail::holds_ptx(targets)) keep(f);
        break;
      default: break;
    }
  }
  if (!detail::answered(gov)) return out;

  // An override against $CUDA_HOME's toolkit.
  const bool overridden = gov->how == discovery::explicit_argument ||
                          (gov->how == discovery::environment && !detail::starts_with(gov->origin, "CUDA_HOME=") &&
                           !detail::starts_with(gov->origin, "CUDA_PATH=") && !detail::starts_with(gov->origin, "CONDA_PREFIX="));
  if (overridden) {
    const auto home = detail::find_cuda_home(d, compiler_kind);
    if (home.root && home.version && home.root->real_path != gov->toolkit_root &&
        home.version->release() != gov->result->version.release()) {
      const std::string ver = detail::release_text(*home.version);
      out.push_back(
          {"override_vs_cuda_home",
           detail::label(*gov) + " was named explicitly, but " + home.root->origin + " holds CUDA " + ver + " (" + home.said_by + ")",
           jit ? "a JIT that calls NVRTC gets these targets; one that compiles with nvcc (FlashInfer, PyTorch extensions) uses "
                 "$CUDA_HOME/bin/nvcc, CUDA " +
                     ver +
                     ", and needs its own: resolve with --nvcc $CUDA_HOME/bin/nvcc, or set "
                     "CUDA_HOME to the toolkit you named"
               : "PyTorch extensions and FlashInfer build with $CUDA_HOME/bin/nvcc (CUDA " + ver +
                     "), not with the nvcc named "
                     "here: set CUDA_HOME to the toolkit of the nvcc you named, or drop the override"});
    }
  }

  // A compiler of a newer major release than the driver.
  if (const candidate* drv = d.chosen(d.driver); detail::answered(drv) && drv->result->version.major < gov->result->version.major)
    out.push_back({"compiler_newer_than_driver",
                   detail::label(*gov) + " is a newer major release than the driver, which serves CUDA " +
                       detail::release_text(drv->result->version),
                   "minor-version compatibility does not cross major releases: code it builds may not load here; update the driver, or "
                   "compile with a CUDA " +
                       std::to_string(drv->result->version.major) + ".x toolkit"});
  return out;
}

CUARCH_END_NAMESPACE
#endif
