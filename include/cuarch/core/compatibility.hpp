// The rules, and only here: what a CUDA release can build (from the knowledge table), what a device
// can load, which targets cannot share one nvcc compilation, and whether a driver can JIT a
// compiler's PTX. Each check answers *why not* with a typed error. All constexpr: usable in static_assert.
#pragma once

#include <initializer_list>
#include <optional>

#include "arch.hpp"
#include "arch_table.hpp"
#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "error.hpp"
#include "expected.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {
constexpr text<200> older_than_table(const cuda_version& release) {
  text<200> why("CUDA ");
  why.append(to_text(release).view()).append(" is older than the oldest release cuarch knows (");
  return why.append(to_text(oldest_known_toolkit()).view()).append(")");
}
}  // namespace detail

/// A toolkit older than the table cannot be judged: invalid_version (the caller's input, exit 2),
/// the same error whichever front end named it (cuarch list, check, resolve, Python). nullopt: known.
constexpr std::optional<error> unknown_old_toolkit(const cuda_version& toolkit) {
  const cuda_version tk = toolkit.release();
  if (!(tk < oldest_known_toolkit())) return std::nullopt;
  return errors::invalid_version(source_kind::knowledge_table, to_text(tk).view(), detail::older_than_table(tk).view());
}

/// Whether CUDA `toolkit` (nvcc or NVRTC of that release) can build target t, by the table.
/// A toolkit newer than the table builds everything the newest known release builds: the table
/// never calls a newer toolkit "too old" (a live compiler query, where available, has the last word).
/// Errors: unknown_arch, variant_not_defined, needs_newer_toolkit, removed_in_toolkit,
/// renamed_in_toolkit, invalid_version (toolkit older than the table).
constexpr expected<void, error> check_buildable(const arch_target& t, const cuda_version& toolkit) {
  const cuda_version tk = toolkit.release();
  if (tk < oldest_known_toolkit())
    return unexpected(errors::invalid_version(source_kind::knowledge_table, t, tk, detail::older_than_table(tk).view()));
  const std::size_t index = arch_index(t.cc);
  if (index == not_found) {
    detail::text<200> why;
    if (newest_known_toolkit() < tk) {
      why.append("cuarch's table ends at CUDA ").append(to_text(newest_known_toolkit()).view());
      why.append("; CUDA ").append(to_text(tk).view()).append(" may support it, ask the compiler");
    }
    return unexpected(errors::unknown_arch(source_kind::knowledge_table, t, tk, why.view()));
  }
  const arch_row& row = arch_table[index];
  const cuda_version first = t.variant == arch_variant::arch_specific     ? row.first_a
                             : t.variant == arch_variant::family_specific ? row.first_f
                                                                          : row.first;
  if (!variant_exists(t.cc, t.variant) || detail::is_never(first))
    return unexpected(errors::variant_not_defined(source_kind::knowledge_table, t));
  if (!detail::is_never(row.removed_in) && row.removed_in <= tk) {
    if (row.renamed_to == compute_capability{})
      return unexpected(errors::removed_in_toolkit(source_kind::knowledge_table, t, row.removed_in, tk));
    const arch_target renamed{row.renamed_to, t.variant, t.form};
    return unexpected(errors::renamed_in_toolkit(source_kind::knowledge_table, t, renamed, row.removed_in, tk));
  }
  if (tk < first) { return unexpected(errors::needs_newer_toolkit(source_kind::knowledge_table, t, first, tk)); }
  return {};
}

constexpr bool is_buildable(const arch_target& t, const cuda_version& toolkit) {
  return check_buildable(t, toolkit).has_value();
}

/// Whether code built for t can run on a device of compute capability `device`: the rules are
/// docs/design.md's "Loadability" table, checked there on an H200; cases in tests/compatibility_test.cpp.
constexpr expected<void, error> check_loadable(const arch_target& t, const compute_capability& device) {
  const bool later_minor = t.cc.major == device.major && device.minor >= t.cc.minor;
  const bool jit_forward = t.variant == arch_variant::baseline && t.form != arch_form::sass;
  if (t.variant == arch_variant::arch_specific ? t.cc == device : jit_forward ? device >= t.cc : later_minor) return {};
  return unexpected(errors::cannot_load_on_device(source_kind::none, t, device));
}

constexpr bool can_load(const arch_target& t, const compute_capability& device) {
  return check_loadable(t, device).has_value();
}

/// Whether a driver serving CUDA `driver` may load code built by CUDA `compiler`: minor-version
/// compatibility does not cross majors (a 12.x driver runs what CUDA 12.x builds, not what 13.0
/// builds, unless the forward-compatibility package is installed). The doctor warns by it; a fleet
/// (`resolve --inventory`) fails a node by it.
constexpr bool driver_runs_code_of(const cuda_version& driver, const cuda_version& compiler) noexcept {
  return driver.major >= compiler.major;
}

/// Whether a driver serving CUDA `driver` drives a device of compute capability `cc` at all: NVIDIA's
/// drivers support a GPU from the release that first builds for it, the table's `first` (NVIDIA's
/// "CUDA Toolkit, Driver, and Architecture Matrix", DCDRV: Blackwell 10.0/12.0 from CUDA 12.8, Hopper
/// and Ada from 11.8, Ampere from 11.0; the release notes for the rest: 8.6 from 11.1, 8.7 from 11.4,
/// 10.3/12.1 from 12.9; docs/design.md, "The knowledge table"). A 12.4 driver runs no code on a
/// Blackwell GPU, whatever code it is. Not judged (no error): a cc the table does not know, and a
/// driver older than the table, whose `first` of 11.0 means "11.0 or earlier".
/// Error: cannot_load_on_device without a target: `device` cc, `required` the first release, `found` the driver.
constexpr expected<void, error> check_driver_drives_device(const compute_capability& cc, const cuda_version& driver) {
  const std::size_t i = arch_index(cc);
  const cuda_version d = driver.release();
  if (i == not_found || d < oldest_known_toolkit() || !(d < arch_table[i].first)) return {};
  error e{};
  e.code = errc::cannot_load_on_device;
  e.source = source_kind::knowledge_table;
  e.device = cc;
  e.required = arch_table[i].first;
  e.found = d;
  return unexpected(e);
}

/// Whether code built for `built` may use the feature set that `required` names (its variant and
/// compute capability; the form of either does not matter: compute_90a means what sm_90a means):
///   required X.Y  (baseline)  built for compute capability >= X.Y, any variant
///   required X.Yf (family)    built f or a, major X, minor >= Y   (10.0f: 10.0f, 10.0a, 10.3f, 10.3a)
///   required X.Ya (specific)  built exactly X.Ya                  (12.0+PTX and 12.0f do not)
/// device::provides (cuarch/device.hpp, which can include nothing) repeats them; tests/target_set_test.cpp
/// checks both agree on every pair of targets the table knows.
constexpr bool provides_features(const arch_target& built, const arch_target& required) noexcept {
  const bool specific_or_family = built.variant == arch_variant::arch_specific ||
                                  built.variant == arch_variant::family_specific;
  switch (required.variant) {
    case arch_variant::arch_specific: return built.variant == arch_variant::arch_specific && built.cc == required.cc;
    case arch_variant::family_specific:
      return specific_or_family && built.cc.major == required.cc.major && built.cc.minor >= required.cc.minor;
    case arch_variant::baseline: break;
  }
  return built.cc >= required.cc;
}

/// Whether targets a and b can be built by one nvcc compilation (a -gencode for each): all pairs but
/// machine code of a baseline arch with its own family-specific variant (sm_100 with sm_100f, the
/// same cubin), in either order (tests/data/nvcc_pairs_13.0.tsv: 1030 of 1035 pairs of nvcc 13.0's
/// 46 targets). Error (targets_conflict): target = the baseline sm_XY, replacement = sm_XYf.
constexpr expected<void, error> check_same_compilation(const arch_target& a, const arch_target& b) {
  if (a.form != arch_form::sass || b.form != arch_form::sass || a.cc != b.cc) return {};
  const arch_target& base = a.variant == arch_variant::baseline ? a : b;
  const arch_target& family = a.variant == arch_variant::baseline ? b : a;
  if (base.variant != arch_variant::baseline || family.variant != arch_variant::family_specific) return {};
  detail::text<200> said("nvcc 13.0 says: The same GPU code (`");
  said.append(to_text(family).view()).append("`) generated for non family-specific and family-specific GPU arch");
  return unexpected(errors::targets_conflict(source_kind::nvcc, base, family, said.view()));
}

/// The PTX ISA version a release's compilers emit, if the table knows the release.
constexpr std::optional<ptx_isa_version> ptx_isa_of(const cuda_version& release) noexcept {
  const std::size_t i = toolkit_index(release);
  if (i == not_found) return std::nullopt;
  return toolkit_table[i].ptx_isa;
}

/// The lowest PTX ISA version with target t: its arch's min_ptx, raised for `a` and `f` to the ISA
/// that introduced the variant (compute_90a: 8.0, compute_100a: 8.6, compute_100f and compute_120f:
/// 8.8). nullopt for an arch the table does not know.
constexpr std::optional<ptx_isa_version> min_ptx_isa(const arch_target& t) noexcept {
  const std::size_t i = arch_index(t.cc);
  if (i == not_found) return std::nullopt;
  const ptx_isa_version variant_floor = t.variant == arch_variant::arch_specific     ? first_ptx_isa_of_arch_specific
                                        : t.variant == arch_variant::family_specific ? first_ptx_isa_of_family_specific
                                                                                     : ptx_isa_version{};
  return arch_table[i].min_ptx < variant_floor ? variant_floor : arch_table[i].min_ptx;
}

/// The newest PTX ISA a driver of CUDA `driver` JITs (a 13.0 driver refuses `.version 9.1`: docs/design.md):
/// the newest release's at or below it, as PTX ISA X.Y needs a driver of the release that introduced it
/// (NVIDIA's PTX ISA release history; cuda-python's get_minimal_required_cuda_ver_from_ptx_ver). 12.7,
/// no toolkit but r565 drivers, introduced 8.6. nullopt: newer than the table, no known limit; 0.0: older.
constexpr std::optional<ptx_isa_version> ptx_isa_read_by(const cuda_version& driver) noexcept {
  const cuda_version d = driver.release();
  if (newest_known_toolkit() < d) return std::nullopt;
  if (d == cuda_version{12, 7}) return ptx_isa_version{8, 6};
  ptx_isa_version isa{};
  for (const auto& row : toolkit_table)
    if (!(d < row.release)) isa = row.ptx_isa;
  return isa;
}

/// Whether a driver of CUDA `driver` JITs PTX of ISA `isa` (target t), as `cuarch inspect` reads it off a file.
constexpr expected<void, error> check_driver_can_jit_isa(const arch_target& t, const ptx_isa_version& isa,
                                                         const cuda_version& driver) {
  const std::optional<ptx_isa_version> understood = ptx_isa_read_by(driver);
  if (!understood || isa <= *understood) return {};
  return unexpected(errors::ptx_too_new_for_driver(source_kind::driver, t, {}, driver.release(), isa, *understood));
}

/// Whether a driver of CUDA `driver` JITs PTX target t emitted by CUDA `compiler` (SASS needs no JIT):
/// by the compiler's PTX ISA (above), or for a compiler the table does not know, by release.
constexpr expected<void, error> check_driver_can_jit(const arch_target& t, const cuda_version& compiler,
                                                     const cuda_version& driver) {
  if (t.form == arch_form::sass) return {};
  const std::optional<ptx_isa_version> understood = ptx_isa_read_by(driver), floor = min_ptx_isa(t),
                                       emitted = ptx_isa_of(compiler);
  // The target's own floor first: below it no compiler can help, only a newer driver.
  if (floor && understood && *understood < *floor) {
    detail::text<200> why("PTX ISA ");
    why.append(to_text(*floor).view()).append(" is the lowest with this target, whatever the compiler");
    return unexpected(errors::ptx_too_new_for_driver(source_kind::driver, t, compiler.release(), driver.release(),
                                                     *floor, *understood, why.view()));
  }
  if (emitted ? check_driver_can_jit_isa(t, *emitted, driver).has_value() : compiler.release() <= driver.release())
    return {};
  return unexpected(errors::ptx_too_new_for_driver(source_kind::driver, t, compiler.release(), driver.release(),
                                                   emitted.value_or(ptx_isa_version{}),
                                                   understood.value_or(ptx_isa_version{})));
}

/// Calls f(arch_target) for every target (sm_, compute_; baseline, a, f) that `toolkit` can build,
/// by compute capability, then form (sm_ first), then variant.
template <class F>
constexpr void for_each_buildable(const cuda_version& toolkit, F&& f) {
  for (const auto& row : arch_table)
    for (const arch_form form : {arch_form::sass, arch_form::ptx})
      for (const arch_variant v : all_arch_variants) {
        const arch_target t{row.cc, v, form};
        if (is_buildable(t, toolkit)) f(t);
      }
}

CUARCH_END_NAMESPACE
