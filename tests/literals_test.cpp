// Compile-time targets: CUARCH_ARCH (C++17) and "..."_arch (C++20); invalid spellings are
// compile errors, proven by tests/compile_fail/*.cpp.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/literals.hpp>

#include "test_support.hpp"

using namespace cuarch;

// The motivating question, answered by the compiler: CUDA 12.4 cannot build sm_120a.
static_assert(!is_buildable(CUARCH_ARCH("sm_120a"), cuda_version{12, 4}));
static_assert(is_buildable(CUARCH_ARCH("sm_120a"), cuda_version{12, 8}));
static_assert(can_load(CUARCH_ARCH("sm_90a"), compute_capability{9, 0}));

TEST_CASE("CUARCH_ARCH is a constant expression", "[literals]") {
  constexpr arch_target t = CUARCH_ARCH("12.0a");
  STATIC_REQUIRE(t == arch_target{{12, 0}, arch_variant::arch_specific, arch_form::sass});
  REQUIRE(t.cc.sm_number() == 120);
}

#if CUARCH_HAS_CONSTEVAL()
using namespace cuarch::literals;
TEST_CASE("_arch literal", "[literals]") {
  STATIC_REQUIRE("sm_90a"_arch == CUARCH_ARCH("9.0a"));
  STATIC_REQUIRE("compute_100f"_arch.form == arch_form::ptx);
  REQUIRE("sm_121"_arch.cc == compute_capability{12, 1});
}
#endif
