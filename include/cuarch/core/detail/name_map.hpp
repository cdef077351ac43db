// The reverse of an enum's to_string(): every enum that users spell (dialects, formats, policies,
// environment overrides, finding kinds) keeps one name map, its to_string() beside the enum, and
// parses through this one loop over the enum's all_<...> list.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

/// The enumerator of `all` whose to_string() (found beside the enum) is `name`; nullopt when none is.
template <class Enum, std::size_t N>
constexpr std::optional<Enum> find_by_name(const Enum (&all)[N], std::string_view name) noexcept {
  for (const Enum e : all)
    if (to_string(e) == name) return e;
  return std::nullopt;
}

}  // namespace detail
CUARCH_END_NAMESPACE
