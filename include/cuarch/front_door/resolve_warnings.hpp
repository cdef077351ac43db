// The doctor's findings that bear on one resolution, worded for the compile path that resolution
// used: those about the compiler that decided (nvcc vs its headers, a candidate that failed above
// it, PTX newer than the driver when the targets hold PTX, nvcc vs NVRTC), and a compiler of a
// newer major release than the driver (minor-version compatibility does not cross majors, so even
// machine code is at risk). Another compiler the user's tools run is judged by its verdict on the
// request instead (tool_views.hpp), not by its release alone.
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
#include "../doctor/finding.hpp"
#include "../doctor/report.hpp"

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
#  include "../doctor/analysis.hpp"

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
      case finding_kind::cuda_home_vs_cuda_path: keep(f); break;
      case finding_kind::invalid_environment:
      case finding_kind::invalid_toolkit_root:
        if (!role.named_root_failed) keep(f);  // else it is the failure itself, said once
        break;
      case finding_kind::nvcc_vs_headers:
      case finding_kind::nvcc_vs_toolkit_files:
      case finding_kind::nvrtc_vs_toolkit_files:
      case finding_kind::candidate_failed:
      case finding_kind::compiler_newer_than_driver:
        if (detail::involves(f, gov, d)) keep(f);
        break;
      case finding_kind::ptx_too_new_for_driver:
        if (detail::involves(f, gov, d) && detail::holds_ptx(targets)) keep(f);
        break;
      default: break;
    }
  }
  return out;
}

CUARCH_END_NAMESPACE
#endif
