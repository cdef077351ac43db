// Plain values that connect detection (the edge) to resolution (the pure core): what was observed,
// where, and how it was found. Detection produces them; resolution and reports only read them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "source_kind.hpp"

CUARCH_BEGIN_NAMESPACE

/// How a candidate was found. Determines precedence and is reported with every observation.
enum class discovery : unsigned char {
  explicit_argument,     // the caller passed the path or value
  environment,           // CUARCH_*, CUDA_HOME, CUDA_PATH, ...
  path_search,           // found on PATH
  already_loaded,        // a library already mapped into this process
  loader_search,         // dlopen by soname (LD_LIBRARY_PATH, ld.so.cache, RUNPATH)
  default_location,      // /usr/local/cuda and similar
  python_site_packages,  // pip nvidia-* wheels
  linked,                // the library this program was linked against
  compile_time,          // the including translation unit's CUDA_VERSION
};

inline constexpr std::string_view discovery_names[] = {"explicit argument",    "environment",   "PATH",
                                                       "already loaded",       "loader search", "default location",
                                                       "Python site-packages", "linked",        "compile time"};
constexpr std::string_view to_string(discovery d) noexcept { return detail::name_of(discovery_names, d); }

/// How a component was found, in the words reports use ("the default install location").
/// (path_search: detection::how_found says whether it is the first on PATH.)
inline constexpr std::string_view discovery_descriptions[] = {
    "given explicitly",
    "named by the environment",
    "on PATH",
    "already loaded in this process: what its code calls",
    "what the dynamic loader finds (LD_LIBRARY_PATH, ld.so.cache)",
    "the default install location",
    "a pip wheel in the Python environment",
    "linked into this program",
    "compile time"};
constexpr std::string_view describe_how(discovery how) noexcept { return detail::name_of(discovery_descriptions, how); }

/// One version, with its provenance: what said it, where, how that place was found, and the raw
/// words it used ("13.0" from nvrtcVersion, "Cuda compilation tools, release 12.8, V12.8.93").
struct observation {
  source_kind source = source_kind::none;
  cuda_version version{};
  std::string location;  // absolute path of the library / executable / file, or the variable name
  discovery how = discovery::explicit_argument;
  std::string raw;
};

/// The compiler that will build the code: NVRTC for JIT, nvcc for offline builds. Resolution
/// validates every target against this and nothing else.
struct compiler_info {
  source_kind kind = source_kind::nvrtc;  // nvrtc or nvcc (knowledge_table for a bare version)
  cuda_version version{};
  std::string location;  // realpath of the library / executable; empty for a bare version
  /// nvrtcGetSupportedArchs as sm numbers (75, 90, 120), when the compiler could be asked.
  /// It lists baseline archs only; `a`/`f` availability still comes from the table.
  std::optional<std::vector<int>> supported_sm_numbers;
  /// The GNU build-id of the library / executable (lowercase hex): tells two builds of one release
  /// apart (wheels 12.4.99 and 12.4.127 are both libnvrtc.so.12 answering 12.4). Empty when it has
  /// none or was not read (a bare version). Part of jit_cache_key (resolve/outputs.hpp).
  std::string build_id{};
};

/// One visible device.
struct device_info {
  int ordinal = 0;
  compute_capability cc{};
  std::string name;  // "NVIDIA H200"; empty for devices given explicitly
  source_kind source = source_kind::device_list;
};

CUARCH_END_NAMESPACE
