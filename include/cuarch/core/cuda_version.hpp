// Version value types: a CUDA release (13.0, 12.4.127), a PTX ISA version (9.0) and an NVIDIA
// driver version (580.65.06). Raw integers and strings enter only through decode.hpp.
#pragma once

#include "compute_capability.hpp"
#include "config.hpp"
#include "detail/text.hpp"

CUARCH_BEGIN_NAMESPACE

/// A CUDA toolkit / NVRTC / runtime / driver-API version. `patch` is -1 when the source only knows
/// major.minor (cudaRuntimeGetVersion, nvrtcVersion); ordering then treats it as the lowest patch.
struct cuda_version {
  int major = 0;
  int minor = 0;
  int patch = -1;

  constexpr bool has_patch() const noexcept { return patch >= 0; }
  /// The same release without its patch level: what the knowledge table is keyed on.
  constexpr cuda_version release() const noexcept { return {major, minor, -1}; }
  friend constexpr int compare(const cuda_version& a, const cuda_version& b) noexcept {
    return detail::compare3(a.major, a.minor, a.patch, b.major, b.minor, b.patch);
  }
};

/// A PTX ISA version, as in the `.version 9.0` line of a PTX file.
struct ptx_isa_version {
  int major = 0;
  int minor = 0;
  friend constexpr int compare(const ptx_isa_version& a, const ptx_isa_version& b) noexcept {
    return detail::compare3(a.major, a.minor, 0, b.major, b.minor, 0);
  }
};

/// An NVIDIA driver version, e.g. 580.65.06 (`patch` is -1 for a two-part version like 570.26).
struct driver_version {
  int major = 0;
  int minor = 0;
  int patch = -1;
  friend constexpr int compare(const driver_version& a, const driver_version& b) noexcept {
    return detail::compare3(a.major, a.minor, a.patch, b.major, b.minor, b.patch);
  }
};

/// "13.0" or "12.4.127"
constexpr detail::text<24> to_text(const cuda_version& v) {
  detail::text<24> t;
  t.append_int(v.major).append('.').append_int(v.minor);
  if (v.has_patch()) t.append('.').append_int(v.patch);
  return t;
}
/// "9.0"
constexpr detail::text<16> to_text(const ptx_isa_version& v) {
  return detail::text<16>().append_int(v.major).append('.').append_int(v.minor);
}
/// "580.65.06" (the third part is zero-padded to two digits, as NVIDIA writes it)
constexpr detail::text<24> to_text(const driver_version& v) {
  detail::text<24> t;
  t.append_int(v.major).append('.').append_int(v.minor);
  if (v.patch >= 0) t.append(v.patch < 10 ? ".0" : ".").append_int(v.patch);
  return t;
}

CUARCH_END_NAMESPACE
