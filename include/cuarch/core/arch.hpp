// arch_target: one thing a CUDA compiler can be asked to produce — machine code for one GPU
// (`sm_90a`), PTX for the driver to JIT (`compute_90`), or LTO IR (`lto_90`).
#pragma once

#include <optional>
#include <string_view>

#include "compute_capability.hpp"
#include "config.hpp"
#include "detail/name_map.hpp"
#include "detail/text.hpp"

CUARCH_BEGIN_NAMESPACE

/// Which devices the code is specialised for: every later minor (baseline), exactly this
/// compute capability (`a`, arch-specific, cc >= 9.0), or the family (`f`, family-specific, cc >= 10.0).
enum class arch_variant : unsigned char { baseline, arch_specific, family_specific };

/// The variant's name (suffix() is its spelling in a target: "", "a", "f").
inline constexpr std::string_view arch_variant_names[] = {"baseline", "arch_specific", "family_specific"};
inline constexpr auto all_arch_variants = detail::enumerators<arch_variant>(arch_variant_names);
constexpr std::string_view to_string(arch_variant v) noexcept { return detail::name_of(arch_variant_names, v); }

/// What the compiler emits: SASS in a cubin (`sm_`), PTX (`compute_`), or NVVM IR for LTO (`lto_`).
enum class arch_form : unsigned char { sass, ptx, lto };
inline constexpr std::string_view arch_form_names[] = {"sass", "ptx", "lto"};
constexpr std::string_view to_string(arch_form f) noexcept { return detail::name_of(arch_form_names, f); }

struct arch_target {
  compute_capability cc{};
  arch_variant variant = arch_variant::baseline;
  arch_form form = arch_form::sass;
};

// Identity only. Deliberately no ordering: `a` and `f` are not "more" than baseline; order by .cc.
constexpr bool operator==(const arch_target& a, const arch_target& b) noexcept {
  return a.cc == b.cc && a.variant == b.variant && a.form == b.form;
}
constexpr bool operator!=(const arch_target& a, const arch_target& b) noexcept { return !(a == b); }

/// "", "a" or "f"
inline constexpr std::string_view arch_variant_suffixes[] = {"", "a", "f"};
constexpr std::string_view suffix(arch_variant v) noexcept { return detail::name_of(arch_variant_suffixes, v); }
/// The variant named by to_string ("arch_specific") or by its suffix ("a", "f"); nullopt otherwise.
constexpr std::optional<arch_variant> parse_arch_variant(std::string_view name) noexcept {
  for (const arch_variant v : all_arch_variants)
    if (to_string(v) == name || (!suffix(v).empty() && suffix(v) == name)) return v;
  return std::nullopt;
}

/// "sm_", "compute_" or "lto_"
inline constexpr std::string_view arch_form_prefixes[] = {"sm_", "compute_", "lto_"};
constexpr std::string_view prefix(arch_form f) noexcept { return detail::name_of(arch_form_prefixes, f); }

/// The compiler spelling: "sm_120a", "compute_90", "lto_100f".
constexpr detail::text<16> to_text(const arch_target& t) {
  return detail::text<16>(prefix(t.form)).append_int(t.cc.sm_number()).append(suffix(t.variant));
}

/// Same cc and variant, another form (the PTX that goes with `sm_90a` is `compute_90a`).
constexpr arch_target with_form(arch_target t, arch_form f) noexcept {
  t.form = f;
  return t;
}

/// Whether NVIDIA defines this variant for this compute capability at all, whatever the toolkit:
/// `a` from 9.0 on (sm_90a, CUDA 12.0), `f` from 10.0 on (sm_100f, CUDA 12.9); no recorded NVRTC
/// accepts compute_80a, compute_88a or compute_90f (tests/data/nvrtc_releases.tsv).
constexpr bool variant_exists(const compute_capability& cc, arch_variant v) noexcept {
  return v == arch_variant::baseline || cc >= compute_capability{v == arch_variant::arch_specific ? 9 : 10, 0};
}

CUARCH_END_NAMESPACE
