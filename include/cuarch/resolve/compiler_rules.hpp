// What one concrete compiler can build: the compiler's own answer first, the knowledge table second
// (docs/design.md, "Why both a table and live answers"). Its supported-arch list decides baseline
// archs, listed or not in the table; it never names `a`/`f` variants (NVRTC 12.4 builds sm_90a but
// does not list it: tests/data/nvrtc_releases.tsv), so the table decides those, and a release newer
// than the table keeps the variants of the newest release it knows (never called too old).
#pragma once

#include <algorithm>
#include <vector>

#include "../core/arch.hpp"
#include "../core/arch_table.hpp"
#include "../core/compatibility.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// Why a target counts as buildable.
struct build_verdict {
  /// What decided: the compiler's list (compiler_info::kind, e.g. nvrtc) or cuarch's table.
  source_kind decided_by = source_kind::knowledge_table;
};

namespace detail {

/// The sm numbers of cuarch's table as a bitmap built at compile time. table_is_older_than runs
/// on every resolution; scanning the table once per listed arch was a fifth of a warm resolve.
struct sm_number_bitmap {
  static constexpr int limit = 2048;  // sm numbers up to 204.7
  unsigned long long words[limit / 64] = {};
  constexpr sm_number_bitmap() {
    for (const auto& row : arch_table) {
      const int sm = row.cc.sm_number();
      if (sm >= 0 && sm < limit) words[sm / 64] |= 1ULL << (sm % 64);
    }
  }
  constexpr bool has(int sm) const noexcept {
    return sm >= 0 && sm < limit && ((words[sm / 64] >> (sm % 64)) & 1ULL) != 0;
  }
};
inline constexpr sm_number_bitmap known_sm_numbers{};
constexpr bool every_row_in_bitmap() {
  for (const auto& row : arch_table)
    if (!known_sm_numbers.has(row.cc.sm_number())) return false;  // has() is false for one past the limit
  return true;
}
static_assert(every_row_in_bitmap() && !known_sm_numbers.has(91), "the bitmap holds exactly the table's sm numbers");

/// `a`/`f` of an arch the compiler lists: the table decides, but a listed arch is never removed, and
/// one the table does not know gets an explanation (compilers do not list variants).
inline expected<build_verdict, error> check_listed_variant(const arch_target& t, const compiler_info& c) {
  const auto table = check_buildable(t, c.version);
  if (table || table.error().code == errc::removed_in_toolkit || table.error().code == errc::renamed_in_toolkit)
    return build_verdict{source_kind::knowledge_table};
  if (table.error().code != errc::unknown_arch) return unexpected(table.error());
  text<200> why("the compiler lists sm_");
  why.append_int(t.cc.sm_number())
      .append(", but cuarch's table cannot tell whether its '")
      .append(suffix(t.variant))
      .append("' variant exists (compilers do not list variants)");
  return unexpected(errors::unknown_arch(source_kind::knowledge_table, t, c.version, why.view()));
}

}  // namespace detail

/// Whether `compiler` can build t. With a supported-arch list: the list decides baseline archs
/// (errc::rejected_by_compiler when it lacks one the table claims; the table's own reason when both
/// agree), the table decides `a`/`f`. Without one: the table decides (check_buildable).
inline expected<build_verdict, error> check_buildable_by(const arch_target& t, const compiler_info& compiler) {
  const auto& live = compiler.supported_sm_numbers;
  if (!live || std::find(live->begin(), live->end(), t.cc.sm_number()) == live->end()) {
    const auto table = check_buildable(t, compiler.version);
    if (!table) return unexpected(table.error());  // with a list: both agree, and the table says why
    if (!live) return build_verdict{};
    detail::text<200> why("its supported-arch list has no sm_");
    why.append_int(t.cc.sm_number()).append(" although cuarch's table expects one");
    return unexpected(errors::rejected_by_compiler(compiler.kind, t, compiler.version, compiler.location, why.view()));
  }
  if (t.variant != arch_variant::baseline) return detail::check_listed_variant(t, compiler);
  return build_verdict{compiler.kind};
}

/// Whether cuarch's table is older than `compiler`: a release after the table's newest, or a listed
/// arch the table does not know. Resolution reports it; the compiler's own answers still decide.
inline bool table_is_older_than(const compiler_info& compiler) {
  if (newest_known_toolkit() < compiler.version.release()) return true;
  if (!compiler.supported_sm_numbers) return false;
  for (const int sm : *compiler.supported_sm_numbers)
    if (!detail::known_sm_numbers.has(sm)) return true;
  return false;
}

/// Calls f(compute_capability) for every baseline arch `compiler` builds, oldest first: the
/// compiler's list when it has one (values outside 10..999 are no sm numbers and are skipped),
/// else the table.
template <class F>
void for_each_buildable_baseline(const compiler_info& compiler, F&& f) {
  if (compiler.supported_sm_numbers) {
    const std::vector<int>& live = *compiler.supported_sm_numbers;
    auto each = [&f](const std::vector<int>& ascending) {
      for (const int sm : ascending)
        if (sm >= 10 && sm <= 999) f(compute_capability{sm / 10, sm % 10});
    };
    // NVRTC returns it sorted and unique; only a list from elsewhere pays for a sorted copy.
    if (std::adjacent_find(live.begin(), live.end(), [](int a, int b) { return a >= b; }) == live.end()) {
      each(live);
    } else {
      std::vector<int> sorted = live;
      std::sort(sorted.begin(), sorted.end());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      each(sorted);
    }
    return;
  }
  for (const auto& row : arch_table)
    if (is_buildable(arch_target{row.cc, arch_variant::baseline, arch_form::sass}, compiler.version)) f(row.cc);
}

CUARCH_END_NAMESPACE
