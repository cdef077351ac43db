// The formats a resolved target set is written in (outputs.hpp writes each), by the names users
// give them: `cuarch resolve --format torch`, JSON, Python.
#pragma once

#include <optional>
#include <string_view>

#include "../core/config.hpp"
#include "../core/detail/name_map.hpp"

CUARCH_BEGIN_NAMESPACE

enum class output_format : unsigned char {
  nvcc,   // -gencode flags on one line (nvcc_flags)
  nvrtc,  // the options of each NVRTC compile, one compile per line (nvrtc_compiles)
  cmake,  // CUDA_ARCHITECTURES (cmake_architectures)
  torch,  // TORCH_CUDA_ARCH_LIST (torch_cuda_arch_list)
  json,   // the whole resolution (to_json)
};
inline constexpr output_format all_output_formats[] = {output_format::nvcc, output_format::nvrtc, output_format::cmake,
                                                       output_format::torch, output_format::json};

constexpr std::string_view to_string(output_format f) noexcept {
  switch (f) {
    case output_format::nvrtc: return "nvrtc";
    case output_format::cmake: return "cmake";
    case output_format::torch: return "torch";
    case output_format::json: return "json";
    case output_format::nvcc: break;
  }
  return "nvcc";
}
/// The format spelled `name` (as to_string writes it); nullopt for any other text.
constexpr std::optional<output_format> parse_output_format(std::string_view name) noexcept {
  return detail::find_by_name(all_output_formats, name);
}

CUARCH_END_NAMESPACE
