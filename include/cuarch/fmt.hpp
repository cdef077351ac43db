// fmt support: fmt::format("{}", x) for every public value type ("sm_120a", "12.8", "9.0", ...).
// Include this header where fmt is wanted; the rest of cuarch does not need fmt. Works with fmt 8+.
#pragma once

#include <fmt/format.h>

#include <string_view>

#include "core/arch.hpp"
#include "core/compute_capability.hpp"
#include "core/cuda_version.hpp"
#include "core/error.hpp"
#include "core/source_kind.hpp"

namespace cuarch::detail {
/// Formats any cuarch value through its to_text()/to_string()/message() spelling.
struct fmt_via_text : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto put(std::string_view s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};
}  // namespace cuarch::detail

#define CUARCH_DETAIL_FMT_TEXT(T, EXPR)                     \
  template <>                                               \
  struct fmt::formatter<T> : cuarch::detail::fmt_via_text { \
    template <class Ctx>                                    \
    auto format(const T& x, Ctx& ctx) const {               \
      return put(EXPR, ctx);                                \
    }                                                       \
  };

CUARCH_DETAIL_FMT_TEXT(cuarch::compute_capability, cuarch::to_text(x).view())
CUARCH_DETAIL_FMT_TEXT(cuarch::cuda_version, cuarch::to_text(x).view())
CUARCH_DETAIL_FMT_TEXT(cuarch::ptx_isa_version, cuarch::to_text(x).view())
CUARCH_DETAIL_FMT_TEXT(cuarch::driver_version, cuarch::to_text(x).view())
CUARCH_DETAIL_FMT_TEXT(cuarch::arch_target, cuarch::to_text(x).view())
CUARCH_DETAIL_FMT_TEXT(cuarch::source_kind, cuarch::to_string(x))
CUARCH_DETAIL_FMT_TEXT(cuarch::errc, cuarch::to_string(x))
CUARCH_DETAIL_FMT_TEXT(cuarch::error, std::string_view(x.message()))
#undef CUARCH_DETAIL_FMT_TEXT
