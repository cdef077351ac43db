// Every enum that users spell (dialects, formats, policies, sources, finding kinds, options) writes
// its names once, as a list in the order of its enumerators (0, 1, 2, ...): to_string() indexes it,
// all_<enum> enumerates it, and find_by_name() reverses it, so a name cannot be in one and not the
// other.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// The name of `e` in `names` (its enumerator's position); empty for a value outside the enum.
template <class Enum, std::size_t N>
constexpr std::string_view name_of(const std::string_view (&names)[N], Enum e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : std::string_view();
}

/// Every enumerator, in order: one per name.
template <class Enum, std::size_t N>
constexpr std::array<Enum, N> enumerators(const std::string_view (&)[N]) noexcept {
  std::array<Enum, N> all{};
  for (std::size_t i = 0; i < N; ++i) all[i] = static_cast<Enum>(i);
  return all;
}

/// The enumerator of `all` whose to_string() (found beside the enum) is `name`; nullopt when none is.
template <class Range>
constexpr auto find_by_name(const Range& all, std::string_view name) noexcept
    -> std::optional<std::decay_t<decltype(*std::begin(all))>> {
  for (const auto e : all)
    if (to_string(e) == name) return e;
  return std::nullopt;
}

}  // namespace detail
CUARCH_END_NAMESPACE
