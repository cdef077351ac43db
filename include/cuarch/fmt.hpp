// fmt support: fmt::format("{}", x) for every public value type ("sm_120a", "12.8", "9.0", ...).
// Include this header where fmt is wanted; the rest of cuarch does not need fmt. Works with fmt 8+.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/arch.hpp"
#include "core/compute_capability.hpp"
#include "core/cuda_version.hpp"
#include "core/error.hpp"
#include "core/source_kind.hpp"

namespace cuarch::detail {
/// Formats a cuarch value through its to_text()/to_string()/message() spelling; a spec ("{:>9}") is
/// applied to that spelling at format time. Not fmt::formatter<std::string_view>: its spec parser, in
/// the caller's TU, makes GCC 12 warn at -O3 with fmt 8-9 (-Wstringop-overflow in fill_t, a false
/// positive, fatal under -Werror). A nested argument ("{:>{}}") is not supported: fmt says so.
struct fmt_via_text {
  std::string_view spec;  // between ':' and '}', "" for "{}"

  template <class ParseCtx>
  constexpr auto parse(ParseCtx& ctx) {
    auto it = ctx.begin();
    std::size_t n = 0;
    for (int depth = 0; it != ctx.end() && (*it != '}' || depth > 0); ++it, ++n) {
      if (*it == '{') ++depth;
      if (*it == '}') --depth;
    }
    if (n != 0) spec = std::string_view(&*ctx.begin(), n);
    return it;
  }

  template <class Ctx>
  auto put(std::string_view s, Ctx& ctx) const {
    if (spec.empty()) return std::copy(s.begin(), s.end(), ctx.out());
    const std::string f = "{:" + std::string(spec) + "}";
    // fmt::format is compiled in the fmt library; format_to(ctx.out(), ...) would instantiate its
    // formatting core here (GCC 12-13 warn at -O2 in it: -Warray-bounds in bigint, C++20).
    const std::string padded = fmt::format(fmt::runtime(f), s);
    return std::copy(padded.begin(), padded.end(), ctx.out());
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
