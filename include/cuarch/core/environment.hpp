// environment: the variables cuarch reads, captured once (the only getenv is here). The front door
// hands one snapshot to the request, detection and every source: one resolution sees one environment,
// tests need no setenv (not thread-safe), Python builds it from os.environ, the report shows it.
#pragma once

#include <cstdlib>
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"

CUARCH_BEGIN_NAMESPACE

/// Every variable cuarch reads: the request's overrides (resolve/env_request.hpp), detection's
/// (documented per component in detect/plan.hpp) and the driver's visibility rules.
inline constexpr std::string_view detection_variables[] = {
    "CUARCH_ARCHS",      "TORCH_CUDA_ARCH_LIST",
    "CUDAARCHS",         "CUARCH_NVRTC",
    "CUARCH_NVCC",       "CUARCH_CUDART",
    "CUARCH_LIBCUDA",    "CUARCH_PTXAS",
    "CUDA_HOME",         "CUDA_PATH",
    "CUDACXX",           "PATH",
    "LD_LIBRARY_PATH",   "VIRTUAL_ENV",
    "CONDA_PREFIX",      "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER", "TRITON_PTXAS_PATH",
};

/// A set of environment variables; unset and empty differ (CUDA_VISIBLE_DEVICES="" hides every GPU).
/// A short sorted list, not a <map>, which every includer of the pure layers would pay for.
class environment {
 public:
  using variable = std::pair<std::string, std::string>;
  environment() = default;
  environment(std::initializer_list<variable> vars) {
    for (const auto& v : vars) set(v.first, v.second);
  }

  /// The current process's values of detection_variables. Reads getenv: do not call while another
  /// thread may call setenv (Python builds its snapshot from os.environ instead).
  static environment from_process() {
    environment env;
    for (const auto name : detection_variables) {
      const std::string key(name);
      if (const char* v = process_value(key.c_str())) env.set(key, v);
    }
    return env;
  }

  /// One variable of the current process, without a snapshot (the warm resolve path reads one
  /// override variable and must not build a list per call). The one getenv in cuarch.
  static const char* process_value(const char* name) noexcept { return std::getenv(name); }

  /// The value's characters, or nullptr when unset (valid while this environment is unchanged).
  const char* find(std::string_view name) const {
    const auto it = at(name);
    return it != vars_.end() && it->first == name ? it->second.c_str() : nullptr;
  }
  std::optional<std::string> get(std::string_view name) const {
    if (const char* v = find(name)) return std::string(v);
    return std::nullopt;
  }
  /// The value, or nullopt when unset or empty (for path variables, where empty means nothing).
  std::optional<std::string> get_nonempty(std::string_view name) const {
    if (const char* v = find(name); v && *v) return std::string(v);
    return std::nullopt;
  }
  environment& set(std::string name, std::string value) {
    const auto it = at(name);
    if (it != vars_.end() && it->first == name) vars_[static_cast<std::size_t>(it - vars_.begin())].second = std::move(value);
    else vars_.insert(it, variable(std::move(name), std::move(value)));
    return *this;
  }
  environment& unset(const std::string& name) {
    const auto it = at(name);
    if (it != vars_.end() && it->first == name) vars_.erase(it);
    return *this;
  }
  /// Every variable, sorted by name.
  const std::vector<variable>& vars() const noexcept { return vars_; }

 private:
  std::vector<variable>::const_iterator at(std::string_view name) const {
    return std::lower_bound(vars_.begin(), vars_.end(), name, [](const variable& v, std::string_view n) { return v.first < n; });
  }
  std::vector<variable> vars_;
};

CUARCH_END_NAMESPACE
