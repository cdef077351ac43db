// Native variant preferences (resolve/native_variant.hpp): the spelling users write on the command
// line and in Python, which rule applies to which device, and how resolution reports it.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/native_variant.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <string>

#include "test_support.hpp"

using namespace cuarch;

namespace {

constexpr native_variant_preferences prefs(std::string_view spec) { return *parse_native_variant_spec(spec); }

constexpr bool chain_for_is(std::string_view spec, compute_capability cc, std::string_view expected) {
  const auto r = prefs(spec).rule_for(cc);
  return r && r->spelling().view() == expected;
}

// Evaluated at compile time: the most specific rule wins; chains continue the rule before them.
static_assert(chain_for_is("12.0=f,9=a,default=a", {12, 0}, "12.0=f"));
static_assert(chain_for_is("12.0=f,9=a,default=a", {9, 0}, "9=a"));
static_assert(chain_for_is("12.0=f,9=a,default=a", {12, 1}, "default=a"));
static_assert(chain_for_is("default=a,12=f,12.1=baseline", {12, 1}, "12.1=baseline"));
static_assert(chain_for_is("f,a,baseline", {8, 6}, "default=f,a,baseline"));
static_assert(chain_for_is("12.0=f,a,9=a", {12, 0}, "12.0=f,a"));
static_assert(!prefs("9=a").rule_for({12, 0}));
static_assert(variant_chain{arch_variant::family_specific}.as_tried().spelling().view() == "f,baseline");

std::string why(std::string_view spec) {
  const auto r = parse_native_variant_spec(spec);
  if (r) return "ok";
  return std::string(r.error().entry) + "@" + std::to_string(r.error().position) + ": " + std::string(r.error().why);
}

}  // namespace

TEST_CASE("native variant spellings are read or refused with the entry and why", "[native][parse]") {
  CHECK(why("a") == "ok");
  CHECK(why("12.0=f,9=a,default=a") == "ok");
  CHECK(why("") == "@0: a variant is 'a', 'f' or 'baseline'");
  CHECK(why("12.0=x") == "12.0=x@0: a variant is 'a', 'f' or 'baseline'");
  CHECK(why("a,,f") == "@2: a variant is 'a', 'f' or 'baseline'");
  CHECK(why("12.x=f") == "12.x=f@0: the devices must be a compute capability (12.0), a major (9) or 'default'");
  CHECK(why("12.10=f") == "12.10=f@0: the devices must be a compute capability (12.0), a major (9) or 'default'");
  CHECK(why("f,a,f") == "f@4: this variant is already in the chain");
  CHECK(why("1=a,2=a,3=a,4=a,5=a,6=a,7=a,8=a,9=a") == "9=a@32: more rules than a policy holds (8)");
  SECTION("a rule for the same devices given twice: the last one wins") {
    const auto p = prefs("12=f,12=a");
    CHECK(why("1=a,2=a,3=a,4=a,5=a,6=a,7=a,8=a,8=f") == "ok");  // replaced, not a ninth rule
    CHECK(p.rule_for({12, 0})->spelling().view() == "12=a");
  }
}

TEST_CASE("native diagnostics say which preference applied, in text and JSON", "[native][report]") {
  resolve_policy p;
  p.native_preferences = prefs("12.0=f,a,9=f,default=a");
  arch_request request;
  request.list = "native";
  request.overrides = env_override::none;
  const auto r = resolve_target_archs(request,
                                      compiler_info{source_kind::knowledge_table, {12, 8, -1}, "", std::nullopt},
                                      fixed_devices{{9, 0}, {12, 0}, {8, 6}}, p);
  REQUIRE(r);
  REQUIRE(r->diagnostics.size() == 3);
  const diagnostic& hopper = r->diagnostics[0];
  CHECK(hopper.preference.view() == "9=f");
  CHECK(hopper.result == arch_target{{9, 0}, arch_variant::baseline, arch_form::sass});  // 9=f: no f for 9.0, baseline
  CHECK(hopper.note.view() == "no 'f' variant exists for 9.0, skipped");
  const diagnostic& blackwell = r->diagnostics[1];
  CHECK(blackwell.preference.view() == "12.0=f,a");
  CHECK(blackwell.requested == arch_target{{12, 0}, arch_variant::family_specific, arch_form::sass});
  CHECK(blackwell.result == arch_target{{12, 0}, arch_variant::arch_specific, arch_form::sass});  // 12.8 has no sm_120f
  CHECK(blackwell.outcome == resolution_outcome::transformed);
  CHECK(r->diagnostics[2].preference.view() == "default=a");
  CHECK(r->diagnostics[2].note.empty());  // the default rule does not name 8.6: a missing 'a' is no news
  const std::string json = to_json(*r);
  CHECK(json.find(R"("preference":"12.0=f,a")") != std::string::npos);
  CHECK(json.find(R"("note":"no 'f' variant exists for 9.0, skipped")") != std::string::npos);
}

TEST_CASE("a policy's rule for a device: its preferences, else default=a", "[native][policy]") {
  resolve_policy family;
  family.native_preferences = prefs("f");
  CHECK(family.native_rule_for({12, 0}).spelling().view() == "default=f");
  CHECK(resolve_policy{}.native_rule_for({12, 0}).spelling().view() == "default=a");
  CHECK(jit_policy{}.native_rule_for({9, 0}).spelling().view() == "default=a");
}
