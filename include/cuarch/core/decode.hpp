// Named decoders: the only doors through which raw integers and version strings become cuarch
// values. Each encoding has its own name, because mixing them up is the classic bug
// (120 vs 1200 vs 12000).
#pragma once

#include <string_view>

#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "detail/chars.hpp"
#include "error.hpp"
#include "expected.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {
constexpr error invalid_number(std::string_view what, long long value, source_kind src) {
  text<96> subject(what);
  subject.append(' ').append_int(value);
  return errors::invalid_version(src, subject.view());
}
}  // namespace detail

/// cudaRuntimeGetVersion / cudaDriverGetVersion / cuDriverGetVersion / CUDA_VERSION: 1000*major + 10*minor
/// (13000 -> 13.0, 12080 -> 12.8). 0 ("no driver") and other non-encodings are errors.
constexpr expected<cuda_version, error> decode_cudart_version(int v, source_kind src = source_kind::none) {
  if (v < 1000 || v % 10 != 0 || v > 99990) return unexpected(detail::invalid_number("CUDA version integer", v, src));
  return cuda_version{v / 1000, (v % 1000) / 10, -1};
}

/// nvrtcVersion(&major, &minor).
constexpr expected<cuda_version, error> decode_nvrtc_version(int major, int minor) {
  if (major < 1 || major > 99 || minor < 0 || minor > 99)
    return unexpected(detail::invalid_number("nvrtcVersion major*100+minor", major * 100LL + minor, source_kind::nvrtc));
  return cuda_version{major, minor, -1};
}

/// The `sm_XY` number, as in nvrtcGetSupportedArchs, CMake CUDA_ARCHITECTURES and `-arch=sm_90`:
/// 10*major + minor (90 -> 9.0, 120 -> 12.0).
constexpr expected<compute_capability, error> decode_sm_number(int n, source_kind src = source_kind::none) {
  if (n < 10 || n > 999) return unexpected(detail::invalid_number("sm number", n, src));
  return compute_capability{n / 10, n % 10};
}

/// `__CUDA_ARCH__` / `__CUDA_ARCH_SPECIFIC__` encoding: 100*major + 10*minor (900 -> 9.0).
constexpr expected<compute_capability, error> decode_cuda_arch_macro(int n) {
  if (n < 100 || n % 10 != 0 || n > 9990)
    return unexpected(detail::invalid_number("__CUDA_ARCH__ value", n, source_kind::none));
  return compute_capability{n / 100, (n % 100) / 10};
}

namespace detail {
/// "A.B" or "A.B.C", digits only; false for anything else.
constexpr bool read_version_parts(std::string_view s, int& a, int& b, int& c) noexcept {
  std::size_t n = read_uint(s, a);
  if (n == 0 || n >= s.size() || s[n] != '.') return false;
  s.remove_prefix(n + 1);
  n = read_uint(s, b);
  if (n == 0) return false;
  s.remove_prefix(n);
  return s.empty() || (s.front() == '.' && parse_uint(s.substr(1), c));
}
}  // namespace detail

/// "12.4", "12.4.127", "V13.0.88" (nvcc's spelling). Nothing else may follow.
constexpr expected<cuda_version, error> parse_cuda_version(std::string_view s,
                                                           source_kind src = source_kind::user_input) {
  std::string_view t = detail::trim(s);
  if (!t.empty() && (t.front() == 'V' || t.front() == 'v')) t.remove_prefix(1);
  cuda_version v;
  if (!detail::read_version_parts(t, v.major, v.minor, v.patch) || v.major < 1 || v.major > 99 || v.minor > 99)
    return unexpected(errors::invalid_version(src, s));
  return v;
}

/// "9.0" (a PTX `.version`).
constexpr expected<ptx_isa_version, error> parse_ptx_isa_version(std::string_view s) {
  const auto v = parse_cuda_version(s, source_kind::none);
  if (!v || v->has_patch() || detail::trim(s).find_first_of("Vv") == 0)
    return unexpected(errors::invalid_version(source_kind::none, s));
  return ptx_isa_version{v->major, v->minor};
}

/// "580.65.06", "570.26".
constexpr expected<driver_version, error> parse_driver_version(std::string_view s,
                                                               source_kind src = source_kind::driver) {
  driver_version v;
  if (!detail::read_version_parts(detail::trim(s), v.major, v.minor, v.patch))
    return unexpected(errors::invalid_version(src, s));
  return v;
}

/// The output of `nvcc --version` / `ptxas --version`: finds "release 13.0, V13.0.88" on any line
/// (banner lines, CRLF line ends and trailing noise are tolerated). Prefers the full V-number.
constexpr expected<cuda_version, error> parse_nvcc_version_output(std::string_view out,
                                                                  source_kind src = source_kind::nvcc) {
  constexpr std::string_view key = "release ";
  for (std::size_t at = out.find(key); at != std::string_view::npos; at = out.find(key, at + 1)) {
    std::string_view rest = out.substr(at + key.size());
    const std::size_t comma = rest.find(',');
    const std::size_t eol = rest.find_first_of("\r\n");
    if (comma == std::string_view::npos || comma > eol) continue;  // eol: npos on the last line
    const auto release = parse_cuda_version(rest.substr(0, comma), src);
    if (!release) continue;
    std::string_view tail = detail::trim(rest.substr(comma + 1, eol - comma - 1));
    if (!tail.empty() && (tail.front() == 'V' || tail.front() == 'v')) {
      const std::size_t end = tail.find_first_of(" \t");
      const auto full = parse_cuda_version(tail.substr(0, end), src);
      if (full && full->release() == release->release()) return *full;
    }
    return *release;
  }
  return unexpected(errors::malformed_output(src, to_string(src), {}, detail::trim(out.substr(0, 160))));
}

CUARCH_END_NAMESPACE
