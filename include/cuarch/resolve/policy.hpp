// Resolution policies: what happens to a target the compiler cannot build, to a device newer than
// the compiler, and which variant `native` picks for each device. docs/design.md, "Resolution", says
// why that is `a` by default (Triton, numba-cuda and FlashInfer agree for cc >= 9.0) and why a lower
// minor's machine code is used only under compatible_minor.
#pragma once

#include <optional>
#include <string_view>

#include "../core/arch.hpp"
#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/detail/name_map.hpp"
#include "native_variant.hpp"

CUARCH_BEGIN_NAMESPACE

/// What happens to a requested target the compiler cannot build (or a driver cannot JIT).
enum class on_unbuildable : unsigned char {
  error,  // strict: the whole resolution fails, with every target's reason
  drop,   // best effort: the target is dropped and reported; still an error when nothing remains
};

constexpr std::string_view to_string(on_unbuildable u) noexcept {
  return u == on_unbuildable::drop ? "best-effort" : "strict";
}

/// The knobs of resolution. Use it as is (runtime choice), or through a type derived from it
/// (strict_policy, best_effort_policy, jit_policy, or your own) that sets them in its constructor.
/// Resolution reads the knobs of the resolve_policy it is handed, by every front end alike: a
/// derived type's own members are never consulted (native_preferences is how `native` is steered).
struct resolve_policy {
  /// Targets the compiler cannot build: error (strict, the default) or drop (best effort).
  on_unbuildable unbuildable = on_unbuildable::error;
  /// An arch the compiler renamed (sm_101 -> sm_110 in CUDA 13.0) becomes its new name, reported
  /// as transformed. Off: the old name is rejected with the new one as the fix.
  bool follow_renames = false;
  /// A device newer than the compiler (nothing it can load is buildable as machine code) gets PTX
  /// of the newest buildable arch below it, only if the driver source says it can JIT it.
  bool ptx_fallback = false;
  /// For JIT: explicit targets are resolved for the visible devices (queried then): a target no
  /// device can load is rejected, and a device left with nothing it can load fails the resolution.
  bool verify_on_devices = false;
  /// Which variant `native` tries on each device (parse_native_variant_spec("12.0=f,9=a")); a
  /// device no rule matches gets "default=a" (then baseline).
  native_variant_preferences native_preferences;
  /// A device whose own architecture the compiler cannot build gets machine code of the highest
  /// buildable lower minor of its major (sm_120 for 12.1), reported with the caveat that the code
  /// lacks the device's own features. Off: that device is an error (or PTX, under ptx_fallback).
  bool compatible_minor = false;

  /// The rule `native` applies to `device`: the most specific of native_preferences, else "default=a".
  constexpr native_variant_rule native_rule_for(const compute_capability& device) const noexcept {
    if (const auto r = native_preferences.rule_for(device)) return *r;
    return native_variant_rule{-1, -1, variant_chain{arch_variant::arch_specific}};
  }
};

/// The policies by the names users write (command line, JSON, Python). Several combine, in order
/// ("best-effort,ptx-fallback"): each sets its own knobs on a resolve_policy (apply_policy).
enum class policy_name : unsigned char { strict, best_effort, ptx_fallback, verify_devices, compatible_minor };
inline constexpr std::string_view policy_names[] = {"strict", "best-effort", "ptx-fallback", "verify-devices",
                                                    "compatible-minor"};
inline constexpr auto all_policy_names = detail::enumerators<policy_name>(policy_names);

constexpr std::string_view to_string(policy_name e) noexcept { return detail::name_of(policy_names, e); }
/// The policy spelled `name` (as to_string writes it); nullopt for any other text.
constexpr std::optional<policy_name> parse_policy_name(std::string_view name) noexcept {
  return detail::find_by_name(all_policy_names, name);
}
/// Sets the knobs `p` stands for (strict and best-effort set the same ones, the last one given wins).
constexpr void apply_policy(policy_name p, resolve_policy& into) noexcept {
  switch (p) {
    case policy_name::strict:
      into.unbuildable = on_unbuildable::error;
      into.follow_renames = false;
      break;
    case policy_name::best_effort:
      into.unbuildable = on_unbuildable::drop;
      into.follow_renames = true;
      break;
    case policy_name::ptx_fallback: into.ptx_fallback = true; break;
    case policy_name::verify_devices: into.verify_on_devices = true; break;
    case policy_name::compatible_minor: into.compatible_minor = true; break;
  }
}

/// Applies a comma-separated list of policy names ("best-effort,ptx-fallback") in order. Returns the
/// first entry that is no policy name (an empty entry included), or nullopt when all were applied.
constexpr std::optional<std::string_view> apply_policy_list(std::string_view list, resolve_policy& into) noexcept {
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    const auto p = parse_policy_name(name);
    if (!p) return name;
    apply_policy(*p, into);
    if (comma == std::string_view::npos) return std::nullopt;
    list.remove_prefix(comma + 1);
  }
}

/// Any target the compiler cannot build fails the resolution (the default).
struct strict_policy : resolve_policy {};

/// Unbuildable targets are dropped and reported; renamed archs follow their new name. Still an
/// error when nothing remains or a native device is left with nothing it can load.
struct best_effort_policy : resolve_policy {
  constexpr best_effort_policy() noexcept { apply_policy(policy_name::best_effort, *this); }
};

/// For a JIT library compiling for the GPUs of this process: strict, explicit targets verified
/// against the devices, PTX fallback for a device newer than the compiler when the driver can JIT it.
struct jit_policy : resolve_policy {
  constexpr jit_policy() noexcept {
    apply_policy(policy_name::ptx_fallback, *this);
    apply_policy(policy_name::verify_devices, *this);
  }
};

CUARCH_END_NAMESPACE
