// finding: one disagreement between CUDA sources (or one broken source) and what it means; its
// kind (an enum with one name map) and severity. doctor/analysis.hpp produces findings;
// doctor/render_text.hpp and doctor/render_json.hpp show them.
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

constexpr std::string_view to_string(severity s) noexcept {
  switch (s) {
    case severity::info: return "info";
    case severity::warning: return "warning";
    case severity::problem: return "problem";
  }
  return "unknown";
}

/// What a finding is about. Its name (to_string) is the stable identifier in the text and JSON
/// reports; scripts and tests match on it.
enum class finding_kind : unsigned char {
  // a role has no source
  no_nvrtc,                // no JIT compiler
  no_nvcc,                 // no offline compiler
  no_driver,               // no libcuda.so.1
  no_runtime,              // no libcudart
  explicit_source_failed,  // a source the user named (option or CUARCH_*) does not work
  // the compile path
  nvcc_vs_nvrtc,               // offline and JIT compilers are different releases
  cuda_home_vs_cuda_path,      // $CUDA_HOME and $CUDA_PATH name different toolkits
  cuda_home_vs_path,           // $CUDA_HOME's toolkit is not the first nvcc on PATH
  override_vs_cuda_home,       // a compiler named explicitly while $CUDA_HOME holds another release
  compiler_newer_than_driver,  // a governing compiler of a newer major release than the driver
  invalid_environment,         // a variable names nothing usable
  invalid_toolkit_root,        // a toolkit root given as an option names nothing usable
  invalid_python_environment,  // a Python prefix that cannot be read
  nvcc_vs_headers,             // nvcc and its toolkit's cuda.h are different releases
  nvcc_vs_toolkit_files,       // nvcc and its toolkit's version files disagree
  nvrtc_vs_toolkit_files,      // NVRTC and its toolkit's (or wheel's) files disagree
  runtime_vs_toolkit_files,    // the runtime and its toolkit's files disagree
  // the load path
  runtime_vs_driver,        // the runtime is newer than the driver
  ptx_too_new_for_driver,   // the compiler's PTX is newer than the driver can JIT
  runtime_vs_nvrtc,         // a framework's runtime and the JIT compiler are different releases
  compile_time_vs_nvrtc,    // the program's compile-time CUDA_VERSION vs the NVRTC it loads
  compile_time_vs_runtime,  // the program's compile-time CUDA_VERSION vs the runtime (major)
  // devices
  given_devices_vs_driver,  // the given device list is not what the driver shows
  mixed_devices,            // devices of several compute capabilities
  device_not_buildable,     // a governing compiler cannot build machine code for a device
  // the other candidates
  candidate_failed,         // a candidate ranked before the governing one failed
  candidate_failed_unused,  // a candidate ranked after it failed
  other_nvcc,               // another nvcc of another release was found
  other_nvrtc,
  other_driver,
  other_runtime,
  table_older_than_compiler,  // the compiler is newer than cuarch's table
};

/// The stable names of the kinds, in enumerator order: each is its enumerator's spelling.
inline constexpr std::string_view finding_kind_names[] = {"no_nvrtc",
                                                          "no_nvcc",
                                                          "no_driver",
                                                          "no_runtime",
                                                          "explicit_source_failed",
                                                          "nvcc_vs_nvrtc",
                                                          "cuda_home_vs_cuda_path",
                                                          "cuda_home_vs_path",
                                                          "override_vs_cuda_home",
                                                          "compiler_newer_than_driver",
                                                          "invalid_environment",
                                                          "invalid_toolkit_root",
                                                          "invalid_python_environment",
                                                          "nvcc_vs_headers",
                                                          "nvcc_vs_toolkit_files",
                                                          "nvrtc_vs_toolkit_files",
                                                          "runtime_vs_toolkit_files",
                                                          "runtime_vs_driver",
                                                          "ptx_too_new_for_driver",
                                                          "runtime_vs_nvrtc",
                                                          "compile_time_vs_nvrtc",
                                                          "compile_time_vs_runtime",
                                                          "given_devices_vs_driver",
                                                          "mixed_devices",
                                                          "device_not_buildable",
                                                          "candidate_failed",
                                                          "candidate_failed_unused",
                                                          "other_nvcc",
                                                          "other_nvrtc",
                                                          "other_driver",
                                                          "other_runtime",
                                                          "table_older_than_compiler"};
inline constexpr auto all_finding_kinds = detail::enumerators<finding_kind>(finding_kind_names);

/// The stable name of a kind: its enumerator's spelling ("nvcc_vs_nvrtc").
constexpr std::string_view to_string(finding_kind e) noexcept { return detail::name_of(finding_kind_names, e); }

/// The kind whose name is `name` exactly; nullopt otherwise.
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

// Version spellings shared by the analysis and the renderers.
inline std::string version_text(const cuda_version& v) { return std::string(to_text(v).view()); }
inline std::string release_text(const cuda_version& v) { return version_text(v.release()); }

}  // namespace detail
CUARCH_END_NAMESPACE
