// The source contract of resolution, in one place: what a compiler, device and driver source must
// provide. Every source in cuarch meets it (fixed_sources.hpp, the NVRTC/nvcc/driver/NVML
// sources), and so can one of yours:
//
//   role             member (const, never throws, callable from several threads at once)
//   compiler source  compiler()       -> expected<compiler_info, error>               fixed_compiler
//   device source    devices()        -> expected<std::vector<device_info>, error>    fixed_devices
//   driver source    driver_version() -> expected<observation, error>                 fixed_driver
//
// The result may be any type convertible to the one named (a const reference to a cached value is
// fine). Resolution asks the compiler once per resolve, the devices only when it needs them
// (`native`, or explicit targets under verify_on_devices), and the driver only for PTX, and then
// only when checks_ptx_against(driver) holds. Sources are asked on every resolve: one that
// queries a library or a process keeps its first answer itself (nvrtc_library_source).
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "policy.hpp"

CUARCH_BEGIN_NAMESPACE

// ---- what each role must provide --------------------------------------------------------------

namespace detail {
// The member each role calls; SFINAE-friendly, so the same alias tells whether a type answers.
template <class S>
using compiler_answer = decltype(std::declval<const S&>().compiler());
template <class S>
using devices_answer = decltype(std::declval<const S&>().devices());
template <class S>
using driver_answer = decltype(std::declval<const S&>().driver_version());
template <class S>
using checks_ptx_answer = decltype(std::declval<const S&>().checks_ptx());

/// Whether S has the member Answer names, with a result convertible to R.
template <template <class> class Answer, class S, class R, class = void>
struct answers : std::false_type {};
template <template <class> class Answer, class S, class R>
struct answers<Answer, S, R, std::void_t<Answer<S>>> : std::is_convertible<Answer<S>, R> {};
}  // namespace detail

/// Whether S is a compiler, device or driver source (the table above).
template <class S>
inline constexpr bool is_compiler_source_v =
    detail::answers<detail::compiler_answer, S, expected<compiler_info, error>>::value;
template <class S>
inline constexpr bool is_device_source_v =
    detail::answers<detail::devices_answer, S, expected<std::vector<device_info>, error>>::value;
template <class S>
inline constexpr bool is_driver_source_v = detail::answers<detail::driver_answer, S, expected<observation, error>>::value;

#if defined(__cpp_concepts) && __cpp_concepts >= 201907L
/// The same rules as concepts, for constraining your own templates in C++20.
template <class S>
concept compiler_source = is_compiler_source_v<S>;
template <class S>
concept device_source = is_device_source_v<S>;
template <class S>
concept driver_source = is_driver_source_v<S>;
#endif

/// Whether resolution checks PTX targets against Driver's answer (check_driver_can_jit), and may
/// fall back to PTX for a device newer than the compiler. True for a driver source unless it is
/// specialised false, as no_driver is: a build tool's driver is not the one that will run the code.
/// A source for which it is false is asked driver_version() only to say why a PTX fallback was
/// refused, so its error should explain why it does not check.
template <class Driver>
struct checks_ptx_against_driver : std::true_type {};

/// Whether resolution checks PTX against this very driver source: its `checks_ptx()` member where
/// it has one (a source that learns it only at run time), else the trait.
template <class Driver>
bool checks_ptx_against(const Driver& driver) noexcept {
  if constexpr (detail::answers<detail::checks_ptx_answer, Driver, bool>::value) return driver.checks_ptx();
  else return checks_ptx_against_driver<Driver>::value;
}

namespace detail {

template <class CompilerSource, class DeviceSource, class DriverSource>
constexpr bool check_resolver_arguments() {
  static_assert(!std::is_base_of_v<resolve_policy, DeviceSource> && !std::is_base_of_v<resolve_policy, DriverSource>,
                "cuarch: the policy is a value, not a template argument: resolver<Compiler, Devices, Driver> "
                "takes it in its constructor (resolver<C, D>(c, d, cuarch::jit_policy{}))");
  static_assert(is_compiler_source_v<CompilerSource>,
                "cuarch: CompilerSource needs `expected<compiler_info, error> compiler() const` "
                "(e.g. cuarch::fixed_compiler; see cuarch/resolve/source_contract.hpp)");
  static_assert(is_device_source_v<DeviceSource>,
                "cuarch: DeviceSource needs `expected<std::vector<device_info>, error> devices() const` "
                "(e.g. cuarch::fixed_devices; see cuarch/resolve/source_contract.hpp)");
  static_assert(is_driver_source_v<DriverSource>,
                "cuarch: DriverSource needs `expected<observation, error> driver_version() const` "
                "(e.g. cuarch::fixed_driver; see cuarch/resolve/source_contract.hpp)");
  return true;
}
}  // namespace detail

CUARCH_END_NAMESPACE
