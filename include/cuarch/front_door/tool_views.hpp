// The compilers the user's own tools would run, and whether they agree with the answer. cuarch
// decides with one compiler; CMake, setup.py, PyTorch extensions, FlashInfer and JIT code already
// running in this process each find their own (detect_mode::answer_and_tools asks exactly those).
// Where one of them would give a different verdict for the request - refuse a target the answer
// holds, build one the answer refused, or choose other targets - that bears on the answer: the
// warning names both compilers, who runs the other, and the fix that makes them one (following it
// leaves no such warning: detect/explain.hpp, aligning_fix).
#pragma once

#include "../core/config.hpp"

// Defined where definitions are compiled (core/config.hpp): only resolve_here() calls it.
#if CUARCH_DEFINITIONS
#  include <algorithm>
#  include <string>
#  include <vector>

#  include "../detect/explain.hpp"
#  include "../detect/result.hpp"
#  include "../doctor/analysis.hpp"
#  include "../doctor/finding.hpp"
#  include "../resolve/resolution.hpp"
#  include "../resolve/resolver.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// Who runs candidate `c` of `d`, in words ("CMake (CUDACXX)"), or empty when no tool of the user's
/// finds it on its own.
inline std::string who_runs(const detection& d, const candidate& c) {
  std::string who;
  const auto add = [&](const char* words) { who.append(who.empty() ? "" : "; ").append(words); };
  if (c.source == source_kind::nvrtc && c.how == discovery::already_loaded)
    add("JIT code in this process (the NVRTC it already loaded)");
  if (c.source != source_kind::nvcc) return who;
  if (detail::found_via(c, "CUDACXX=")) add("CMake (CUDACXX)");
  if (detail::found_via(c, "CUDA_HOME=") || detail::found_via(c, "CUDA_PATH=")) add("PyTorch extensions and FlashInfer ($CUDA_HOME)");
  if (d.nvcc_on_path && &d.candidates[*d.nvcc_on_path] == &c) add("CMake without CUDACXX, setup.py and a shell (first on PATH)");
  return who;
}

inline std::string target_names(const target_set& t) {
  std::string out;
  for (const auto& a : t) out.append(out.empty() ? "" : " ").append(to_text(a).view());
  return out;
}

/// What `other` would answer for the same request, as words, when that differs from `mine`; empty
/// when it is the same verdict.
template <class Devices, class Policy, class Driver>
std::string other_verdict(const arch_request& request, const compiler_info& other, const resolve_result& mine, const Devices& devices,
                          const Policy& policy, const Driver& driver) {
  const resolve_result theirs = resolve_target_archs(request, other, devices, policy, driver);
  if (!mine && !theirs) return {};
  if (mine && theirs) {
    const std::string a = target_names(mine->targets), b = target_names(theirs->targets);
    return a == b ? std::string() : "would build " + b + " instead of " + a;
  }
  if (mine) return "refuses it: " + theirs.error().summary.message();
  return "would build it (" + target_names(theirs->targets) + ")";
}

}  // namespace detail

/// The tool-view warnings for one resolution: for each compiler in `d` that a tool of the user's
/// runs (who_runs) or that governs the other compile path, other than `decider`, whose verdict on
/// `request` differs from `mine`.
template <class Devices, class Policy, class Driver>
std::vector<resolution_warning> tool_view_warnings(const detection& d, const candidate& decider, const arch_request& request,
                                                   const resolve_result& mine, const Devices& devices, const Policy& policy,
                                                   const Driver& driver) {
  std::vector<resolution_warning> out;
  std::vector<std::string> seen{decider.real_path};
  const candidate* cross = d.chosen(decider.source == source_kind::nvcc ? d.jit_compiler : d.offline_compiler);
  for (const candidate& c : d.candidates) {
    if ((c.source != source_kind::nvcc && c.source != source_kind::nvrtc) || !c.result || !c.compiler) continue;
    if (std::find(seen.begin(), seen.end(), c.real_path) != seen.end()) continue;
    std::string who = detail::who_runs(d, c);
    if (&c == cross)
      who.append(who.empty() ? "" : "; ").append(c.source == source_kind::nvcc ? "offline builds" : "JIT through NVRTC");
    if (who.empty()) continue;
    seen.push_back(c.real_path);
    const std::string verdict = detail::other_verdict(request, *c.compiler, mine, devices, policy, driver);
    if (verdict.empty()) continue;
    const bool same_kind = c.source == decider.source;
    const std::string mine_release = detail::release_text(decider.result->version), theirs = detail::release_text(c.result->version);
    out.push_back({same_kind ? "tool_compiler_disagrees" : std::string(to_string(finding_kind::nvcc_vs_nvrtc)),
                   detail::label(c) + " (run by " + who + ") " + verdict + "; cuarch decided with " + detail::label(decider),
                   same_kind ? "those tools would build with another compiler than the one these targets were validated by: " +
                                   detail::aligning_fix(d, decider)
                   : decider.source == source_kind::nvrtc
                       ? "these targets are for NVRTC " + mine_release + "; builds run nvcc " + theirs +
                             ": point the builds at a CUDA " + mine_release +
                             " toolkit (CUDA_HOME, PATH) so both are one release, or resolve for the builds with compiler nvcc"
                       : "these targets are for nvcc " + mine_release + "; JIT code in this process is compiled by NVRTC " + theirs +
                             ": resolve its targets with compiler nvrtc, or load the NVRTC of nvcc's own release"});
  }
  return out;
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
