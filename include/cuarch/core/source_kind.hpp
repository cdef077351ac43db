// source_kind: where a fact came from. Every version and every error names one.
#pragma once

#include <optional>
#include <string_view>

#include "config.hpp"
#include "detail/chars.hpp"

CUARCH_BEGIN_NAMESPACE

enum class source_kind : unsigned char {
  none,             // not applicable (e.g. a pure query)
  user_input,       // a string the caller passed (arch list, option)
  knowledge_table,  // cuarch's built-in table (arch_table.hpp)
  nvrtc,            // nvrtcVersion / nvrtcGetSupportedArchs of a loaded libnvrtc
  cuda_runtime,     // cudaRuntimeGetVersion of a loaded libcudart
  driver,           // cuDriverGetVersion / device queries of libcuda.so.1
  nvcc,             // `nvcc --version`
  ptxas,            // `ptxas --version`
  toolkit_files,    // version.json, version.txt, cuda.h's CUDA_VERSION
  python_wheel,     // pip nvidia-* wheel layout / dist-info names
  environment,      // an environment variable
  compile_time,     // CUDA_VERSION of the including translation unit
  device_list,      // devices given explicitly by the caller
};

inline constexpr source_kind all_source_kinds[] = {source_kind::none,         source_kind::user_input,   source_kind::knowledge_table,
                                                   source_kind::nvrtc,        source_kind::cuda_runtime, source_kind::driver,
                                                   source_kind::nvcc,         source_kind::ptxas,        source_kind::toolkit_files,
                                                   source_kind::python_wheel, source_kind::environment,  source_kind::compile_time,
                                                   source_kind::device_list};

constexpr std::string_view to_string(source_kind s) noexcept {
  switch (s) {
    case source_kind::none: return "none";
    case source_kind::user_input: return "input";
    case source_kind::knowledge_table: return "cuarch's table";
    case source_kind::nvrtc: return "NVRTC";
    case source_kind::cuda_runtime: return "CUDA runtime";
    case source_kind::driver: return "driver";
    case source_kind::nvcc: return "nvcc";
    case source_kind::ptxas: return "ptxas";
    case source_kind::toolkit_files: return "toolkit files";
    case source_kind::python_wheel: return "pip wheel";
    case source_kind::environment: return "environment";
    case source_kind::compile_time: return "compile-time CUDA_VERSION";
    case source_kind::device_list: return "given device list";
  }
  return "unknown";
}

/// The kind named as to_string writes it, in any case ("nvrtc", "NVRTC", "pip wheel"); nullopt otherwise.
constexpr std::optional<source_kind> parse_source_kind(std::string_view name) noexcept {
  for (const source_kind kind : all_source_kinds)
    if (detail::iequals(to_string(kind), name)) return kind;
  return std::nullopt;
}

CUARCH_END_NAMESPACE
