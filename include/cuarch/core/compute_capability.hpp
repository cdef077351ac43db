// compute_capability: the device property major.minor (9.0, 12.0, 12.1). Raw integers enter only
// through the named decoders in decode.hpp.
#pragma once

#include "config.hpp"
#include "detail/text.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {
constexpr int compare3(int a0, int a1, int a2, int b0, int b1, int b2) noexcept {
  if (a0 != b0) return a0 < b0 ? -1 : 1;
  if (a1 != b1) return a1 < b1 ? -1 : 1;
  if (a2 != b2) return a2 < b2 ? -1 : 1;
  return 0;
}
}  // namespace detail

/// A device's compute capability. Plain data members (not major()/minor() functions: glibc defines
/// function-like macros with those names).
struct compute_capability {
  int major = 0;
  int minor = 0;

  /// The `sm_XY` number: 10 * major + minor (120 for 12.0).
  constexpr int sm_number() const noexcept { return major * 10 + minor; }
  /// `__CUDA_ARCH__` encoding: 100 * major + 10 * minor (1200 for 12.0).
  constexpr int cuda_arch_macro() const noexcept { return major * 100 + minor * 10; }
  friend constexpr int compare(const compute_capability& a, const compute_capability& b) noexcept {
    return detail::compare3(a.major, a.minor, 0, b.major, b.minor, 0);
  }
};

// Six operators for each value type with a compare() friend (here and in cuda_version.hpp), derived
// from it so none can disagree with another; templates, so no macro is left in the user's code.
// clang-format off
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator==(const T& a, const T& b) noexcept { return compare(a, b) == 0; }
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator!=(const T& a, const T& b) noexcept { return compare(a, b) != 0; }
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator<(const T& a, const T& b) noexcept { return compare(a, b) < 0; }
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator<=(const T& a, const T& b) noexcept { return compare(a, b) <= 0; }
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator>(const T& a, const T& b) noexcept { return compare(a, b) > 0; }
template <class T, class = decltype(compare(T{}, T{}))>
constexpr bool operator>=(const T& a, const T& b) noexcept { return compare(a, b) >= 0; }
// clang-format on

/// "12.0"
constexpr detail::text<8> to_text(const compute_capability& cc) {
  return detail::text<8>().append_int(cc.major).append('.').append_int(cc.minor);
}

CUARCH_END_NAMESPACE
