// The source contract of resolution, in one place: what a compiler, device and driver source must
// provide, and adaptors that erase a source's type. Every source in cuarch meets it (fixed_sources.hpp, the
// NVRTC/nvcc/driver/NVML sources), and so can one of yours:
//
//   role             member (const, never throws, callable from several threads at once)
//   compiler source  compiler()       -> expected<compiler_info, error>               fixed_compiler
//   device source    devices()        -> expected<std::vector<device_info>, error>    fixed_devices
//   driver source    driver_version() -> expected<observation, error>                 fixed_driver
//
// The result may be any type convertible to the one named (a const reference to a cached value is
// fine). Resolution asks the compiler once per resolve, the devices only when it needs them
// (`native`, or explicit targets under verify_on_devices), and the driver only for PTX, and then
// only when checks_ptx_against_driver<Driver> holds. Sources are asked on every resolve: one that
// queries a library or a process keeps its first answer itself (nvrtc_library_source).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/arch.hpp"
#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "policy.hpp"

CUARCH_BEGIN_NAMESPACE

// ---- what each role must provide --------------------------------------------------------------

namespace detail {
// One question per role: the member it calls and the result the contract names. Each call is
// SFINAE-friendly (its type is the member's), so the same tag tells whether a type answers.
struct ask_compiler {
  using result = expected<compiler_info, error>;
  template <class S>
  auto operator()(const S& s) const -> decltype(s.compiler()) {
    return s.compiler();
  }
};
struct ask_devices {
  using result = expected<std::vector<device_info>, error>;
  template <class S>
  auto operator()(const S& s) const -> decltype(s.devices()) {
    return s.devices();
  }
};
struct ask_driver {
  using result = expected<observation, error>;
  template <class S>
  auto operator()(const S& s) const -> decltype(s.driver_version()) {
    return s.driver_version();
  }
};

/// Whether S answers Ask's question with something convertible to Ask::result.
template <class Ask, class S, class = void>
struct answers : std::false_type {};
template <class Ask, class S>
struct answers<Ask, S, std::void_t<std::invoke_result_t<Ask, const S&>>>
    : std::is_convertible<std::invoke_result_t<Ask, const S&>, typename Ask::result> {};
}  // namespace detail

/// Whether S is a compiler, device or driver source (the table above).
template <class S>
inline constexpr bool is_compiler_source_v = detail::answers<detail::ask_compiler, S>::value;
template <class S>
inline constexpr bool is_device_source_v = detail::answers<detail::ask_devices, S>::value;
template <class S>
inline constexpr bool is_driver_source_v = detail::answers<detail::ask_driver, S>::value;

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

/// Whether resolution checks PTX against this very driver source: the trait (any_driver_source,
/// which learns it only at run time, has its own overload below).
template <class Driver>
constexpr bool checks_ptx_against(const Driver&) noexcept {
  return checks_ptx_against_driver<Driver>::value;
}

namespace detail {

template <class CompilerSource, class DeviceSource, class Policy, class DriverSource>
constexpr bool check_resolver_arguments() {
  static_assert(is_compiler_source_v<CompilerSource>,
                "cuarch: CompilerSource needs `expected<compiler_info, error> compiler() const` "
                "(e.g. cuarch::fixed_compiler; see cuarch/resolve/source_contract.hpp)");
  static_assert(is_device_source_v<DeviceSource>,
                "cuarch: DeviceSource needs `expected<std::vector<device_info>, error> devices() const` "
                "(e.g. cuarch::fixed_devices; see cuarch/resolve/source_contract.hpp)");
  static_assert(is_driver_source_v<DriverSource>,
                "cuarch: DriverSource needs `expected<observation, error> driver_version() const` "
                "(e.g. cuarch::fixed_driver; see cuarch/resolve/source_contract.hpp)");
  static_assert(std::is_base_of_v<resolve_policy, Policy>,
                "cuarch: Policy must be cuarch::resolve_policy or derive from it "
                "(strict_policy, best_effort_policy, jit_policy)");
  return true;
}
}  // namespace detail

// ---- type-erased adaptors ---------------------------------------------------------------------

namespace detail {

/// One question to a source whose type is erased. The source is held by a shared pointer to const:
/// copies of the adaptor share it, which is safe because sources answer from const members.
template <class Ask>
class erased_question {
  using Result = typename Ask::result;

 public:
  template <class S>
  explicit erased_question(S source)
      : source_(std::make_shared<const S>(std::move(source))),
        ask_([](const void* s) -> Result { return Ask{}(*static_cast<const S*>(s)); }) {}

  Result operator()() const { return ask_(source_.get()); }

 private:
  std::shared_ptr<const void> source_;
  Result (*ask_)(const void*);
};

template <class S, class Adaptor, bool Role>
using if_adaptable = std::enable_if_t<Role && !std::is_same_v<std::decay_t<S>, Adaptor>, int>;

}  // namespace detail

/// Any compiler source, behind one type (one resolver instantiation for many sources).
class any_compiler_source {
 public:
  template <class S, detail::if_adaptable<S, any_compiler_source, is_compiler_source_v<S>> = 0>
  any_compiler_source(S source) : ask_(std::move(source)) {}  // NOLINT: implicit, like std::function

  expected<compiler_info, error> compiler() const { return ask_(); }

 private:
  detail::erased_question<detail::ask_compiler> ask_;
};

/// Any device source, behind one type.
class any_device_source {
 public:
  template <class S, detail::if_adaptable<S, any_device_source, is_device_source_v<S>> = 0>
  any_device_source(S source) : ask_(std::move(source)) {}  // NOLINT: implicit, like std::function

  expected<std::vector<device_info>, error> devices() const { return ask_(); }

 private:
  detail::erased_question<detail::ask_devices> ask_;
};

/// Any driver source, behind one type. It keeps what checks_ptx_against() said of the source it
/// holds: an erased no_driver still does not check PTX.
class any_driver_source {
 public:
  template <class S, detail::if_adaptable<S, any_driver_source, is_driver_source_v<S>> = 0>
  any_driver_source(S source) : checks_ptx_(checks_ptx_against(source)), ask_(std::move(source)) {}  // NOLINT: implicit

  expected<observation, error> driver_version() const { return ask_(); }
  bool checks_ptx() const noexcept { return checks_ptx_; }

 private:
  bool checks_ptx_;
  detail::erased_question<detail::ask_driver> ask_;
};
inline bool checks_ptx_against(const any_driver_source& driver) noexcept { return driver.checks_ptx(); }

CUARCH_END_NAMESPACE
