// cuarch/device.hpp on the host: its small spelling reader agrees with cuarch's parser on every
// spelling of every target the knowledge table knows; the feature-set rules; and
// CUARCH_DEVICE_REQUIRE in a host pass checks spellings and compiles to nothing. The device passes
// are tested with the real nvcc and NVRTC (tests/scripts/device_require_test.sh,
// tests/device/nvrtc_device_require.cpp).
#include <cuarch/device.hpp>

#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/arch_table.hpp>
#include <cuarch/core/parse.hpp>

#include <iterator>
#include <string>
#include <vector>

// In a host pass the macro checks the spellings and adds nothing else (namespace and block scope).
CUARCH_DEVICE_REQUIRE("sm_90a", "sm_100f", "12.0");

namespace {

using cuarch::device::provides;
using cuarch::device::read_target;

cuarch::device::target read(const std::string& s) { return read_target(s.data(), s.size()); }

char variant_char(cuarch::arch_variant v) {
  switch (v) {
    case cuarch::arch_variant::arch_specific: return 'a';
    case cuarch::arch_variant::family_specific: return 'f';
    default: return '\0';
  }
}

/// Every spelling of cc + suffix that users write: sm_, compute_, lto_, integer and dotted.
std::vector<std::string> spellings(const cuarch::compute_capability& cc, const std::string& suffix) {
  const std::string n = std::to_string(cc.major * 10 + cc.minor);
  const std::string dotted = std::to_string(cc.major) + "." + std::to_string(cc.minor);
  return {"sm_" + n + suffix, "compute_" + n + suffix, n + suffix, dotted + suffix};
}

}  // namespace

TEST_CASE("device.hpp reads every spelling of every known target as cuarch's parser does") {
  std::size_t compared = 0;
  for (const auto& row : cuarch::arch_table) {
    const bool has_a = !cuarch::detail::is_never(row.first_a), has_f = !cuarch::detail::is_never(row.first_f);
    for (const std::string suffix : {"", "a", "f"}) {
      const bool exists = suffix.empty() || (suffix == "a" ? has_a : has_f);
      for (const auto& s : spellings(row.cc, suffix)) {
        CAPTURE(s);
        const auto core = cuarch::parse_arch(s);
        REQUIRE(core.has_value() == exists);  // the host pass's check refuses what does not exist
        const auto mine = read(s);
        REQUIRE(mine.valid);  // the device reader reads the grammar; the table is the host pass's job
        if (!exists) continue;
        CHECK(mine.major == core->cc.major);
        CHECK(mine.minor == core->cc.minor);
        CHECK(mine.variant == variant_char(core->variant));
        ++compared;
      }
    }
  }
  CHECK(compared > 100);
  STATIC_REQUIRE(cuarch::device::detail::all_parse_as_targets("sm_90a", "10.0f", "compute_120"));
  STATIC_REQUIRE_FALSE(cuarch::device::detail::all_parse_as_targets("sm_90a", "8.0a"));
}

TEST_CASE("device.hpp refuses what is not a target spelling") {
  for (const std::string bad :
       {"", "sm_", "sm_9", "sm_9x", "9.", "9.0b", "90a+PTX", "12.10", "sm_1000", "a", "sm_90af", " 90"}) {
    CAPTURE(bad);
    CHECK_FALSE(read(bad).valid);
  }
  STATIC_REQUIRE_FALSE(cuarch::device::detail::all_readable("sm_90a", "sm_9x"));
}

TEST_CASE("which targets provide which feature sets") {
  struct row {
    const char* built;
    const char* required;
    bool provided;
  };
  const row rows[] = {
      // a: only the target itself
      {"sm_90a", "sm_90a", true},
      {"sm_90", "sm_90a", false},
      {"sm_100a", "sm_90a", false},
      {"sm_103a", "sm_100a", false},
      {"sm_100f", "sm_100a", false},
      // f: the family's f and a targets of the same or a higher minor
      {"sm_100f", "sm_100f", true},
      {"sm_100a", "sm_100f", true},
      {"sm_103f", "sm_100f", true},
      {"sm_103a", "sm_100f", true},
      {"sm_100", "sm_100f", false},
      {"sm_100f", "sm_103f", false},
      {"sm_110f", "sm_100f", false},
      {"sm_120f", "sm_100f", false},
      {"sm_121a", "sm_120f", true},
      // baseline: every target of an equal or higher compute capability
      {"sm_90", "sm_80", true},
      {"sm_90a", "sm_90", true},
      {"sm_120f", "sm_90", true},
      {"sm_86", "sm_90", false},
      {"compute_90", "sm_89", true},
  };
  for (const auto& r : rows) {
    CAPTURE(r.built, r.required);
    CHECK(provides(read(r.built), read(r.required)) == r.provided);
  }
  // Unreadable spellings provide and require nothing.
  CHECK_FALSE(provides(read("sm_9x"), read("sm_80")));
  CHECK_FALSE(provides(read("sm_90"), read("sm_9x")));
  STATIC_REQUIRE(cuarch::device::detail::any_provided(read_target("sm_90a", 6), "sm_100f", "sm_90a"));
  STATIC_REQUIRE_FALSE(cuarch::device::detail::any_provided(read_target("sm_90", 5), "sm_100f", "sm_90a"));
}

TEST_CASE("CUARCH_DEVICE_REQUIRE compiles to nothing in a host pass, also at block scope") {
  CUARCH_DEVICE_REQUIRE("sm_90a");
  SUCCEED("the host pass only checked the spelling");
}

TEST_CASE("current_target() in a host pass is no target") {
  STATIC_REQUIRE_FALSE(cuarch::device::current_target().valid);
}
