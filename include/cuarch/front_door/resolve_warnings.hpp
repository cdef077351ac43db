// The warnings that bear on one resolution (docs/library.md, "Warnings"): the doctor's findings about
// the compiler that decided, from only the analyses that can bear on it (resolve_warnings()), and the
// compilers the user's own tools would run, judged by their verdict on the request, each with the fix
// that makes them one (tool_view_warnings()).
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

/// The disagreements in `d` that bear on a resolution by the governing `compiler_kind` (nvrtc or nvcc)
/// for `targets` (null: unknown, a failure). Empty too when detection asked too little to tell.
CUARCH_FUNC std::vector<resolution_warning> resolve_warnings(const detection& d, source_kind compiler_kind,
                                                             const target_set* targets = nullptr);

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "explain.hpp"
#  include "../doctor/analysis.hpp"

CUARCH_BEGIN_NAMESPACE

CUARCH_FUNC std::vector<resolution_warning> resolve_warnings(const detection& d, source_kind compiler_kind,
                                                             const target_set* targets) {
  std::vector<resolution_warning> out;
  const selection& role = compiler_kind == source_kind::nvrtc ? d.jit_compiler : d.offline_compiler;
  const bool ptx = !targets ||  // unknown targets (a failure) may hold PTX
                   std::any_of(targets->begin(), targets->end(),
                               [](const arch_target& t) { return t.form != arch_form::sass; });
  for (const finding& f : detail::analyzer(d).bearing_on_a_resolution()) {
    const bool by_gov = role.index &&
                        std::find(f.candidates.begin(), f.candidates.end(), *role.index) != f.candidates.end();
    bool keep = false;
    switch (f.kind) {
      case finding_kind::cuda_home_vs_cuda_path: keep = true; break;
      case finding_kind::invalid_environment:
      case finding_kind::invalid_toolkit_root:
        keep = !role.named_root_failed;
        break;  // else it is the failure itself, said once
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

namespace detail {

/// Who runs candidate `c` of `d` ("CMake (CUDACXX)"), `cross` being the other compile path's
/// governing compiler; empty when no tool of the user's finds it.
inline std::string who_runs(const detection& d, const candidate& c, const candidate* cross) {
  std::string who;
  const auto add = [&](const char* words) { who.append(who.empty() ? "" : "; ").append(words); };
  if (c.source == source_kind::nvrtc && c.how == discovery::already_loaded)
    add("JIT code in this process (the NVRTC it already loaded)");
  if (&c == cross && c.source == source_kind::nvrtc) add("JIT through NVRTC");
  if (c.source != source_kind::nvcc) return who;
  if (detail::found_via(c, "CUDACXX=")) add("CMake (CUDACXX)");
  if (detail::found_via(c, "CUDA_HOME=") || detail::found_via(c, "CUDA_PATH="))
    add("PyTorch extensions and FlashInfer ($CUDA_HOME)");
  if (d.nvcc_on_path && &d.candidates[*d.nvcc_on_path] == &c)
    add("CMake without CUDACXX, setup.py and a shell (first on PATH)");
  if (&c == cross) add("offline builds");
  return who;
}

inline std::string target_names(const target_set& t) {
  std::string out;
  for (const auto& a : t) out.append(out.empty() ? "" : " ").append(to_text(a).view());
  return out;
}

/// Another compiler's verdict `theirs` on the same request, when it differs from `mine`; else empty.
inline std::string other_verdict(const resolve_result& mine, const resolve_result& theirs) {
  if (!mine && !theirs) return {};
  if (mine && theirs) {
    const std::string a = target_names(mine->targets), b = target_names(theirs->targets);
    return a == b ? std::string() : "would build " + b + " instead of " + a;
  }
  if (mine) return "refuses it: " + theirs.error().summary.message();
  return "would build it (" + target_names(theirs->targets) + ")";
}

}  // namespace detail

/// A warning for each compiler in `d` but `decider` that a tool of the user's runs (who_runs) or that
/// governs the other compile path, whose verdict (`resolve(compiler_info)`) differs from `mine`.
template <class Resolve>
std::vector<resolution_warning> tool_view_warnings(const detection& d, const candidate& decider,
                                                   const resolve_result& mine, const Resolve& resolve,
                                                   const option_speller& spell = {}) {
  std::vector<resolution_warning> out;
  std::vector<std::string> seen{decider.real_path};
  const candidate* cross = d.chosen(decider.source == source_kind::nvcc ? d.jit_compiler : d.offline_compiler);
  for (const candidate& c : d.candidates) {
    if ((c.source != source_kind::nvcc && c.source != source_kind::nvrtc) || !c.result || !c.compiler) continue;
    if (std::find(seen.begin(), seen.end(), c.real_path) != seen.end()) continue;
    const std::string who = detail::who_runs(d, c, cross);
    if (who.empty()) continue;
    seen.push_back(c.real_path);
    const std::string verdict = detail::other_verdict(mine, resolve(*c.compiler));
    if (verdict.empty()) continue;
    const bool same_kind = c.source == decider.source;
    const std::string mine_release = detail::release_text(decider.result->version),
                      theirs = detail::release_text(c.result->version);
    out.push_back(
        {same_kind ? "tool_compiler_disagrees" : std::string(to_string(finding_kind::nvcc_vs_nvrtc)),
         detail::label(c) + " (run by " + who + ") " + verdict + "; cuarch decided with " + detail::label(decider),
         same_kind ? "those tools would build with another compiler than the one these targets were validated by: " +
                         detail::aligning_fix(d, decider, spell)
         : decider.source == source_kind::nvrtc
             ? "these targets are for NVRTC " + mine_release + "; builds run nvcc " + theirs +
                   ": point the builds at a CUDA " + mine_release +
                   " toolkit (CUDA_HOME, PATH) so both are one release, or resolve for the builds with " +
                   spell("compiler", "nvcc")
             : "these targets are for nvcc " + mine_release + "; JIT code in this process is compiled by NVRTC " +
                   theirs + ": resolve its targets with " + spell("compiler", "nvrtc") +
                   ", or load the NVRTC of nvcc's own release"});
  }
  return out;
}

CUARCH_END_NAMESPACE
#endif
