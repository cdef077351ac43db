// The snippets that left the README for docs/library.md, verbatim in behaviour: each claim in their
// comments, and in the text beside them, is asserted here. (The README's own C++ example is
// examples/front_door.cpp, run by tests/scripts/front_door_example_test.sh.)
#include <cuarch/cuarch.hpp>

#include <catch2/catch_test_macros.hpp>

TEST_CASE("docs/library.md, the pure core: parse, why-not, static_assert", "[readme]") {
  auto list = cuarch::parse_arch_list("8.0;9.0a;12.0+PTX");
  REQUIRE(list);
  CHECK(list->size() == 4);  // sm_80, sm_90a, sm_120, compute_120
  auto bad = cuarch::parse_arch_list("8.0;sm_12x");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().rfind("'sm_12x' at position 4 has an unknown suffix", 0) == 0);

  auto why = cuarch::check_buildable(*cuarch::parse_arch("sm_120a"), cuarch::cuda_version{12, 4});
  REQUIRE_FALSE(why);
  CHECK(why.error().message() ==
        "sm_120a needs CUDA >= 12.8 (have 12.4) (cuarch's table); fix: compile with CUDA 12.8 or newer, or drop sm_120a");

  static_assert(!cuarch::is_buildable(CUARCH_ARCH("sm_120a"), cuarch::cuda_version{12, 4}));
}

TEST_CASE("docs/library.md, errors: errc maps onto std::error_condition", "[readme]") {
  CHECK(make_error_code(cuarch::errc::malformed_token) == std::errc::invalid_argument);
}

TEST_CASE("docs/library.md, layers: the table spans CUDA 11.0 - 13.5 and sm_35 - sm_121", "[readme]") {
  CHECK(cuarch::oldest_known_toolkit() == cuarch::cuda_version{11, 0});
  CHECK(cuarch::newest_known_toolkit() == cuarch::cuda_version{13, 5});
  CHECK(cuarch::arch_table[0].cc == cuarch::compute_capability{3, 5});
  CHECK(cuarch::arch_table[std::size(cuarch::arch_table) - 1].cc == cuarch::compute_capability{12, 1});
}

#include <cuarch/detect.hpp>

TEST_CASE("docs/library.md, own sources: native with the detected compiler and devices", "[readme]") {
  const cuarch::detection found = cuarch::detect({});
  cuarch::arch_request request{"native"};
  request.overrides = cuarch::env_override::none;  // the test must not depend on CUARCH_ARCHS
  auto result = cuarch::resolve_target_archs(request, cuarch::detected_jit_compiler{&found},
                                             cuarch::detected_devices{&found}, cuarch::jit_policy{});
  if (found.devices()) {  // a GPU machine: a non-empty set of NVRTC compiles
    REQUIRE(result);
    CHECK_FALSE(cuarch::nvrtc_compiles(result->targets).empty());
  } else {  // no GPU: a typed error, never a default arch
    REQUIRE_FALSE(result);
    CHECK(result.error().summary.code == cuarch::errc::no_device);
  }
}

TEST_CASE("README, the front door: set_option, the nvcc path, exit statuses", "[readme]") {
  cuarch::resolve_options o;
  CHECK_FALSE(cuarch::set_option(o, cuarch::option_name::policy, "best-effort"));  // nullopt: read
  CHECK(cuarch::set_option(o, cuarch::option_name::policy, "lenient"));            // the problem, in words

  cuarch::resolve_options n;
  n.archs = "9.0a;12.0";
  n.toolkit = cuarch::cuda_version{13, 0};  // named by release: nothing detected
  n.env = cuarch::env_override::none;
  const cuarch::resolve_outcome r = cuarch::resolve_here(n);
  REQUIRE(r.result);
  CHECK(cuarch::nvcc_flags(r.result->targets) ==
        "-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_120,code=sm_120");
  CHECK(r.exit_status() == 0);
  n.archs = "9.0b";
  CHECK(cuarch::resolve_here(n).exit_status() == 2);  // malformed input
  n.archs = "12.0f";
  n.toolkit = cuarch::cuda_version{12, 8};
  CHECK(cuarch::resolve_here(n).exit_status() == 1);  // refused: sm_120f needs CUDA 12.9
}
