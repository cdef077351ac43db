// The source contract (resolve/source_contract.hpp): which types are sources, the driver trait that
// decides whether PTX is checked, and the type-erased and caching adaptors, each
// driven through a real resolution.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>
#include <cuarch/resolve/source_contract.hpp>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <string>
#include <thread>
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

/// A compiler source that counts how often it is asked, from any thread.
struct counting_compiler {
  std::atomic<int>* calls;
  expected<compiler_info, error> compiler() const {
    ++*calls;
    return fixed_compiler({12, 8}).compiler();
  }
};
struct failing_compiler {
  std::atomic<int>* calls;
  expected<compiler_info, error> compiler() const {
    ++*calls;
    return unexpected(errors::library_not_found(source_kind::nvrtc, "libnvrtc.so"));
  }
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
static_assert(is_compiler_source_v<any_compiler_source> && is_device_source_v<any_device_source> &&
              is_driver_source_v<any_driver_source>);
// The caching adaptor plays exactly the roles of what it wraps.
static_assert(is_compiler_source_v<caching_source<fixed_compiler>> && !is_device_source_v<caching_source<fixed_compiler>>);
static_assert(is_device_source_v<caching_source<fixed_devices>> && !is_driver_source_v<caching_source<fixed_devices>>);
// An adaptor accepts only a source of its role.
static_assert(std::is_constructible_v<any_device_source, fixed_devices>);
static_assert(!std::is_constructible_v<any_device_source, misspelled_devices>);
static_assert(!std::is_constructible_v<any_compiler_source, fixed_devices>);
#if defined(__cpp_concepts) && __cpp_concepts >= 201907L
static_assert(compiler_source<fixed_compiler> && device_source<fixed_devices> && driver_source<no_driver>);
static_assert(!device_source<misspelled_devices> && !device_source<devices_as_ints>);
#endif

// ---- the trait, not the type, says whether PTX is checked ---------------------------------------
static_assert(!checks_ptx_against_driver_v<no_driver> && checks_ptx_against_driver_v<fixed_driver>);
static_assert(checks_ptx_against_driver_v<build_host_driver> && !checks_ptx_against_driver_v<unchecked_build_host_driver>);

TEST_CASE("checks_ptx_against_driver: a driver source declared not to check is not asked about PTX", "[contract][driver]") {
  // CUDA 13.0 emits PTX ISA 9.0; an 11.8 driver cannot JIT it.
  const auto checked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{}, strict_policy{},
                                            build_host_driver{});
  REQUIRE_FALSE(checked);
  CHECK(checked.error().diagnostics[0].reason->code == errc::ptx_too_new_for_driver);

  const auto unchecked = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{}, strict_policy{},
                                              unchecked_build_host_driver{});
  REQUIRE(unchecked);
  CHECK(names(unchecked->targets) == "compute_90");

  // A PTX fallback is refused when it cannot be checked, with a reason even though the source answered.
  const auto fallback = resolve_target_archs(request("native"), fixed_compiler({12, 6}), fixed_devices{{12, 0}}, jit_policy{},
                                             unchecked_build_host_driver{});
  REQUIRE_FALSE(fallback);
  REQUIRE(fallback.error().diagnostics.size() == 1);
  CHECK(fallback.error().diagnostics[0].fallback == ptx_fallback_status::refused);
  REQUIRE(fallback.error().diagnostics[0].fallback_error);
  CHECK(fallback.error().diagnostics[0].fallback_error->message().find("does not check PTX") != std::string::npos);
}

TEST_CASE("any_*_source: one resolver type, the same answers as the sources it erases", "[contract][erased]") {
  using any_resolver = resolver<any_compiler_source, any_device_source, jit_policy, any_driver_source>;
  const any_resolver direct_like(fixed_compiler({12, 6}), fixed_devices{{9, 0}, {12, 0}}, jit_policy{}, fixed_driver({13, 0}));
  const auto erased = direct_like.resolve(request("native"));
  const auto direct = resolve_target_archs(request("native"), fixed_compiler({12, 6}), fixed_devices{{9, 0}, {12, 0}}, jit_policy{},
                                           fixed_driver({13, 0}));
  REQUIRE(erased);
  REQUIRE(direct);
  CHECK(names(erased->targets) == names(direct->targets));
  CHECK(names(erased->targets) == "compute_90 sm_90a");  // 12.0 is newer than CUDA 12.6: PTX the 13.0 driver JITs

  // An erased no_driver still does not check PTX: the fallback is refused with no_driver's own reason.
  const any_resolver no_check(fixed_compiler({12, 6}), fixed_devices{{12, 0}}, jit_policy{}, no_driver{});
  const auto refused = no_check.resolve(request("native"));
  REQUIRE_FALSE(refused);
  REQUIRE(refused.error().diagnostics[0].fallback_error);
  CHECK(refused.error().diagnostics[0].fallback_error->message().find("no driver source was given") != std::string::npos);
  const auto ptx = no_check.resolve(request("compute_90"));  // not checked, so not refused for want of a driver
  REQUIRE(ptx);
  CHECK(names(ptx->targets) == "compute_90");
  CHECK_FALSE(any_driver_source(no_driver{}).checks_ptx());
  CHECK(any_driver_source(fixed_driver({13, 0})).checks_ptx());
  CHECK_FALSE(any_driver_source(caching_source<no_driver>(no_driver{})).checks_ptx());

  // Copies share the source.
  const any_device_source devices = fixed_devices{{8, 6}};
  const any_device_source copy = devices;  // NOLINT(performance-unnecessary-copy-initialization)
  REQUIRE(copy.devices());
  CHECK(copy.devices()->at(0).cc == compute_capability{8, 6});
}

TEST_CASE("caching_source: one answer for every thread, asked once after it is published; an error is cached too", "[contract][cache]") {
  std::atomic<int> calls{0};
  const caching_source<counting_compiler> compiler(counting_compiler{&calls});
  std::vector<std::thread> threads;
  std::atomic<int> agreed{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int j = 0; j < 50; ++j) {
        const auto r = resolve_target_archs(request("all-major"), compiler);
        if (r && names(r->targets) == "sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_120 compute_120") ++agreed;
      }
    });
  for (auto& t : threads) t.join();
  // No lock is held while asking (fork safety): threads that arrive while the first question is in
  // flight ask too, and all keep the answer published first; after that nobody asks again.
  const int asked = calls;
  CHECK(asked >= 1);
  CHECK(asked <= 8);
  CHECK(agreed == 8 * 50);

  const resolver<caching_source<counting_compiler>> bound(compiler);  // copies share the cache
  REQUIRE(bound.resolve(request("sm_90")));
  CHECK(calls == asked);

  std::atomic<int> failures{0};
  const caching_source<failing_compiler> broken(failing_compiler{&failures});
  for (int i = 0; i < 3; ++i) {
    const auto r = resolve_target_archs(request("sm_90"), broken);
    REQUIRE_FALSE(r);
    CHECK(r.error().summary.code == errc::library_not_found);
  }
  CHECK(failures == 1);

  // A caching source keeps the roles and the trait of what it wraps.
  const caching_source<no_driver> cached_none(no_driver{});
  const auto ptx = resolve_target_archs(request("compute_90"), fixed_compiler({13, 0}), no_devices{}, strict_policy{}, cached_none);
  REQUIRE(ptx);
  CHECK(names(ptx->targets) == "compute_90");
}

TEST_CASE("fixed_devices is the one class for a given list (explicit_device_source is its name too)", "[contract][devices]") {
  static_assert(std::is_same_v<explicit_device_source, fixed_devices>);
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
