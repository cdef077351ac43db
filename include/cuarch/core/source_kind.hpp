// source_kind: where a fact came from. Every version and every error names one.
#pragma once

#include <string_view>

#include "config.hpp"
#include "detail/name_map.hpp"

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

/// The names of the sources, in enumerator order.
inline constexpr std::string_view source_kind_names[] = {"none",
                                                         "input",
                                                         "cuarch's table",
                                                         "NVRTC",
                                                         "CUDA runtime",
                                                         "driver",
                                                         "nvcc",
                                                         "ptxas",
                                                         "toolkit files",
                                                         "pip wheel",
                                                         "environment",
                                                         "compile-time CUDA_VERSION",
                                                         "given device list"};
inline constexpr auto all_source_kinds = detail::enumerators<source_kind>(source_kind_names);

constexpr std::string_view to_string(source_kind e) noexcept { return detail::name_of(source_kind_names, e); }

CUARCH_END_NAMESPACE
