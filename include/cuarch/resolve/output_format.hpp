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
inline constexpr std::string_view output_format_names[] = {"nvcc", "nvrtc", "cmake", "torch", "json"};
inline constexpr auto all_output_formats = detail::enumerators<output_format>(output_format_names);

constexpr std::string_view to_string(output_format e) noexcept { return detail::name_of(output_format_names, e); }
/// The format spelled `name` (as to_string writes it); nullopt for any other text.
constexpr std::optional<output_format> parse_output_format(std::string_view name) noexcept {
  return detail::find_by_name(all_output_formats, name);
}

CUARCH_END_NAMESPACE
