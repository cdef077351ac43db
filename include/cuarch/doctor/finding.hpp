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

inline constexpr finding_kind all_finding_kinds[] = {
    finding_kind::no_nvrtc,
    finding_kind::no_nvcc,
    finding_kind::no_driver,
    finding_kind::no_runtime,
    finding_kind::explicit_source_failed,
    finding_kind::nvcc_vs_nvrtc,
    finding_kind::cuda_home_vs_cuda_path,
    finding_kind::cuda_home_vs_path,
    finding_kind::override_vs_cuda_home,
    finding_kind::compiler_newer_than_driver,
    finding_kind::invalid_environment,
    finding_kind::invalid_toolkit_root,
    finding_kind::invalid_python_environment,
    finding_kind::nvcc_vs_headers,
    finding_kind::nvcc_vs_toolkit_files,
    finding_kind::nvrtc_vs_toolkit_files,
    finding_kind::runtime_vs_toolkit_files,
    finding_kind::runtime_vs_driver,
    finding_kind::ptx_too_new_for_driver,
    finding_kind::runtime_vs_nvrtc,
    finding_kind::compile_time_vs_nvrtc,
    finding_kind::compile_time_vs_runtime,
    finding_kind::given_devices_vs_driver,
    finding_kind::mixed_devices,
    finding_kind::device_not_buildable,
    finding_kind::candidate_failed,
    finding_kind::candidate_failed_unused,
    finding_kind::other_nvcc,
    finding_kind::other_nvrtc,
    finding_kind::other_driver,
    finding_kind::other_runtime,
    finding_kind::table_older_than_compiler,
};

/// The stable name of a kind: its enumerator's spelling ("nvcc_vs_nvrtc").
constexpr std::string_view to_string(finding_kind k) noexcept {
  switch (k) {
    case finding_kind::no_nvrtc: return "no_nvrtc";
    case finding_kind::no_nvcc: return "no_nvcc";
    case finding_kind::no_driver: return "no_driver";
    case finding_kind::no_runtime: return "no_runtime";
    case finding_kind::explicit_source_failed: return "explicit_source_failed";
    case finding_kind::nvcc_vs_nvrtc: return "nvcc_vs_nvrtc";
    case finding_kind::cuda_home_vs_cuda_path: return "cuda_home_vs_cuda_path";
    case finding_kind::override_vs_cuda_home: return "override_vs_cuda_home";
    case finding_kind::compiler_newer_than_driver: return "compiler_newer_than_driver";
    case finding_kind::cuda_home_vs_path: return "cuda_home_vs_path";
    case finding_kind::invalid_environment: return "invalid_environment";
    case finding_kind::invalid_toolkit_root: return "invalid_toolkit_root";
    case finding_kind::invalid_python_environment: return "invalid_python_environment";
    case finding_kind::nvcc_vs_headers: return "nvcc_vs_headers";
    case finding_kind::nvcc_vs_toolkit_files: return "nvcc_vs_toolkit_files";
    case finding_kind::nvrtc_vs_toolkit_files: return "nvrtc_vs_toolkit_files";
    case finding_kind::runtime_vs_toolkit_files: return "runtime_vs_toolkit_files";
    case finding_kind::runtime_vs_driver: return "runtime_vs_driver";
    case finding_kind::ptx_too_new_for_driver: return "ptx_too_new_for_driver";
    case finding_kind::runtime_vs_nvrtc: return "runtime_vs_nvrtc";
    case finding_kind::compile_time_vs_nvrtc: return "compile_time_vs_nvrtc";
    case finding_kind::compile_time_vs_runtime: return "compile_time_vs_runtime";
    case finding_kind::given_devices_vs_driver: return "given_devices_vs_driver";
    case finding_kind::mixed_devices: return "mixed_devices";
    case finding_kind::device_not_buildable: return "device_not_buildable";
    case finding_kind::candidate_failed: return "candidate_failed";
    case finding_kind::candidate_failed_unused: return "candidate_failed_unused";
    case finding_kind::other_nvcc: return "other_nvcc";
    case finding_kind::other_nvrtc: return "other_nvrtc";
    case finding_kind::other_driver: return "other_driver";
    case finding_kind::other_runtime: return "other_runtime";
    case finding_kind::table_older_than_compiler: return "table_older_than_compiler";
  }
  return "unknown";
}

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
