// The including translation unit's compile-time CUDA_VERSION as a version source: the headers the
// caller's code was compiled against. The one place cuarch touches a CUDA header: <cuda.h> is
// included only if it is on the include path (and CUARCH_NO_CUDA_HEADERS is not defined). Not part
// of the umbrella header: include it where the answer is wanted, then call
// CUARCH_COMPILE_TIME_OBSERVATION(), which reads CUDA_VERSION where it is expanded.
#pragma once

#if !defined(CUDA_VERSION) && !defined(CUARCH_NO_CUDA_HEADERS) && defined(__has_include)
#  if __has_include(<cuda.h>)
#    include <cuda.h>
#  endif
#endif

#include <string>

#include "../core/decode.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {
#if !defined(CUDA_VERSION)
// Found by CUARCH_COMPILE_TIME_OBSERVATION() when no CUDA_VERSION macro exists where it is expanded
// (a later #include <cuda.h> defines the macro, which then takes precedence over this variable).
inline constexpr int CUDA_VERSION = 0;
#endif
}  // namespace detail

/// The observation for a CUDA_VERSION value seen at compile time in `file` (0: no CUDA headers).
inline expected<observation, error> compile_time_observation(int cuda_version_macro, const char* file) {
  if (cuda_version_macro == 0) {
    return unexpected(
        errors::file_unreadable(source_kind::compile_time, "cuda.h", file,
                                "this translation unit was compiled without CUDA headers, so it has no CUDA_VERSION"));
  }
  const auto v = decode_cudart_version(cuda_version_macro, source_kind::compile_time);
  if (!v) {
    error e = v.error();
    e.location = file;
    return unexpected(e);
  }
  return observation{source_kind::compile_time, *v, file, discovery::compile_time,
                     "CUDA_VERSION " + std::to_string(cuda_version_macro)};
}

CUARCH_END_NAMESPACE

/// The compile-time CUDA_VERSION of the translation unit that expands it, as an observation
/// (an error naming the file when that translation unit has no CUDA headers).
#define CUARCH_COMPILE_TIME_OBSERVATION()                               \
  ([]() -> ::cuarch::expected<::cuarch::observation, ::cuarch::error> { \
    using namespace ::cuarch::detail;                                   \
    return ::cuarch::compile_time_observation(CUDA_VERSION, __FILE__);  \
  }())
