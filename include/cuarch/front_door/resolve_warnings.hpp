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

CUARCH_FUNC std::vector<resolution_warning> resolve_warnings(const detection& d, source_kind compiler_kind, const target_set* targets) {
  std::vector<resolution_warning> out;
  const selection& role = compiler_kind == source_kind::nvrtc ? d.jit_compiler : d.offline_compiler;
  // Unknown targets (a failure) may hold PTX.
  const bool ptx = !targets ||
                   std::any_of(targets->begin(), targets->end(), [](const arch_target& t) { return t.form != arch_form::sass; });
  for (const finding& f : find_disagreements(d)) {
    const bool by_gov = role.index && std::find(f.candidates.begin(), f.candidates.end(), *role.index) != f.candidates.end();
    bool keep = false;
    switch (f.kind) {
      case finding_kind::cuda_home_vs_cuda_path: keep = true; break;
      case finding_kind::invalid_environment:
      case finding_kind::invalid_toolkit_root: keep = !role.named_root_failed; break;  // else it is the failure itself, said once
      case finding_kind::nvcc_vs_headers:
      case finding_kind::nvcc_vs_toolkit_files:
      case finding_kind::nvrtc_vs_toolkit_files:
      case finding_kind::candidate_failed:
      case finding_kind::compiler_newer_than_driver: keep = by_gov; break;
      case finding_kind::ptx_too_new_for_driver: keep = by_gov && ptx; break;
      default: break;
    }
    if (keep && f.level >= severity::warning) out.push_back({std::string(to_string(f.kind)), f.what, f.meaning});
  }
  return out;
}

CUARCH_END_NAMESPACE
#endif
