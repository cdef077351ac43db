// cuarch/device.hpp: what the target being compiled provides, in device code under nvcc and NVRTC,
// and CUARCH_DEVICE_REQUIRE(...), which stops the device compilation of a target lacking the feature
// sets a kernel needs (docs/design.md, "Device-side checks", has the rules). It includes nothing
// (NVRTC has no standard library), so its spelling reader is its own, grammar-only; nvcc's host pass
// also checks every spelling with core/parse.hpp, and tests/device_test.cpp checks both agree.
#pragma once

#if defined(__CUDACC__)
#  define CUARCH_DEVICE_HD __host__ __device__
#else
#  define CUARCH_DEVICE_HD
#endif

namespace cuarch {
namespace device {

/// A target as far as features go: compute capability and variant ('\0' baseline, 'a', 'f').
struct target {
  int major = 0;
  int minor = 0;
  char variant = '\0';
  bool valid = false;  // false: the spelling could not be read

  CUARCH_DEVICE_HD constexpr int number() const { return major * 10 + minor; }
};

namespace detail {
/// Skips `prefix` at s[i] (length n) when it is there; tells whether it was.
CUARCH_DEVICE_HD constexpr bool skip_prefix(const char* s, decltype(sizeof(0)) n, decltype(sizeof(0))& i,
                                            const char* prefix) {
  decltype(sizeof(0)) k = 0;
  for (; prefix[k] != '\0'; ++k)
    if (i + k >= n || s[i + k] != prefix[k]) return false;
  i += k;
  return true;
}
}  // namespace detail

/// Reads "sm_90a", "compute_100f", "lto_90", "90a", "9.0a", "120", "12.0f" (length n, no NUL needed).
CUARCH_DEVICE_HD constexpr target read_target(const char* s, decltype(sizeof(0)) n) {
  target t{};
  decltype(sizeof(0)) i = 0;
  if (!detail::skip_prefix(s, n, i, "sm_") && !detail::skip_prefix(s, n, i, "compute_"))
    detail::skip_prefix(s, n, i, "lto_");
  int digits = 0, value = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) value = value * 10 + (s[i] - '0');
  if (digits == 0 || digits > 3) return t;
  if (i < n && s[i] == '.') {  // dotted: X.Y, one minor digit
    ++i;
    if (i >= n || s[i] < '0' || s[i] > '9' || digits > 2) return t;
    t.major = value;
    t.minor = s[i] - '0';
    ++i;
  } else {
    if (digits < 2) return t;
    t.major = value / 10;
    t.minor = value % 10;
  }
  if (i < n && (s[i] == 'a' || s[i] == 'f')) t.variant = s[i++];
  t.valid = i == n && t.major > 0;
  return t;
}

/// Does building `built` provide the feature set `required` names? (The rules: docs/design.md.)
CUARCH_DEVICE_HD constexpr bool provides(const target& built, const target& required) {
  if (!built.valid || !required.valid) return false;
  switch (required.variant) {
    case 'a': return built.variant == 'a' && built.major == required.major && built.minor == required.minor;
    case 'f':
      return (built.variant == 'a' || built.variant == 'f') && built.major == required.major &&
             built.minor >= required.minor;
    default: return built.number() >= required.number();
  }
}

namespace detail {
template <decltype(sizeof(0))... N>
CUARCH_DEVICE_HD constexpr bool all_readable(const char (&... spellings)[N]) {
  return (read_target(spellings, N - 1).valid && ...);
}
template <decltype(sizeof(0))... N>
CUARCH_DEVICE_HD constexpr bool any_provided(const target& built, const char (&... spellings)[N]) {
  return (provides(built, read_target(spellings, N - 1)) || ...);
}
}  // namespace detail

/// The target this device pass compiles for. In a host pass there is none: valid == false.
CUARCH_DEVICE_HD constexpr target current_target() {
  target t{};
#if defined(__CUDA_ARCH__)
  t.major = __CUDA_ARCH__ / 100;
  t.minor = (__CUDA_ARCH__ / 10) % 10;
#  if defined(__CUDA_ARCH_SPECIFIC__)
  t.variant = 'a';
#  elif defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
  t.variant = 'f';
#  elif defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || \
      defined(__CUDA_ARCH_FEAT_SM101_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL) ||  \
      defined(__CUDA_ARCH_FEAT_SM110_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL) || defined(__CUDA_ARCH_FEAT_SM121_ALL)
  t.variant = 'a';  // toolkits before 12.9 say `a` only through these feature macros
#  endif
  t.valid = true;
#endif
  return t;
}

}  // namespace device
}  // namespace cuarch

#define CUARCH_DEVICE_STR_(x) #x
#define CUARCH_DEVICE_XSTR_(x) CUARCH_DEVICE_STR_(x)

#if defined(__CUDA_ARCH_SPECIFIC__)
#  define CUARCH_DEVICE_VARIANT_TEXT_ "arch-specific (a)"
#elif defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
#  define CUARCH_DEVICE_VARIANT_TEXT_ "family-specific (f)"
#else
#  define CUARCH_DEVICE_VARIANT_TEXT_ "baseline (no a/f features)"
#endif

// Every pass reads the spellings (a typo fails even where no device code is compiled); nvcc's host
// pass also checks them against cuarch's parser and knowledge table. Device passes check the target.
#define CUARCH_DEVICE_CHECK_SPELLINGS_(...)                          \
  static_assert(::cuarch::device::detail::all_readable(__VA_ARGS__), \
                "cuarch: CUARCH_DEVICE_REQUIRE(" #__VA_ARGS__        \
                "): a spelling cannot be read "                      \
                "(write targets as sm_90a, compute_100f, 9.0a or 120f)")

// The fix, spelled for the compiler at hand (a static_assert message cannot be computed, so the
// required targets are named as written and the flag's form is shown for them).
#if defined(__CUDACC_RTC__)
#  define CUARCH_DEVICE_FIX_(...) \
    "; fix: compile this program once per target, with --gpu-architecture=<one of " #__VA_ARGS__ ">"
#else
#  define CUARCH_DEVICE_FIX_(...)       \
    "; fix: build one of " #__VA_ARGS__ \
    " too: -gencode=arch=compute_<T>,code=sm_<T> (sm_90a: -gencode=arch=compute_90a,code=sm_90a)"
#endif

#if defined(__CUDA_ARCH__)
#  define CUARCH_DEVICE_REQUIRE(...)                                                                       \
    CUARCH_DEVICE_CHECK_SPELLINGS_(__VA_ARGS__);                                                           \
    static_assert(::cuarch::device::detail::any_provided(::cuarch::device::current_target(), __VA_ARGS__), \
                  "cuarch: CUARCH_DEVICE_REQUIRE(" #__VA_ARGS__                                            \
                  ") is not met by the target being built: "                                               \
                  "__CUDA_ARCH__=" CUARCH_DEVICE_XSTR_(                                                    \
                      __CUDA_ARCH__) ", " CUARCH_DEVICE_VARIANT_TEXT_ CUARCH_DEVICE_FIX_(__VA_ARGS__))
#elif !defined(__CUDACC_RTC__) && defined(__cplusplus) && __cplusplus >= 201703L && defined(__has_include)
#  if __has_include("core/parse.hpp")
#    include <string_view>

#    include "core/parse.hpp"
namespace cuarch {
namespace device {
namespace detail {
/// The host pass's check: every spelling is a target cuarch's parser and table accept.
template <decltype(sizeof(0))... N>
constexpr bool all_parse_as_targets(const char (&... spellings)[N]) {
  return (::cuarch::parse_arch(std::string_view(spellings, N - 1)).has_value() && ...);
}
}  // namespace detail
}  // namespace device
}  // namespace cuarch
#    define CUARCH_DEVICE_REQUIRE(...)                                           \
      CUARCH_DEVICE_CHECK_SPELLINGS_(__VA_ARGS__);                               \
      static_assert(::cuarch::device::detail::all_parse_as_targets(__VA_ARGS__), \
                    "cuarch: CUARCH_DEVICE_REQUIRE(" #__VA_ARGS__ "): a target that does not exist (see cuarch check)")
#  endif
#endif
#if !defined(CUARCH_DEVICE_REQUIRE)
#  define CUARCH_DEVICE_REQUIRE(...) CUARCH_DEVICE_CHECK_SPELLINGS_(__VA_ARGS__)
#endif
