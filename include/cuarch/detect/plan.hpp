// The discovery plan: where each component is looked for, in order. ONE table (discovery_plan)
// lists the tiers; walk.hpp goes down it for each role and asks what each tier yields. The order,
// per tier and component, and why each ranks where it does: docs/design.md, "Discovery order".
// "Sticky": a failure there is the role's answer, no fallback. The driver never comes from a
// toolkit root (a toolkit's lib64/stubs/libcuda.so fails every call with CUDA_ERROR_STUB_LIBRARY).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "../sources/driver_source.hpp"
#include "../sources/nvrtc_source.hpp"
#include "../sources/runtime_source.hpp"
#include "result.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// A rung of the discovery order. Toolkit roots and Python environments carry the tier they were
/// met in, so a tier yields exactly its own roots and environments.
enum class tier : unsigned char {
  explicit_argument,   // detect_options::<component>_path
  variable,            // CUARCH_<COMPONENT>, CUDACXX, TRITON_PTXAS_PATH
  already_loaded,      // mapped by the application before cuarch loaded anything
  beside_nvcc,         // the ptxas next to each nvcc found: what that nvcc runs
  explicit_root,       // detect_options::cuda_home
  explicit_python,     // detect_options::python_prefixes
  environment_root,    // $CUDA_HOME, then $CUDA_PATH
  search,              // the dynamic loader (libraries) or $PATH (programs)
  environment_python,  // $VIRTUAL_ENV, $CONDA_PREFIX
  conda_root,          // $CONDA_PREFIX as a toolkit root
  default_root,        // /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda
  around_candidate,    // not searched: the toolkit around a component found (read for its files only)
};

/// The components detection looks for, as bits of a plan row.
enum component_bit : unsigned {
  nvrtc_bit = 1u << 0,
  runtime_bit = 1u << 1,
  driver_bit = 1u << 2,
  nvcc_bit = 1u << 3,
  ptxas_bit = 1u << 4,
};
inline constexpr unsigned libraries = nvrtc_bit | runtime_bit | driver_bit;
inline constexpr unsigned every_component = libraries | nvcc_bit | ptxas_bit;
inline constexpr unsigned toolkit_parts = nvrtc_bit | runtime_bit | nvcc_bit | ptxas_bit;  // in a toolkit or wheel

struct plan_row {
  tier where;
  unsigned components;  // component_bit set: the components this tier can yield
};

/// THE discovery order.
inline constexpr plan_row discovery_plan[] = {
    {tier::explicit_argument, every_component}, {tier::variable, every_component},
    {tier::already_loaded, libraries},          {tier::beside_nvcc, ptxas_bit},
    {tier::explicit_root, toolkit_parts},       {tier::explicit_python, toolkit_parts},
    {tier::environment_root, toolkit_parts},    {tier::search, every_component},
    {tier::environment_python, toolkit_parts},  {tier::conda_root, toolkit_parts},
    {tier::default_root, toolkit_parts},
};

/// A variable that names a component's file.
struct component_variable {
  std::string_view name;
  bool sticky;
};

/// What the plan needs to know about one component.
struct component_info {
  source_kind kind;
  unsigned bit;
  std::string_view role_words;   // in selection::why and errors: "libnvrtc", "nvcc"
  std::string_view file_prefix;  // libraries: "libnvrtc.so."; programs: the program's name
  bool program;
  component_variable variables[2];             // empty names: none
  std::vector<std::string> (*loader_names)();  // asked of the loader in the search tier, newest first; programs: nullptr
  std::string detect_options::*explicit_path;  // the explicit argument
  std::string_view explicit_words;             // origin of the explicit argument: "explicit NVRTC library"
  std::string_view option_hint;                // how the caller names the component (for "not found" errors)
};

// clang-format off
inline constexpr component_info nvrtc_component{
    source_kind::nvrtc, nvrtc_bit, "libnvrtc", "libnvrtc.so.", false, {{"CUARCH_NVRTC", true}}, nvrtc_sonames,
    &detect_options::nvrtc_path, "explicit NVRTC library", "detect_options::nvrtc_path, CUARCH_NVRTC, or the doctor's --nvrtc"};
inline constexpr component_info runtime_component{
    source_kind::cuda_runtime, runtime_bit, "libcudart", "libcudart.so.", false, {{"CUARCH_CUDART", true}}, cudart_sonames,
    &detect_options::cudart_path, "explicit CUDA runtime library", "detect_options::cudart_path, CUARCH_CUDART, or --cudart"};
inline constexpr component_info driver_component{
    source_kind::driver, driver_bit, "libcuda.so.1", "libcuda.so.", false, {{"CUARCH_LIBCUDA", true}}, driver_sonames,
    &detect_options::libcuda_path, "explicit driver library", "detect_options::libcuda_path, CUARCH_LIBCUDA, or --libcuda"};
inline constexpr component_info nvcc_component{
    source_kind::nvcc, nvcc_bit, "nvcc", "nvcc", true, {{"CUARCH_NVCC", true}, {"CUDACXX", true}}, nullptr,
    &detect_options::nvcc_path, "explicit nvcc", "detect_options::nvcc_path, CUARCH_NVCC, CUDACXX, or --nvcc"};
inline constexpr component_info ptxas_component{
    source_kind::ptxas, ptxas_bit, "ptxas", "ptxas", true, {{"CUARCH_PTXAS", true}, {"TRITON_PTXAS_PATH", false}}, nullptr,
    &detect_options::ptxas_path, "explicit ptxas", "detect_options::ptxas_path, CUARCH_PTXAS, or --ptxas"};
// clang-format on

/// A place to look, before looking: what one tier yields for one component.
struct search_spec {
  search_spec(discovery h, std::string o, std::string p) : how(h), origin(std::move(o)), path(std::move(p)) {}

  discovery how = discovery::explicit_argument;
  std::string origin;
  std::string path;  // a file; or empty with soname set (loader search)
  std::string soname;
  bool sticky = false;
  library_path_policy policy = library_path_policy::absolute_only;  // allow_relative: an explicit argument
  std::optional<error> problem;  // known to be wrong before asking (e.g. a relative variable)
};

}  // namespace detail

CUARCH_END_NAMESPACE
