// Compile-time targets. C++17: CUARCH_ARCH("sm_90a") is a constant expression and a bad spelling
// fails to compile. C++20: "sm_90a"_arch, whose bad spellings fail to compile with the reason in the
// diagnostic (the call to a function named after the error).
#pragma once

#include "arch.hpp"
#include "config.hpp"
#include "parse.hpp"

/// A constant arch_target from a string literal; ill-formed (does not compile) if the spelling is bad.
#define CUARCH_ARCH(literal)                                                          \
  ([] {                                                                               \
    constexpr auto cuarch_parsed_ = ::cuarch::parse_arch(literal);                    \
    static_assert(cuarch_parsed_.has_value(), "invalid CUDA architecture: " literal); \
    return *cuarch_parsed_;                                                           \
  }())

#if CUARCH_HAS_CONSTEVAL()
#  include <cstddef>

CUARCH_BEGIN_NAMESPACE
namespace detail {

// Deliberately not constexpr: reaching one of these during constant evaluation stops compilation,
// and the compiler prints the function's name, which says what is wrong.
void invalid_arch_literal_malformed_spelling();
void invalid_arch_literal_unknown_suffix();
void invalid_arch_literal_suffix_does_not_exist_for_this_compute_capability();
void invalid_arch_literal_names_two_targets_use_parse_arch_list();

template <std::size_t N>
struct arch_literal_text {
  char chars[N]{};
  consteval arch_literal_text(const char (&s)[N]) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

consteval arch_target checked_arch_literal(std::string_view s) {
  const auto r = parse_arch(s);
  if (!r) {
    switch (r.error().code) {
      case errc::unknown_suffix: invalid_arch_literal_unknown_suffix(); break;
      case errc::variant_not_defined: invalid_arch_literal_suffix_does_not_exist_for_this_compute_capability(); break;
      default:
        if (parse_arch_token(s)) invalid_arch_literal_names_two_targets_use_parse_arch_list();
        invalid_arch_literal_malformed_spelling();
        break;
    }
  }
  return *r;
}

}  // namespace detail

namespace literals {
/// "sm_90a"_arch, "12.0f"_arch, "compute_90"_arch
template <detail::arch_literal_text S>
consteval arch_target operator""_arch() {
  return detail::checked_arch_literal(S.view());
}
}  // namespace literals

CUARCH_END_NAMESPACE
#endif  // CUARCH_HAS_CONSTEVAL()
