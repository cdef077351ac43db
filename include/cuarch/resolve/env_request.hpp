// The request: what the caller asks for (an explicit list in any dialect, native, all, all-major),
// and the environment variables that may override it: CUARCH_ARCHS (generic, read unless turned
// off), TORCH_CUDA_ARCH_LIST and CUDAARCHS (only when asked); the first set and not blank wins. Read
// before any device is touched; a malformed value is an error naming the variable (design.md).
#pragma once

#include <optional>
#include <string_view>

#include "../core/config.hpp"
#include "../core/detail/chars.hpp"
#include "../core/detail/name_map.hpp"
#include "../core/environment.hpp"
#include "../core/parse.hpp"
#include "../core/source_kind.hpp"

CUARCH_BEGIN_NAMESPACE

/// Environment variables that may replace the request; combine with |.
enum class env_override : unsigned char {
  none = 0,
  cuarch_archs = 1,          // CUARCH_ARCHS
  torch_cuda_arch_list = 2,  // TORCH_CUDA_ARCH_LIST
  cudaarchs = 4,             // CUDAARCHS
};
constexpr env_override operator|(env_override a, env_override b) noexcept {
  return static_cast<env_override>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
inline constexpr env_override all_env_overrides[] = {env_override::none, env_override::cuarch_archs,
                                                     env_override::torch_cuda_arch_list, env_override::cudaarchs};

/// The short names, indexed by the flag's value: 3 is only ever a combination, so its name is "".
inline constexpr std::string_view env_override_names[] = {"none", "cuarch", "torch", "", "cmake"};

/// The short name of one override: "none", "cuarch", "torch", "cmake" ("" for a combination).
constexpr std::string_view to_string(env_override one) noexcept { return detail::name_of(env_override_names, one); }
/// The override named `name` (as to_string writes it); nullopt for any other text.
constexpr std::optional<env_override> parse_env_override(std::string_view name) noexcept {
  return detail::find_by_name(all_env_overrides, name);
}

/// What is asked for. The default is `native`, overridable by CUARCH_ARCHS.
struct arch_request {
  /// "native", "all", "all-major", or a list in `dialect` ("9.0a;10.0", "sm_90a compute_90").
  /// Not copied: it must outlive the resolve call (the result keeps no view of it).
  std::string_view list = "native";
  arch_dialect dialect = arch_dialect::generic;
  /// Which variables may replace `list`. env_override::none: the list is final.
  env_override overrides = env_override::cuarch_archs;
  /// The environment to read the overrides from (not copied: keep it alive). nullptr: the
  /// process's own, variable by variable (environment::process_value).
  const environment* env = nullptr;
};

/// Where the request that was resolved came from.
struct request_origin {
  source_kind source = source_kind::user_input;  // user_input or environment
  std::string_view variable;                     // the variable's name (a string literal); empty for user input
};

/// The request after environment overrides: the list to parse, its dialect, and its origin.
struct effective_request {
  std::string_view list;
  arch_dialect dialect = arch_dialect::generic;
  request_origin origin;
};

namespace detail {

struct env_variable {
  env_override flag;
  const char* name;
  arch_dialect dialect;
};
inline constexpr env_variable override_variables[] = {
    {env_override::cuarch_archs, "CUARCH_ARCHS", arch_dialect::generic},
    {env_override::torch_cuda_arch_list, "TORCH_CUDA_ARCH_LIST", arch_dialect::torch},
    {env_override::cudaarchs, "CUDAARCHS", arch_dialect::cmake},
};

#if defined(CUARCH_COUNT_REQUEST_READS)
// A test's probe (tests/front_door_test.cpp): the front door reads a request once, whatever it judges.
inline int request_reads = 0;
#endif

}  // namespace detail

/// Applies the environment overrides the request allows (the first set and not blank wins).
inline effective_request read_request(const arch_request& request) {
#if defined(CUARCH_COUNT_REQUEST_READS)
  ++detail::request_reads;
#endif
  for (const auto& v : detail::override_variables) {
    if ((static_cast<unsigned>(request.overrides) & static_cast<unsigned>(v.flag)) == 0) continue;
    const char* value = request.env ? request.env->find(v.name) : environment::process_value(v.name);
    if (!value || detail::trim(value).empty()) continue;
    return effective_request{value, v.dialect, request_origin{source_kind::environment, v.name}};
  }
  return effective_request{request.list, request.dialect, request_origin{}};
}

CUARCH_END_NAMESPACE
