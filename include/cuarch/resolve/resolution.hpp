// What resolution returns: a non-empty target set plus one diagnostic per request (kept,
// transformed from what and why, rejected and why), or a failure that carries every per-target
// reason. Both are plain values; resolver.hpp produces them, outputs.hpp spells them.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/arch.hpp"
#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/detail/utf8.hpp"
#include "../core/cuda_version.hpp"
#include "../core/detail/name_map.hpp"
#include "../core/detail/text.hpp"
#include "env_request.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "../core/parse.hpp"
#include "../core/source_kind.hpp"
#include "target_set.hpp"

CUARCH_BEGIN_NAMESPACE

/// What became of one request.
enum class resolution_outcome : unsigned char {
  kept,         // the target as asked (native: the documented choice for the device)
  transformed,  // another target stands in for it; `reason` says why the asked one could not
  rejected,     // nothing stands in for it; `reason` says why and what would fix it
};

inline constexpr std::string_view resolution_outcome_names[] = {"kept", "transformed", "rejected"};
constexpr std::string_view to_string(resolution_outcome o) noexcept {
  return detail::name_of(resolution_outcome_names, o);
}

/// Whether a device newer than the compiler got PTX instead of machine code.
enum class ptx_fallback_status : unsigned char {
  not_needed,    // machine code was found (or the request is not for a device)
  off,           // needed, but the policy does not allow it (resolve_policy::ptx_fallback)
  no_candidate,  // needed, but the compiler builds nothing at or below the device
  refused,       // tried: the driver cannot JIT it, or no driver was given (`fallback_error`)
  used,          // the result is that PTX
};

inline constexpr std::string_view ptx_fallback_status_names[] = {"not needed", "off", "no candidate", "refused", "used"};
constexpr std::string_view to_string(ptx_fallback_status s) noexcept {
  return detail::name_of(ptx_fallback_status_names, s);
}

/// The device a diagnostic is about (native requests; devices left with nothing under verify_on_devices).
struct resolved_device {
  int ordinal = 0;
  compute_capability cc{};
  detail::text<64> name;  // "NVIDIA H200"; empty for given devices
};

/// An error or none, read as std::optional<error> reads (bool, *, ->), but held on the heap: an
/// error is 760 bytes and most diagnostics (every kept one) have none. Copies copy the error.
class boxed_error {
 public:
  boxed_error() noexcept = default;
  boxed_error(const error& e) : p_(std::make_unique<error>(e)) {}  // NOLINT: implicit, as optional
  boxed_error(const boxed_error& o) : p_(o.p_ ? std::make_unique<error>(*o.p_) : nullptr) {}
  boxed_error(boxed_error&&) noexcept = default;
  boxed_error& operator=(boxed_error o) noexcept {
    p_ = std::move(o.p_);
    return *this;
  }

  explicit operator bool() const noexcept { return p_ != nullptr; }
  const error& operator*() const noexcept { return *p_; }
  const error* operator->() const noexcept { return p_.get(); }

 private:
  std::unique_ptr<error> p_;
};

/// One line of the report: a requested target, a keyword's target, or a native device. At most
/// 1 KB (tests/error_test.cpp pins it): one per request on the warm path, so its errors are boxed.
struct diagnostic {
  // User-provided on purpose: value-initialisation (emplace_back()) then runs only the member
  // initialisers instead of first zero-filling the whole object.
  diagnostic() noexcept {}

  /// The token as written ("9.0a", "sm_120a", "Ampere"), or the keyword ("native", "all").
  detail::text<48> input;
  /// Offset of the token in the request; error::no_position for keywords and devices.
  std::size_t position = error::no_position;
  std::optional<resolved_device> device;  // the device this request resolved for (native)
  /// What was asked: the parsed target, or for native the preferred target of the device.
  arch_target requested{};
  resolution_outcome outcome = resolution_outcome::kept;
  std::optional<arch_target> result;  // the target it contributes to the set; empty when rejected
  /// What decided that `result` is buildable: the compiler's list (nvrtc, nvcc) or knowledge_table.
  source_kind decided_by = source_kind::none;
  /// Transformed: why `requested` could not be used. Rejected: why nothing could, with the fix.
  boxed_error reason;
  /// Native devices: whether PTX stood in for machine code, and why not when it could not.
  ptx_fallback_status fallback = ptx_fallback_status::not_needed;
  boxed_error fallback_error;
  /// Native devices: the variant rule that chose the chain tried ("12.0=f,a", "default=a";
  /// resolve/native_variant.hpp). Empty for other requests.
  detail::text<48> preference;
  /// What the reader must know beyond the outcome: a substitution's caveat ("sm_120 runs on 12.1
  /// but without 12.1-specific features"), the candidate a named policy would take, a skipped variant.
  detail::text<200> note;

  /// One line: "'9.0a' at position 0: sm_90a kept", "native, device 0 (cc 12.0): sm_120a -> compute_90 ...".
  std::string message(const option_speller& spell = {}) const;
};

/// A compiler and where it came from: the one a resolution was judged against, or another that
/// detection saw and that would have satisfied the request (then `fix` says how to make it decide).
struct compiler_provenance {
  compiler_info compiler;  // kind, version, real path (empty for a bare version), supported-arch list
  std::string path;        // the path as found, when it differs from the real path (a symlink)
  /// How it was found, in words: "PATH (first on PATH: what a build or shell runs)",
  /// "CUDA_HOME=/usr/local/cuda (named by the environment)"; empty when the caller passed a value.
  std::string found;
  std::string how;     // the route's kind as detection names it ("PATH", "environment", "explicit argument")
  std::string origin;  // the route itself: "CUDA_HOME=/opt/cuda", "toolkit=13.0"
  std::string why;     // why it governs; empty for an alternative
  std::string fix;  // alternatives only: how to make it decide ("export CUDA_HOME=... PATH=...": front_door/explain.hpp)

  /// "nvcc 12.8.93 at /tmp/bin/nvcc, found via PATH (first on PATH: what a build or shell runs)".
  std::string describe() const;
};

/// A compiler known by its value alone: nothing says how it was found.
inline compiler_provenance bare_provenance(const compiler_info& c) {
  compiler_provenance p;
  p.compiler = c;
  return p;
}

/// A disagreement between sources that bears on a resolution's answer (the doctor's finding,
/// judged for this request: front_door/resolve_warnings.hpp): the answer stands, but a build that
/// picks another source may not get what it says.
struct resolution_warning {
  std::string kind;     // the doctor's finding kind: "nvcc_vs_nvrtc", "cuda_home_vs_path", ...
  std::string what;     // the facts, with where each came from
  std::string meaning;  // what it means for this answer, and what to do
};

/// A successful resolution.
struct resolution {
  target_set targets;                             // never empty
  std::vector<diagnostic> diagnostics;            // one per request, in request order (native: one per device)
  arch_keyword keyword = arch_keyword::none;      // native / all / all-major, or none for an explicit list
  request_origin origin;                          // an argument, or the environment variable that overrode it
  source_kind compiler_kind = source_kind::none;  // the compiler resolution validated against
  cuda_version compiler_version{};
  /// cuarch's table is older than the compiler (a newer release, or archs it does not know); the
  /// compiler's own list decided where it could.
  bool table_older_than_compiler = false;
};

/// A failed resolution: the summary error, and every diagnostic (each rejected one with its reason).
struct resolution_failure {
  resolution_failure() = default;
  resolution_failure(error why, std::vector<diagnostic> diags = {})
      : summary(why), diagnostics(std::move(diags)) {}  // NOLINT: implicit on purpose

  /// errc::nothing_resolved when targets were rejected (the policy decides when that fails);
  /// otherwise the error that stopped resolution before any target was judged: a malformed
  /// request (naming the environment variable it came from), no_device, or a source's error.
  error summary{};
  std::vector<diagnostic> diagnostics;

  /// The summary, then one line per rejected request. Who decided, what else would have built it
  /// and the warnings are the front door's to add (resolve_outcome::message): the resolver knows
  /// only the compiler's value, which its caller passed.
  std::string message(const option_speller& spell = {}) const;
};

using resolve_result = expected<resolution, resolution_failure>;

#if CUARCH_DEFINITIONS

CUARCH_FUNC std::string diagnostic::message(const option_speller& spell) const {
  std::string m;
  if (!input.empty()) {
    m = position == error::no_position ? std::string(input.view())
                                       : "'" + std::string(input.view()) + "' at position " + std::to_string(position);
  }
  if (device) {
    m.append(m.empty() ? "device " : ", device ").append(std::to_string(device->ordinal)).append(" (");
    if (!device->name.empty()) m.append(detail::printable(device->name.view())).append(", ");  // a node name: any bytes
    m.append("cc ").append(to_text(device->cc).view()).append(")");
  }
  m += ": ";
  m += to_text(requested).view();
  switch (outcome) {
    case resolution_outcome::kept: m += " kept"; break;
    case resolution_outcome::transformed:
      m += " -> ";
      if (result) m += to_text(*result).view();
      if (fallback == ptx_fallback_status::used) m += " (PTX fallback: the driver JITs it for the device)";
      m += ", because ";
      break;
    case resolution_outcome::rejected: m += " rejected: "; break;
  }
  if (outcome != resolution_outcome::kept && reason) m += reason->message(spell);
  if (result && decided_by != source_kind::none && decided_by != source_kind::knowledge_table)
    m += std::string(" [").append(to_string(decided_by)).append(" lists it]");
  if (!note.empty()) m += std::string("; ").append(note.view());
  if (outcome == resolution_outcome::rejected) {
    switch (fallback) {
      case ptx_fallback_status::off:
        m += "; a PTX fallback is off (" + spell("policy", "ptx-fallback") + "; it also needs " +
             spell("driver", "VERSION") + ")";
        break;
      case ptx_fallback_status::no_candidate:
        m += "; no PTX fallback: the compiler builds nothing at or below this device";
        break;
      case ptx_fallback_status::refused:
        m += "; PTX fallback refused: ";
        if (fallback_error) m += fallback_error->message(spell);
        break;
      case ptx_fallback_status::not_needed:
      case ptx_fallback_status::used: break;
    }
  }
  return m;
}

CUARCH_FUNC std::string compiler_provenance::describe() const {
  // A release the caller gave with its supported-arch list is no NVRTC or nvcc that was asked.
  std::string s(compiler.kind == source_kind::user_input ? "the toolkit given as CUDA" : to_string(compiler.kind));
  s.append(" ").append(to_text(compiler.version).view());
  if (compiler.kind == source_kind::user_input) s.append(" with its supported-arch list");
  if (!compiler.location.empty()) s.append(" at ").append(compiler.location);
  if (!path.empty() && path != compiler.location) s.append(" (as ").append(path).append(")");
  if (!found.empty()) s.append(", found via ").append(found);
  return s;
}

CUARCH_FUNC std::string resolution_failure::message(const option_speller& spell) const {
  std::string m = summary.message(spell);
  for (const auto& d : diagnostics)
    if (d.outcome == resolution_outcome::rejected) m += "\n  - " + d.message(spell);
  return m;
}

#endif  // CUARCH_DEFINITIONS

CUARCH_END_NAMESPACE
