// The source contract (resolve/source_contract.hpp): which types are sources, the driver trait that
// and the checks_ptx() member that decide whether PTX is checked, each driven through a real
// resolution.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>
#include <cuarch/resolve/source_contract.hpp>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

#include "target_names.hpp"

using namespace cuarch;

namespace {

arch_request request(std::string_view list) {
  arch_request r;
  r.list = list;
  r.overrides = env_override::none;
  return r;
}

// ---- user-written sources -----------------------------------------------------------------------
struct misspelled_devices {  // `device()`, not `devices()`
  expected<std::vector<device_info>, error> device() const { return std::vector<device_info>{}; }
};
struct devices_as_ints {  // the right name, the wrong result
  std::vector<int> devices() const { return {}; }
};

/// A driver that answers, but whose answer is about another machine (a build host's driver).
struct build_host_driver {
  expected<observation, error> driver_version() const {
    observation o;
    o.source = source_kind::driver;
    o.version = cuda_version{11, 8};
    return o;
  }
};
/// The same, declared not to check PTX through the trait.
struct unchecked_build_host_driver : build_host_driver {};
/// A driver source that learns only at run time whether its answer is the one that will JIT.
struct run_time_driver : build_host_driver {
  bool checks;
  bool checks_ptx() const noexcept { return checks; }
};

}  // namespace

template <>
struct cuarch::checks_ptx_against_driver<unchecked_build_host_driver> : std::false_type {};

// ---- which types are sources --------------------------------------------------------------------
static_assert(is_compiler_source_v<fixed_compiler>);
static_assert(is_device_source_v<fixed_devices> && is_device_source_v<no_devices>);
static_assert(is_driver_source_v<fixed_driver> && is_driver_source_v<no_driver>);
static_assert(!is_device_source_v<misspelled_devices>, "a misspelled member is no source");
static_assert(!is_device_source_v<devices_as_ints>, "a member with the wrong result is no source");
static_assert(!is_compiler_source_v<fixed_devices> && !is_driver_source_v<fixed_compiler>);
#if defined(__cpp_concepts) && __cpp_concepts >= 201907L
static_assert(compiler_source<fixed_compiler> && device_source<fixed_devices> && driver_source<no_driver>);
static_assert(!device_source<misspelled_devices> && !device_source<devices_as_ints>);
#endif

// ---- the trait, not the type, says whether PTX is checked ---------------------------------------
static_assert(!checks_ptx_against_driver<no_driver>::value && checks_ptx_against_driver<fixed_driver>::value);
static_assert(checks_ptx_against_driver<build_host_driver>::value &&
              !checks_ptx_against_driver<unchecked_build_host_driver>::value);

TEST_CASE("checks_ptx_against_driver: a driver source declared not to check is not asked about PTX",
          "[contract][driver]") {
  // CUDA 13.0 emits PTX ISA 9.0; an 11.8 driver cannot JIT it.
  const auto checked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{},
                                            strict_policy{}, build_host_driver{});
  REQUIRE_FALSE(checked);
  CHECK(checked.error().diagnostics[0].reason->code == errc::ptx_too_new_for_driver);

  const auto unchecked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{},
                                              strict_policy{}, unchecked_build_host_driver{});
  REQUIRE(unchecked);
  CHECK(names(unchecked->targets) == "compute_90");

  // A PTX fallback is refused when it cannot be checked, with a reason even though the source answered.
  const auto fallback = resolve_target_archs(request("native"), fixed_compiler({12, 6}), fixed_devices{{12, 0}},
                                             jit_policy{}, unchecked_build_host_driver{});
  REQUIRE_FALSE(fallback);
  REQUIRE(fallback.error().diagnostics.size() == 1);
  CHECK(fallback.error().diagnostics[0].fallback == ptx_fallback_status::refused);
  REQUIRE(fallback.error().diagnostics[0].fallback_error);
  CHECK(fallback.error().diagnostics[0].fallback_error->message().find("does not check PTX") != std::string::npos);
}

TEST_CASE("checks_ptx(): a driver source that says at run time whether it checks PTX is believed", "[contract][driver]") {
  CHECK_FALSE(checks_ptx_against(run_time_driver{{}, false}));
  CHECK(checks_ptx_against(run_time_driver{{}, true}));
  CHECK_FALSE(checks_ptx_against(no_driver{}));
  CHECK(checks_ptx_against(fixed_driver({13, 0})));

  // Checked: the 11.8 driver cannot JIT CUDA 13.0's PTX. Not checked: kept, not refused for its driver.
  const auto checked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{},
                                            strict_policy{}, run_time_driver{{}, true});
  REQUIRE_FALSE(checked);
  CHECK(checked.error().diagnostics[0].reason->code == errc::ptx_too_new_for_driver);
  const auto unchecked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{},
                                              strict_policy{}, run_time_driver{{}, false});
  REQUIRE(unchecked);
  CHECK(names(unchecked->targets) == "compute_90");
}

TEST_CASE("no_driver: PTX is not checked, and a PTX fallback is refused with no_driver's own reason",
          "[contract][driver]") {
  const resolver<fixed_compiler, fixed_devices, no_driver> no_check(fixed_compiler({12, 6}), fixed_devices{{12, 0}},
                                                                    jit_policy{});
  const auto refused = no_check.resolve(request("native"));
  REQUIRE_FALSE(refused);
  REQUIRE(refused.error().diagnostics[0].fallback_error);
  CHECK(refused.error().diagnostics[0].fallback_error->message().find("no driver source was given") != std::string::npos);
  const auto ptx = no_check.resolve(request("compute_90"));  // not checked, so not refused for want of a driver
  REQUIRE(ptx);
  CHECK(names(ptx->targets) == "compute_90");

  // With a driver that JITs it, the same resolver type falls back to PTX.
  const auto fallback = resolve_target_archs(request("native"), fixed_compiler({12, 6}), fixed_devices{{9, 0}, {12, 0}},
                                             jit_policy{}, fixed_driver({13, 0}));
  REQUIRE(fallback);
  CHECK(names(fallback->targets) == "compute_90 sm_90a");  // 12.0 is newer than CUDA 12.6: PTX the 13.0 driver JITs
}

TEST_CASE("fixed_devices is the one class for a given list", "[contract][devices]") {
  const auto two = fixed_devices{{12, 0}, {9, 0}}.devices();
  REQUIRE(two);
  CHECK((*two)[1].ordinal == 1);
  CHECK((*two)[1].source == source_kind::device_list);
  const auto none = fixed_devices(std::vector<compute_capability>{}).devices();
  REQUIRE_FALSE(none);
  CHECK(none.error().code == errc::no_device);
  const auto native = resolve_target_archs(request("native"), fixed_compiler({13, 0}),
                                           fixed_devices(std::vector<compute_capability>{}));
  REQUIRE_FALSE(native);
  CHECK(native.error().summary.code == errc::no_device);
}
