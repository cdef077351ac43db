// One name map per enum users spell (command line, JSON, Python): to_string and its parse agree,
// every value has a distinct name, and other text is refused. Checked at compile time and run time.
#include <cuarch/core/arch.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/core/source_kind.hpp>
#include <cuarch/resolve/env_request.hpp>
#include <cuarch/resolve/output_format.hpp>
#include <cuarch/resolve/policy.hpp>

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

#include "test_support.hpp"

using namespace cuarch;

namespace {

// parse(to_string(v)) == v for every value, and no two values share a name.
template <class Names, class Parse>
constexpr bool round_trips(const Names& all, Parse parse) {
  using Enum = std::decay_t<decltype(all[0])>;
  for (std::size_t i = 0; i < std::size(all); ++i) {
    const std::optional<Enum> back = parse(to_string(all[i]));
    if (!back || *back != all[i] || to_string(all[i]).empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (to_string(all[j]) == to_string(all[i])) return false;
  }
  return true;
}

constexpr auto dialect = [](std::string_view s) { return parse_arch_dialect(s); };
constexpr auto variant = [](std::string_view s) { return parse_arch_variant(s); };
constexpr auto source = [](std::string_view s) { return detail::find_by_name(all_source_kinds, s); };
constexpr auto env = [](std::string_view s) { return parse_env_override(s); };
constexpr auto format = [](std::string_view s) { return parse_output_format(s); };
constexpr auto policy = [](std::string_view s) { return parse_policy_name(s); };

static_assert(round_trips(all_arch_dialects, dialect));
static_assert(round_trips(all_arch_variants, variant));
static_assert(round_trips(all_source_kinds, source));
static_assert(round_trips(all_env_overrides, env));
static_assert(round_trips(all_output_formats, format));
static_assert(round_trips(all_policy_names, policy));

// Every enumerator is in its list (the lists drive help texts and parsing).
static_assert(std::size(all_arch_dialects) == 4 && std::size(all_arch_variants) == 3);
static_assert(std::size(all_source_kinds) == static_cast<std::size_t>(source_kind::device_list) + 1);
static_assert(std::size(all_output_formats) == 5 && std::size(all_policy_names) == 5);

}  // namespace

TEST_CASE("name maps round-trip at run time", "[names]") {
  CHECK(round_trips(all_arch_dialects, dialect));
  CHECK(round_trips(all_arch_variants, variant));
  CHECK(round_trips(all_source_kinds, source));
  CHECK(round_trips(all_env_overrides, env));
  CHECK(round_trips(all_output_formats, format));
  CHECK(round_trips(all_policy_names, policy));
}

TEST_CASE("the spellings users type", "[names]") {
  CHECK(parse_arch_dialect("torch") == arch_dialect::torch);
  CHECK(parse_arch_variant("a") == arch_variant::arch_specific);  // the suffix works as a name
  CHECK(parse_arch_variant("f") == arch_variant::family_specific);
  CHECK(parse_arch_variant("baseline") == arch_variant::baseline);
  CHECK(parse_env_override("torch") == env_override::torch_cuda_arch_list);
  CHECK(parse_output_format("json") == output_format::json);
  CHECK(parse_policy_name("best-effort") == policy_name::best_effort);
  CHECK(to_string(on_unbuildable::drop) == to_string(policy_name::best_effort));
}

TEST_CASE("other text is refused, never guessed", "[names]") {
  for (const std::string_view bad : {"", " torch", "Torch", "torch ", "TORCH_CUDA_ARCH_LIST", "pytorch"}) {
    CHECK_FALSE(parse_arch_dialect(bad));
    CHECK_FALSE(parse_env_override(bad));
    CHECK_FALSE(parse_output_format(bad));
  }
  CHECK_FALSE(parse_arch_variant(""));  // the baseline's empty suffix is not a name
  CHECK_FALSE(parse_arch_variant("A"));
  CHECK_FALSE(parse_arch_variant("b"));
  CHECK_FALSE(parse_policy_name("best_effort"));
  CHECK_FALSE(parse_policy_name("lenient"));
}

TEST_CASE("named policies set their knobs and combine", "[names]") {
  resolve_policy p;
  apply_policy(policy_name::best_effort, p);
  apply_policy(policy_name::ptx_fallback, p);
  CHECK(p.unbuildable == on_unbuildable::drop);
  CHECK(p.follow_renames);
  CHECK(p.ptx_fallback);
  CHECK_FALSE(p.verify_on_devices);
  apply_policy(policy_name::verify_devices, p);
  apply_policy(policy_name::strict, p);  // the last of strict / best-effort wins
  CHECK(p.unbuildable == on_unbuildable::error);
  CHECK_FALSE(p.follow_renames);
  CHECK(p.ptx_fallback);
  CHECK(p.verify_on_devices);
}

TEST_CASE("a comma-separated policy list applies in order and names the entry it does not know", "[names]") {
  cuarch::resolve_policy p;
  CHECK_FALSE(cuarch::apply_policy_list("best-effort,ptx-fallback", p));
  CHECK(p.unbuildable == cuarch::on_unbuildable::drop);
  CHECK(p.ptx_fallback);
  cuarch::resolve_policy q;
  const auto bad = cuarch::apply_policy_list("strict,bogus,ptx-fallback", q);
  REQUIRE(bad);
  CHECK(*bad == "bogus");
  CHECK_FALSE(q.ptx_fallback);  // nothing after the unknown entry is applied
  CHECK(cuarch::apply_policy_list("", q) == std::string_view{});
  CHECK(cuarch::apply_policy_list("strict,", q) == std::string_view{});
}
