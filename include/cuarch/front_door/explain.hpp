// Explaining a failed resolution with what detection knows: which compiler decided and how it was
// found, every other compiler detection saw that would have satisfied the same request, each with
// the exact fix, and, when no compiler was found at all, the places searched. The resolver only
// knows the compiler's value: the where and how live here, beside the door that asks, so the pure
// layers stay free of detection and detection stays free of resolution.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../core/config.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "../resolve/env_request.hpp"
#include "../resolve/resolution.hpp"
#include "../resolve/resolver.hpp"
#include "../sources/posix/posix.hpp"
#include "../sources/toolkit_files.hpp"
#include "../detect/detector.hpp"
#include "../detect/result.hpp"
#include "resolve_outcome.hpp"
#include "warm_detection.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

inline compiler_provenance provenance_from(const detection& d, const candidate& c) {
  compiler_provenance p = bare_provenance(*c.compiler);
  p.path = c.path;
  p.found = c.origin + " (" + std::string(d.how_found(c)) + ")";
  p.how = to_string(c.how);
  p.origin = c.origin;
  if (p.compiler.location.empty()) p.compiler.location = c.real_path;
  return p;
}

/// `value` as one shell word.
inline std::string shell_word(const std::string& value) {
  constexpr std::string_view plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.:-+=@,%";
  return !value.empty() && value.find_first_not_of(plain) == std::string::npos ? value : single_quoted(value);
}

/// The exact fix that makes `target` the compiler cuarch decides with AND the one every tool that
/// finds its own compiler runs (CMake: CUDACXX, else PATH; PyTorch extensions and FlashInfer:
/// $CUDA_HOME, else $CUDA_PATH, else PATH; a shell: PATH): following it leaves no compiler the
/// user's tools would run that disagrees with the answer. Shell words ("export CUDA_HOME=... PATH=...").
inline std::string aligning_fix(const detection& d, const candidate& target, const option_speller& spell = {}) {
  const bool nvcc = target.source == source_kind::nvcc;
  const std::string file = target.path.empty() ? target.real_path : target.path;
  std::string named_instead;  // an explicit argument outranks every variable: it must change too
  for (const candidate& c : d.candidates)
    if (c.source == target.source && c.how == discovery::explicit_argument && c.real_path != target.real_path)
      named_instead = std::string("name ") + file + " instead of " + echoed(c.path, path_words) + " (" +
                      spell(nvcc ? "nvcc" : "nvrtc") + ")";
  for (const toolkit_root& r : d.toolkit_roots)
    if (nvcc && r.how == discovery::explicit_argument && r.real_path != target.toolkit_root)
      named_instead = "drop the toolkit root named explicitly (" + echoed(r.path, path_words) + ")";
  std::string exports;  // " VAR=value ..."
  const auto set = [&](const char* var, const std::string& value) {
    exports.append(" ").append(var).append("=") += shell_word(value);
  };
  const auto other = [&](const char* var, const std::string& same) {
    const auto v = d.env.get_nonempty(var);
    return v && real_path(*v) != same;
  };
  if (!nvcc) {
    if (other("CUARCH_NVRTC", target.real_path) || named_instead.empty()) set("CUARCH_NVRTC", file);
  } else {
    if (other("CUARCH_NVCC", target.real_path)) set("CUARCH_NVCC", file);
    if (other("CUDACXX", target.real_path)) set("CUDACXX", file);
    const std::string& root = target.toolkit_root;
    if (!root.empty() && other("CUDA_HOME", root)) set("CUDA_HOME", root);
    if (!root.empty() && !d.env.get_nonempty("CUDA_HOME") && other("CUDA_PATH", root)) set("CUDA_PATH", root);
    const candidate* first = d.nvcc_on_path ? &d.candidates[*d.nvcc_on_path] : nullptr;
    if (!first || first->real_path != target.real_path) {
      exports += " PATH=\"";  // the bin directory in double quotes, beside $PATH
      for (const char ch : parent_dir(file))
        exports += std::string(ch == '"' || ch == '$' || ch == '\\' || ch == '`' ? "\\" : "") + ch;
      exports += ":$PATH\"";
    }
  }
  if (exports.empty()) return named_instead;
  return named_instead + (named_instead.empty() ? "export" : "; export") + exports;
}

}  // namespace detail

/// The compiler governing `role` in `d`, with how it was found; nullopt when none governs.
inline std::optional<compiler_provenance> provenance_of(const detection& d, const selection& role) {
  const candidate* c = d.chosen(role);
  if (!c || !c->compiler) return std::nullopt;
  compiler_provenance p = detail::provenance_from(d, *c);
  p.why = role.why;
  return p;
}

/// Names in `out` how its compiler was found (when `role` of `d` governed it) and, when no compiler
/// was found at all, every place searched.
inline void name_decider(resolve_outcome& out, const detection& d, const selection& role) {
  auto p = provenance_of(d, role);
  if (p && (!out.compiler || out.compiler->compiler.location.empty() ||
            out.compiler->compiler.location == p->compiler.location))
    out.compiler = std::move(*p);
  if (!role.index && out.searched.empty()) out.searched = role.searched;
}

/// Adds to `out` every other compiler of the role's kind in `d` that answered and for which
/// `satisfies(compiler_info)` holds, each with its fix. `d` may be a fuller detection than the one
/// that decided (every candidate, not just the first that answered).
template <class Satisfies>
void add_alternatives(resolve_outcome& out, const detection& d, const selection& role, source_kind kind,
                      Satisfies&& satisfies) {
  out.alternatives_sought = true;
  const candidate* decider = d.chosen(role);
  const std::string decided_path = out.compiler ? out.compiler->compiler.location : std::string();
  for (const candidate& c : d.candidates) {
    if (c.source != kind || !c.result || !c.compiler || &c == decider) continue;
    if (!decided_path.empty() && (c.real_path == decided_path || c.compiler->location == decided_path)) continue;
    const auto known = [&](const compiler_provenance& a) { return a.compiler.location == c.real_path; };
    if (std::any_of(out.alternatives.begin(), out.alternatives.end(), known) || !satisfies(*c.compiler)) continue;
    compiler_provenance p = detail::provenance_from(d, c);
    p.fix = detail::aligning_fix(d, c, out.spelling);
    out.alternatives.push_back(std::move(p));
  }
}

/// How long explain_failure() may spend walking the compile role again.
inline constexpr std::chrono::milliseconds alternatives_budget{1000};

/// Explains in `out` a failed resolution of `request`: name_decider, then add_alternatives for every other
/// compiler that resolves the same parse under the same devices, policy and driver. `asked` is what
/// detected `found`; `jit` picks NVRTC (else nvcc). A first_answer detection has its compile role
/// walked again, every candidate, within `budget` (a hanging compiler cannot hold the answer up).
/// Returns how many candidates of the role could not be asked within the budget (the caller says so).
template <class Devices, class Driver>
std::size_t explain_failure(resolve_outcome& out, const detection& found, const detect_options& asked, bool jit,
                            const parsed_request& request, const Devices& devices, const resolve_policy& policy,
                            const Driver& driver, std::chrono::milliseconds budget = alternatives_budget) {
  const source_kind kind = jit ? source_kind::nvrtc : source_kind::nvcc;
  name_decider(out, found, jit ? found.jit_compiler : found.offline_compiler);
  std::optional<detection> every;
  if (asked.mode != detect_mode::enumerate_all) {
    detect_options more = asked;
    more.roles = jit ? detect_role::jit_compiler : detect_role::offline_compiler;
    more.mode = detect_mode::enumerate_all;
    more.query_devices = false;
    more.deadline = std::min(more.deadline, budget);
    more.tool_timeout = std::min(more.tool_timeout, budget);
    every = detail::detect_or_recall(more);
  }
  const detection& all = every ? *every : found;
  add_alternatives(out, all, jit ? all.jit_compiler : all.offline_compiler, kind, [&](const compiler_info& c) {
    return resolve_parsed(request, c, devices, policy, driver).has_value();
  });
  return static_cast<std::size_t>(std::count_if(all.candidates.begin(), all.candidates.end(),
                                                [&](const candidate& c) { return c.source == kind && !c.probed; }));
}

CUARCH_END_NAMESPACE
