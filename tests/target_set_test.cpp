// target_set: never empty, canonical order, no duplicates, validated members.
#include <cuarch/core/literals.hpp>
#include <cuarch/resolve/target_set.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "target_names.hpp"
#include "test_support.hpp"

using namespace cuarch;

namespace {

constexpr arch_target sm(int major, int minor, arch_variant v = arch_variant::baseline) {
  return {{major, minor}, v, arch_form::sass};
}
constexpr arch_target ptx(int major, int minor, arch_variant v = arch_variant::baseline) {
  return {{major, minor}, v, arch_form::ptx};
}

}  // namespace

TEST_CASE("a target set cannot be made empty", "[target_set]") {
  STATIC_REQUIRE(!std::is_default_constructible_v<target_set>);
  CUARCH_CHECK_BOTH(target_set::from({}).error().code == errc::empty_input);
  const std::vector<arch_target> none;
  CHECK(target_set::from(none).error().code == errc::empty_input);
  CHECK(target_set::from(none).error().message().find("no architecture given") != std::string::npos);
}

TEST_CASE("canonical order: cc, then baseline < a < f, then sm_ < compute_ < lto_; duplicates merged", "[target_set]") {
  const auto s = target_set::from({CUARCH_ARCH("sm_120a"), CUARCH_ARCH("compute_90"), CUARCH_ARCH("sm_90a"),
                                   CUARCH_ARCH("lto_90"), CUARCH_ARCH("sm_90"), CUARCH_ARCH("sm_100f"),
                                   CUARCH_ARCH("sm_90a"), CUARCH_ARCH("compute_100")});
  REQUIRE(s);
  // compute_100, not sm_100: sm_100 beside sm_100f is a pair nvcc refuses (targets_conflict).
  CHECK(names(*s) == "sm_90 compute_90 lto_90 sm_90a compute_100 sm_100f sm_120a");
  CHECK(s->size() == 7);
  CHECK(s->front() == CUARCH_ARCH("sm_90"));
  CUARCH_CHECK_BOTH(target_set::from({sm(12, 0), sm(9, 0)})->front() == sm(9, 0));
  CUARCH_CHECK_BOTH(target_set::from({sm(9, 0), sm(9, 0), sm(9, 0)})->size() == 1);
}

TEST_CASE("the same targets in any input order make equal sets", "[target_set]") {
  const auto a = target_set::from({sm(8, 6), ptx(9, 0), sm(9, 0, arch_variant::arch_specific)});
  const auto b = target_set::from({sm(9, 0, arch_variant::arch_specific), sm(8, 6), ptx(9, 0), sm(8, 6)});
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a == *b);
  CHECK_FALSE(*a != *b);
  CHECK(*a != *target_set::from({sm(8, 6)}));
}

TEST_CASE("members are validated", "[target_set]") {
  CUARCH_CHECK_BOTH(target_set::from({arch_target{{9, 0}, arch_variant::family_specific, arch_form::sass}}).error().code ==
                    errc::variant_not_defined);
  CUARCH_CHECK_BOTH(target_set::from({sm(8, 0, arch_variant::arch_specific)}).error().code == errc::variant_not_defined);
  CUARCH_CHECK_BOTH(target_set::from({sm(0, 0)}).error().code == errc::malformed_token);
  CUARCH_CHECK_BOTH(target_set::from({sm(9, 12)}).error().code == errc::malformed_token);
  CUARCH_CHECK_BOTH(target_set::from({sm(9, 0), sm(100, 0)}).error().code == errc::malformed_token);
}

TEST_CASE("capacity is enforced with an error, not truncation", "[target_set]") {
  std::vector<arch_target> many;
  for (int major = 1; many.size() < target_set::capacity; ++major)
    for (int minor = 0; minor <= 9 && many.size() < target_set::capacity; ++minor) many.push_back(sm(major, minor));
  REQUIRE(target_set::from(many));
  CHECK(target_set::from(many)->size() == target_set::capacity);
  many.push_back(sm(99, 9));
  CHECK(target_set::from(many).error().code == errc::too_many_targets);
}

TEST_CASE("membership and loadability queries", "[target_set]") {
  const auto s = target_set::from({CUARCH_ARCH("sm_90a"), CUARCH_ARCH("compute_80")});
  REQUIRE(s);
  CHECK(s->contains(CUARCH_ARCH("sm_90a")));
  CHECK_FALSE(s->contains(CUARCH_ARCH("sm_90")));
  CHECK(s->can_load_on({9, 0}));   // sm_90a and compute_80
  CHECK(s->can_load_on({12, 0}));  // compute_80 JITs forward
  CHECK_FALSE(s->can_load_on({7, 5}));
  const auto only_a = target_set::from({CUARCH_ARCH("sm_90a")});
  CHECK_FALSE(only_a->can_load_on({10, 0}));  // an `a` cubin loads on exactly 9.0
}

TEST_CASE("copying a set allocates nothing", "[target_set]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<target_set>);
  STATIC_REQUIRE(std::is_trivially_destructible_v<target_set>);
}

// ---- the feature rule a set's targets answer to ----------------------------------------------

#include <cuarch/device.hpp>

TEST_CASE("a set loads on a device: sm_120f on 12.1, an `a` target on exactly its own cc", "[target_set][query]") {
  static_assert(target_set::from({sm(12, 0, arch_variant::family_specific)})->can_load_on({12, 1}));
  CHECK(target_set::from({sm(8, 0)})->can_load_on({8, 6}));  // sm_80 runs on 8.6
  CHECK_FALSE(target_set::from({sm(9, 0, arch_variant::arch_specific)})->can_load_on({9, 1}));
}

TEST_CASE("requirements: 12.0+PTX does not give a-features of 12.0, 12.0f does not satisfy an a-only requirement",
          "[target_set][query]") {
  const arch_target needs_120a = sm(12, 0, arch_variant::arch_specific);
  const arch_target needs_100f = sm(10, 0, arch_variant::family_specific);
  CHECK_FALSE(provides_features(sm(12, 0), needs_120a));
  CHECK_FALSE(provides_features(ptx(12, 0), needs_120a));
  CHECK_FALSE(provides_features(sm(12, 0, arch_variant::family_specific), needs_120a));
  CHECK(provides_features(ptx(12, 0, arch_variant::arch_specific), needs_120a));  // compute_120a means the same
  CHECK(provides_features(sm(10, 3, arch_variant::arch_specific), needs_100f));   // family member, a
  CHECK_FALSE(provides_features(sm(10, 0), needs_100f));
  CHECK_FALSE(provides_features(sm(12, 0, arch_variant::family_specific), needs_100f));  // another family
  CHECK(provides_features(sm(10, 0), sm(9, 0)));                                         // baseline features accumulate
}

TEST_CASE("provides_features agrees with device::provides on every pair of targets the table knows",
          "[target_set][device]") {
  // core/compatibility.hpp and device.hpp state one rule table twice (device.hpp may include
  // nothing); this is the proof that they say the same.
  std::vector<arch_target> all;
  for (const auto& row : arch_table)
    for (const arch_variant v : all_arch_variants)
      if (variant_exists(row.cc, v))
        for (const arch_form f : {arch_form::sass, arch_form::ptx}) all.push_back(arch_target{row.cc, v, f});
  REQUIRE(all.size() > 60);
  std::size_t pairs = 0, provided = 0;
  for (const auto& built : all)
    for (const auto& required : all) {
      const auto b = to_text(built), r = to_text(required);
      const bool device_says = device::provides(device::read_target(b.view().data(), b.size()),
                                                device::read_target(r.view().data(), r.size()));
      INFO(b.view() << " provides " << r.view());
      CHECK(provides_features(built, required) == device_says);
      ++pairs;
      provided += device_says ? 1 : 0;
    }
  CHECK(pairs == all.size() * all.size());
  CHECK(provided > 0);
  CHECK(provided < pairs);
}
