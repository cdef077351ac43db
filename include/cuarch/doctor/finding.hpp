// finding: one disagreement between CUDA sources (or one broken source) and what it means.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/detail/name_map.hpp"

CUARCH_BEGIN_NAMESPACE

enum class severity : unsigned char { info, warning, problem };

inline constexpr std::string_view severity_names[] = {"info", "warning", "problem"};
constexpr std::string_view to_string(severity s) noexcept { return detail::name_of(severity_names, s); }

/// What a finding is about. Its name (to_string) is the stable identifier in the text and JSON
/// reports; scripts and tests match on it. Listed once: each name is its enumerator's spelling.
#define CUARCH_FINDING_KINDS(X)                                                                          \
  /* a role has no source */                                                                             \
  X(no_nvrtc)               /* no JIT compiler */                                                        \
  X(no_nvcc)                /* no offline compiler */                                                    \
  X(no_driver)              /* no libcuda.so.1 */                                                        \
  X(no_runtime)             /* no libcudart */                                                           \
  X(explicit_source_failed) /* a source the user named (option or CUARCH_*) does not work */             \
  /* the compile path */                                                                                 \
  X(nvcc_vs_nvrtc)              /* offline and JIT compilers are different releases */                   \
  X(cuda_home_vs_cuda_path)     /* $CUDA_HOME and $CUDA_PATH name different toolkits */                  \
  X(cuda_home_vs_path)          /* $CUDA_HOME's toolkit is not the first nvcc on PATH */                 \
  X(override_vs_cuda_home)      /* a compiler named explicitly while $CUDA_HOME holds another release */ \
  X(compiler_newer_than_driver) /* a governing compiler of a newer major release than the driver */      \
  X(invalid_environment)        /* a variable names nothing usable */                                    \
  X(invalid_toolkit_root)       /* a toolkit root given as an option names nothing usable */             \
  X(invalid_python_environment) /* a Python prefix that cannot be read */                                \
  X(nvcc_vs_headers)            /* nvcc and its toolkit's cuda.h are different releases */               \
  X(nvcc_vs_toolkit_files)      /* nvcc and its toolkit's version files disagree */                      \
  X(nvrtc_vs_toolkit_files)     /* NVRTC and its toolkit's (or wheel's) files disagree */                \
  X(runtime_vs_toolkit_files)   /* the runtime and its toolkit's files disagree */                       \
  /* the load path */                                                                                    \
  X(runtime_vs_driver)       /* the runtime is newer than the driver */                                  \
  X(ptx_too_new_for_driver)  /* the compiler's PTX is newer than the driver can JIT */                   \
  X(runtime_vs_nvrtc)        /* a framework's runtime and the JIT compiler are different releases */     \
  X(compile_time_vs_nvrtc)   /* the program's compile-time CUDA_VERSION vs the NVRTC it loads */         \
  X(compile_time_vs_runtime) /* the program's compile-time CUDA_VERSION vs the runtime (major) */        \
  /* devices */                                                                                          \
  X(given_devices_vs_driver)    /* the given device list is not what the driver shows */                 \
  X(mixed_devices)              /* devices of several compute capabilities */                            \
  X(device_not_buildable)       /* a governing compiler cannot build machine code for a device */        \
  X(driver_cannot_drive_device) /* the driver is older than the first release supporting a device */     \
  /* the other candidates */                                                                             \
  X(candidate_failed)        /* a candidate ranked before the governing one failed */                    \
  X(candidate_failed_unused) /* a candidate ranked after it failed */                                    \
  X(other_nvcc)              /* another nvcc of another release was found */                             \
  X(other_nvrtc)                                                                                         \
  X(other_driver)                                                                                        \
  X(other_runtime)                                                                                       \
  X(table_older_than_compiler) /* the compiler is newer than cuarch's table */
#define CUARCH_FINDING_KIND_ENUMERATOR(name) name,
#define CUARCH_FINDING_KIND_NAME(name) #name,
enum class finding_kind : unsigned char { CUARCH_FINDING_KINDS(CUARCH_FINDING_KIND_ENUMERATOR) };
inline constexpr std::string_view finding_kind_names[] = {CUARCH_FINDING_KINDS(CUARCH_FINDING_KIND_NAME)};
#undef CUARCH_FINDING_KIND_NAME
#undef CUARCH_FINDING_KIND_ENUMERATOR
#undef CUARCH_FINDING_KINDS
inline constexpr auto all_finding_kinds = detail::enumerators<finding_kind>(finding_kind_names);

constexpr std::string_view to_string(finding_kind e) noexcept { return detail::name_of(finding_kind_names, e); }

constexpr std::optional<finding_kind> parse_finding_kind(std::string_view name) noexcept {
  return detail::find_by_name(all_finding_kinds, name);
}

/// One disagreement (or one broken source) and what it means.
struct finding {
  finding_kind kind{};
  severity level = severity::info;
  std::string what;                     // the facts, with where each came from
  std::string meaning;                  // what it means for the user, and what to do
  std::vector<std::size_t> candidates;  // detection::candidates involved
};

namespace detail {

/// "12.4": a version's release, as the analysis and the reports spell it.
inline std::string release_text(const cuda_version& v) { return to_text(v.release()).str(); }

}  // namespace detail
CUARCH_END_NAMESPACE
