// Explaining a failed resolution with what detection knows: which compiler decided and how it was
// found ("PATH /usr/bin/nvcc (first on PATH ...)"), every other compiler detection saw that would
// have satisfied the same request, each with the exact fix, and, when no compiler was found at
// all, the places searched. The resolver (resolve/resolver.hpp) only knows the compiler's value;
// the where and how live here, at the edge, so the pure layers stay free of detection.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "../resolve/env_request.hpp"
#include "../resolve/resolution.hpp"
#include "../resolve/resolver.hpp"
#include "detector.hpp"
#include "result.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

inline std::string found_words(const candidate& c) { return c.origin + " (" + std::string(describe_how(c.how)) + ")"; }

inline compiler_provenance provenance_from(const candidate& c) {
  compiler_provenance p;
  p.compiler = *c.compiler;
  if (p.compiler.location.empty()) p.compiler.location = c.real_path;
  p.path = c.path;
  p.found = found_words(c);
  return p;
}

/// Whether setting CUDA_HOME would outrank the candidate that decided (see detect/plan.hpp): only
/// PATH, the loader, the default locations and the environment's own toolkit roots rank below it.
inline bool cuda_home_outranks(const candidate& decider) {
  switch (decider.how) {
    case discovery::path_search:
    case discovery::loader_search:
    case discovery::default_location: return true;
    case discovery::environment:
      return starts_with(decider.origin, "CUDA_HOME=") || starts_with(decider.origin, "CUDA_PATH=") ||
             starts_with(decider.origin, "CONDA_PREFIX=");
    default: return false;
  }
}

/// The exact fix that makes `alt` decide instead of `decider` (null: none decided).
inline std::string fix_for(const candidate& alt, const candidate* decider) {
  const bool nvcc = alt.source == source_kind::nvcc;
  const std::string file = alt.path.empty() ? alt.real_path : alt.path;
  const std::string name_it = std::string("pass ") + (nvcc ? "--nvcc " : "--nvrtc ") + file + " (or set " +
                              (nvcc ? "CUARCH_NVCC=" : "CUARCH_NVRTC=") + file + ")";
  if (alt.toolkit_root.empty() || (decider && !cuda_home_outranks(*decider))) return name_it;
  return "set CUDA_HOME=" + alt.toolkit_root + ", or " + name_it;
}

}  // namespace detail

/// The compiler governing `role` in `d`, with how it was found; nullopt when none governs.
inline std::optional<compiler_provenance> provenance_of(const detection& d, const selection& role) {
  const candidate* c = d.chosen(role);
  if (!c || !c->compiler) return std::nullopt;
  return detail::provenance_from(*c);
}

/// Names in `f` how its compiler was found (when `role` of `d` governed it) and, when no compiler
/// was found at all, every place searched; copies the role's failure reason in when the resolver
/// never got a compiler.
inline void name_decider(resolution_failure& f, const detection& d, const selection& role) {
  if (auto p = provenance_of(d, role)) {
    const bool same = !f.compiler || f.compiler->compiler.location.empty() || f.compiler->compiler.location == p->compiler.location;
    if (same) f.compiler = std::move(*p);
  }
  if (!role.index && f.searched.empty()) f.searched = role.searched;
}

/// Adds to `f` every other compiler of the role's kind in `d` that answered and for which
/// `satisfies(compiler_info)` holds, each with its fix. `d` may be a fuller detection than the one
/// that decided (every candidate, not just the first that answered).
template <class Satisfies>
void add_alternatives(resolution_failure& f, const detection& d, const selection& role, source_kind kind, Satisfies&& satisfies) {
  const candidate* decider = d.chosen(role);
  const std::string decided_path = f.compiler ? f.compiler->compiler.location : std::string();
  for (const candidate& c : d.candidates) {
    if (c.source != kind || !c.result || !c.compiler || &c == decider) continue;
    if (!decided_path.empty() && (c.real_path == decided_path || c.compiler->location == decided_path)) continue;
    bool known = false;
    for (const auto& a : f.alternatives) known = known || a.compiler.location == c.real_path;
    if (known || !satisfies(*c.compiler)) continue;
    compiler_provenance p = detail::provenance_from(c);
    p.fix = detail::fix_for(c, decider);
    f.alternatives.push_back(std::move(p));
  }
}

/// Both: how the deciding compiler was found, and the alternatives that would resolve `request`
/// under the same devices, policy and driver.
template <class Devices, class Policy, class Driver>
void explain_failure(resolution_failure& f, const detection& d, const selection& role, source_kind kind, const arch_request& request,
                     const Devices& devices, const Policy& policy, const Driver& driver) {
  name_decider(f, d, role);
  add_alternatives(f, d, role, kind,
                   [&](const compiler_info& c) { return resolve_target_archs(request, c, devices, policy, driver).has_value(); });
}

/// How long explain_failure_fully() may spend walking the compile role again.
inline constexpr std::chrono::milliseconds alternatives_budget{1000};

/// explain_failure() for a detection that stopped at the compiler that decided (first_answer: what
/// `cuarch resolve` and Python's resolve() ask): the compile role is walked again, every candidate,
/// within `budget`, so compilers lower in the order are seen too, and a hanging one cannot hold the
/// answer up. `asked` is what detected `found`; `jit` picks NVRTC (else nvcc). Returns how many
/// candidates of the role could not be asked within the budget (the caller says so).
template <class Devices, class Policy, class Driver>
std::size_t explain_failure_fully(resolution_failure& f, const detection& found, const detect_options& asked, bool jit,
                                  const arch_request& request, const Devices& devices, const Policy& policy, const Driver& driver,
                                  std::chrono::milliseconds budget = alternatives_budget) {
  const source_kind kind = jit ? source_kind::nvrtc : source_kind::nvcc;
  name_decider(f, found, jit ? found.jit_compiler : found.offline_compiler);
  std::optional<detection> every;
  const detection* all = &found;
  if (asked.mode == detect_mode::first_answer) {
    detect_options more = asked;
    more.roles = jit ? detect_role::jit_compiler : detect_role::offline_compiler;
    more.mode = detect_mode::enumerate_all;
    more.query_devices = false;
    more.deadline = std::min(more.deadline, budget);
    more.tool_timeout = std::min(more.tool_timeout, budget);
    every = detect(more);
    all = &*every;
  }
  add_alternatives(f, *all, jit ? all->jit_compiler : all->offline_compiler, kind,
                   [&](const compiler_info& c) { return resolve_target_archs(request, c, devices, policy, driver).has_value(); });
  std::size_t not_asked = 0;
  for (const auto& c : all->candidates) not_asked += c.source == kind && !c.probed ? 1 : 0;
  return not_asked;
}

CUARCH_END_NAMESPACE
