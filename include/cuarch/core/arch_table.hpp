// The knowledge table: which CUDA release first (and last) builds each architecture and its `a`/`f`
// variants, and each release's PTX ISA version and minimum Linux driver. One constexpr table; every
// row cites its source (the tags, [NVRTC x.y] RN131 RN132 FEAT CLANG CMAKE PTXU PTXAS13, are
// explained in docs/design.md, "The knowledge table"); invariants are static_asserted below.
// tests/ground_truth_test.cpp checks it against outputs recorded from real NVRTC libraries.
#pragma once

#include <cstddef>
#include <string_view>

#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"

CUARCH_BEGIN_NAMESPACE

/// One CUDA release as the table knows it.
struct toolkit_row {
  cuda_version release;       // major.minor (patch -1)
  ptx_isa_version ptx_isa;    // the `.version` its compilers emit
  driver_version min_driver;  // minimum Linux x86_64 driver of the GA release ({} = not published)
  std::string_view source;
};

/// One compute capability as the table knows it. A zero cuda_version means "never".
struct arch_row {
  compute_capability cc;
  std::string_view gpus;    // generation and example products (for messages and `cuarch list`)
  cuda_version first;       // first release building sm_XY / compute_XY (the table floor 11.0 means "11.0 or earlier")
  cuda_version first_a;     // first release building the `a` variant; {} = none
  cuda_version first_f;     // first release building the `f` variant; {} = none
  cuda_version removed_in;  // first release that no longer builds it (any variant); {} = still built
  compute_capability renamed_to;  // when removal is a rename (sm_101 -> sm_110); {} otherwise
  ptx_isa_version min_ptx;        // lowest PTX ISA with this `.target`
  std::string_view source;
};

namespace detail {
constexpr cuda_version v(int major, int minor) { return cuda_version{major, minor, -1}; }
constexpr cuda_version never{0, 0, -1};
}  // namespace detail

// clang-format off
inline constexpr toolkit_row toolkit_table[] = {
  //  release               PTX ISA   min driver (GA)      source
  {detail::v(11, 0), {7, 0}, {450, 51, 5},  "PTXU; RN131 table 3 (11.0.2 GA)"},
  {detail::v(11, 1), {7, 1}, {455, 23, -1}, "PTXU; RN131 table 3"},
  {detail::v(11, 2), {7, 2}, {460, 27, 3},  "PTXU; RN131 table 3"},
  {detail::v(11, 3), {7, 3}, {465, 19, 1},  "PTXU; RN131 table 3"},
  {detail::v(11, 4), {7, 4}, {470, 42, 1},  "PTXU; RN131 table 3"},
  {detail::v(11, 5), {7, 5}, {495, 29, 5},  "PTXU; RN131 table 3"},
  {detail::v(11, 6), {7, 6}, {510, 39, 1},  "PTXU; RN131 table 3"},
  {detail::v(11, 7), {7, 7}, {515, 43, 4},  "PTXU; RN131 table 3"},
  {detail::v(11, 8), {7, 8}, {520, 61, 5},  "[NVRTC 11.8]; RN131 table 3"},
  {detail::v(12, 0), {8, 0}, {525, 60, 13}, "[NVRTC 12.0]; RN131 table 3"},
  {detail::v(12, 1), {8, 1}, {530, 30, 2},  "[NVRTC 12.1]; RN131 table 3"},
  {detail::v(12, 2), {8, 2}, {535, 54, 3},  "[NVRTC 12.2]; RN131 table 3"},
  {detail::v(12, 3), {8, 3}, {545, 23, 6},  "[NVRTC 12.3]; RN131 table 3"},
  {detail::v(12, 4), {8, 4}, {550, 54, 14}, "[NVRTC 12.4]; RN131 table 3"},
  {detail::v(12, 5), {8, 5}, {555, 42, 2},  "[NVRTC 12.5]; RN131 table 3"},
  {detail::v(12, 6), {8, 5}, {560, 28, 3},  "[NVRTC 12.6] (12.6 keeps PTX ISA 8.5); RN131 table 3"},
  // 12.7 was never released (PTX ISA 8.6 belongs to it).
  {detail::v(12, 8), {8, 7}, {570, 26, -1}, "[NVRTC 12.8]; RN131 table 3"},
  {detail::v(12, 9), {8, 8}, {575, 51, 3},  "[NVRTC 12.9]; RN131 table 3"},
  {detail::v(13, 0), {9, 0}, {580, 65, 6},  "[NVRTC 13.0]; RN131 table 3"},
  {detail::v(13, 1), {9, 1}, {590, 44, 1},  "[NVRTC 13.1]; RN131 table 3"},
  {detail::v(13, 2), {9, 2}, {595, 45, 4},  "[NVRTC 13.2]; RN132 table 3"},
  // Minimum drivers of 13.3+ are unpublished ({}) until NVIDIA's own release-notes driver table is
  // read (the one figure found, 610.43.02, is a third party's); the 13.x family floor is 580 (COMPAT).
  {detail::v(13, 3), {9, 3}, {},            "[NVRTC 13.3]"},
  {detail::v(13, 4), {9, 4}, {},            "[NVRTC 13.4]"},
  {detail::v(13, 5), {9, 5}, {},            "[NVRTC 13.5]"},
};

inline constexpr arch_row arch_table[] = {
  // cc      gpus                                             first          first a        first f        removed in     renamed to  min PTX  source
  {{3, 5}, "Kepler: Tesla K20, K40",                         detail::v(11, 0), detail::never, detail::never, detail::v(12, 0), {}, {3, 2}, "[NVRTC 11.8] builds, [NVRTC 12.0] does not; CLANG max 11.8"},
  {{3, 7}, "Kepler: Tesla K80",                              detail::v(11, 0), detail::never, detail::never, detail::v(12, 0), {}, {4, 1}, "[NVRTC 11.8] builds, [NVRTC 12.0] does not; CLANG max 11.8"},
  {{5, 0}, "Maxwell: GTX 750, 750 Ti",                       detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {4, 0}, "[NVRTC 12.9] builds, [NVRTC 13.0] does not; RN131 deprecated architectures"},
  {{5, 2}, "Maxwell: GTX 9xx, Tesla M40/M60",                detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {4, 1}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{5, 3}, "Maxwell (Tegra): Jetson Nano",                   detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {4, 2}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{6, 0}, "Pascal: Tesla P100",                             detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {5, 0}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{6, 1}, "Pascal: Tesla P40, P4, GTX 10xx",                detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {5, 0}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{6, 2}, "Pascal (Tegra): Jetson TX2",                     detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {5, 0}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{7, 0}, "Volta: V100, TITAN V",                           detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {6, 0}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{7, 2}, "Volta (Tegra): Jetson AGX Xavier",               detail::v(11, 0), detail::never, detail::never, detail::v(13, 0), {}, {6, 1}, "[NVRTC 12.9] / [NVRTC 13.0]; RN131"},
  {{7, 5}, "Turing: T4, RTX 20xx, GTX 16xx",                 detail::v(11, 0), detail::never, detail::never, detail::never,    {}, {6, 3}, "[NVRTC 11.8..13.x]; PTXAS13"},
  {{8, 0}, "Ampere: A100, A30",                              detail::v(11, 0), detail::never, detail::never, detail::never,    {}, {7, 0}, "CLANG min 11.0; [NVRTC 11.8..13.x]; PTXAS13"},
  {{8, 6}, "Ampere: A40, A10, RTX A6000, RTX 30xx",          detail::v(11, 1), detail::never, detail::never, detail::never,    {}, {7, 1}, "CLANG/CMAKE min 11.1; PTXAS13"},
  {{8, 7}, "Ampere (Tegra): Jetson AGX Orin",                detail::v(11, 4), detail::never, detail::never, detail::never,    {}, {7, 4}, "CLANG/CMAKE min 11.4; PTXAS13"},
  {{8, 8}, "Ampere variant (no product listed by NVIDIA)",   detail::v(13, 0), detail::never, detail::never, detail::never,    {}, {7, 3}, "[NVRTC 13.0] builds, [NVRTC 12.9] does not; PTXAS13"},
  {{8, 9}, "Ada Lovelace: L4, L40S, RTX 40xx",               detail::v(11, 8), detail::never, detail::never, detail::never,    {}, {7, 8}, "[NVRTC 11.8]; CLANG min 11.8"},
  {{9, 0}, "Hopper: H100, H200, GH200",                      detail::v(11, 8), detail::v(12, 0), detail::never, detail::never, {}, {7, 8}, "[NVRTC 11.8] builds sm_90, [NVRTC 12.0] sm_90a; CLANG"},
  {{10, 0}, "Blackwell: B200, GB200",                        detail::v(12, 8), detail::v(12, 8), detail::v(12, 9), detail::never, {}, {8, 6}, "[NVRTC 12.8]; f: [NVRTC 12.9]; PTXAS13"},
  {{10, 1}, "Blackwell (Tegra, Thor, before the rename)",    detail::v(12, 8), detail::v(12, 8), detail::v(12, 9), detail::v(13, 0), {11, 0}, {8, 6}, "[NVRTC 12.8/12.9]; FEAT: renumbered SM110 in 13.0"},
  {{10, 3}, "Blackwell Ultra: B300, GB300",                  detail::v(12, 9), detail::v(12, 9), detail::v(12, 9), detail::never, {}, {8, 8}, "[NVRTC 12.9]; FEAT 12.9"},
  {{10, 7}, "Blackwell family member (no product in cuarch's sources)", detail::v(13, 4), detail::v(13, 4), detail::v(13, 4), detail::never, {}, {9, 4}, "[NVRTC 13.4] builds sm_107/107a/107f, [NVRTC 13.3] does not"},
  {{11, 0}, "Blackwell (Tegra): Jetson Thor",                detail::v(13, 0), detail::v(13, 0), detail::v(13, 0), detail::never, {}, {9, 0}, "[NVRTC 13.0]; FEAT 13.0"},
  {{12, 0}, "Blackwell: RTX PRO 6000 Blackwell, RTX 50xx",   detail::v(12, 8), detail::v(12, 8), detail::v(12, 9), detail::never, {}, {8, 7}, "[NVRTC 12.8]; f: [NVRTC 12.9]; PTXAS13"},
  {{12, 1}, "Blackwell: GB10 (DGX Spark)",                   detail::v(12, 9), detail::v(12, 9), detail::v(12, 9), detail::never, {}, {8, 8}, "[NVRTC 12.9]; FEAT 12.9"},
};
// clang-format on

/// The PTX ISA versions that introduced the variants (PTX ISA "Target ISA notes": sm_90a from PTX ISA
/// 8.0, family-specific targets such as sm_100f and sm_120f from 8.8; LLVM's NVPTX.td, which mirrors
/// them, agrees: sm_90a PTX80, sm_100f/sm_101f/sm_120f PTX88). A variant needs the higher of its
/// arch's min_ptx and these (min_ptx_isa, compatibility.hpp).
inline constexpr ptx_isa_version first_ptx_isa_of_arch_specific{8, 0};
inline constexpr ptx_isa_version first_ptx_isa_of_family_specific{8, 8};

/// The oldest and newest releases the table describes.
constexpr cuda_version oldest_known_toolkit() noexcept { return toolkit_table[0].release; }
constexpr cuda_version newest_known_toolkit() noexcept { return toolkit_table[std::size(toolkit_table) - 1].release; }

/// Index lookups return `not_found` rather than a null pointer: comparing addresses is not a
/// constant expression under GCC's -fsanitize=undefined, and these run inside static_assert.
inline constexpr std::size_t not_found = static_cast<std::size_t>(-1);

/// Index into toolkit_table of an exact release (patch ignored), or not_found (12.7, outside the table).
constexpr std::size_t toolkit_index(const cuda_version& v) noexcept {
  for (std::size_t i = 0; i < std::size(toolkit_table); ++i)
    if (toolkit_table[i].release == v.release()) return i;
  return not_found;
}

/// A release inside the table's range that NVIDIA never published: 12.7 (12.6 was followed by 12.8),
/// 11.9 or 12.10. Not an error (the table answers for it as for the release before it), but worth
/// a note: such a version is a typo or a guess, never a toolkit someone has.
constexpr bool never_released(const cuda_version& v) noexcept {
  const cuda_version r = v.release();
  return oldest_known_toolkit() < r && r < newest_known_toolkit() && toolkit_index(r) == not_found;
}

/// Index into arch_table of a compute capability, or not_found.
constexpr std::size_t arch_index(const compute_capability& cc) noexcept {
  for (std::size_t i = 0; i < std::size(arch_table); ++i)
    if (arch_table[i].cc == cc) return i;
  return not_found;
}

/// The row of an exact release (patch ignored), or nullptr.
constexpr const toolkit_row* find_toolkit_row(const cuda_version& v) noexcept {
  const std::size_t i = toolkit_index(v);
  return i == not_found ? nullptr : &toolkit_table[i];
}

/// The newest release whose minimum driver (GA, Linux) `d` meets: the CUDA a driver serves by
/// NVIDIA's table (580.159.04 -> 13.0, 535.54.03 -> 12.2); {} below the table's oldest row, and for a
/// later branch than the newest published minimum (610.x past 595.45.04): it may serve a release whose
/// minimum is unpublished, or one newer than the table, so it is unknown, never "too old".
constexpr cuda_version toolkit_served_by(const driver_version& d) noexcept {
  cuda_version best{};
  int branch = 0;  // the newest published minimum's driver major
  for (const auto& r : toolkit_table) {
    if (r.min_driver.major == 0) continue;  // unpublished
    branch = r.min_driver.major;
    if (!(d < r.min_driver)) best = r.release;
  }
  return d.major > branch ? cuda_version{} : best;
}

/// Whether `cc` is an integrated (Tegra) part: Jetson, Thor, the table's "(Tegra" rows. Machine
/// code built for one loads on discrete GPUs of the same major by NVIDIA's rule, but no one ships it
/// for them, so it is never a stand-in for another device (compatible-minor, resolver.hpp).
constexpr bool is_integrated_part(const compute_capability& cc) noexcept {
  const std::size_t i = arch_index(cc);
  return i != not_found && arch_table[i].gpus.find("(Tegra") != std::string_view::npos;
}

namespace detail {

constexpr bool is_never(const cuda_version& v) noexcept { return v == never; }

constexpr bool toolkit_table_is_valid() noexcept {
  for (std::size_t i = 0; i < std::size(toolkit_table); ++i) {
    const auto& r = toolkit_table[i];
    if (r.release.has_patch() || r.source.empty()) return false;
    if (i > 0) {
      const auto& p = toolkit_table[i - 1];
      if (!(p.release < r.release) || r.ptx_isa < p.ptx_isa) return false;       // sorted; PTX ISA never goes back
      if (r.min_driver.major != 0 && r.min_driver < p.min_driver) return false;  // drivers never go back
    }
  }
  return true;
}

constexpr bool arch_table_is_valid() noexcept {
  for (std::size_t i = 0; i < std::size(arch_table); ++i) {
    const auto& r = arch_table[i];
    if (i > 0 && !(arch_table[i - 1].cc < r.cc)) return false;  // sorted, unique
    if (r.source.empty() || r.gpus.empty() || is_never(r.first)) return false;
    if (toolkit_index(r.first) == not_found) return false;  // first release is a real release
    if (!is_never(r.removed_in) && !(r.first < r.removed_in)) return false;
    if (!is_never(r.first_a) && (r.first_a < r.first || r.cc < compute_capability{9, 0}))
      return false;  // a from 9.0 on
    if (!is_never(r.first_f) && (r.first_f < r.first || r.cc < compute_capability{10, 0}))
      return false;                              // f from 10.0 on
    if (r.renamed_to != compute_capability{}) {  // a rename hands over in one release
      const std::size_t to = arch_index(r.renamed_to);
      if (is_never(r.removed_in) || to == not_found || arch_table[to].first != r.removed_in) return false;
    }
  }
  return true;
}

}  // namespace detail

static_assert(detail::toolkit_table_is_valid(),
              "toolkit_table: sorted releases, non-decreasing PTX ISA and drivers, sources");
static_assert(detail::arch_table_is_valid(),
              "arch_table: sorted, sources, first < removed, a only from 9.0, f only from 10.0, renames");

CUARCH_END_NAMESPACE
