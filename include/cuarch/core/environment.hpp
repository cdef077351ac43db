// environment: the environment variables cuarch reads, captured once. This file is the only place
// that calls getenv: the front door (front_door/resolve_here.hpp) takes one snapshot and hands it
// down to the request, detection and every source, so one resolution sees one environment, tests
// inject any environment without setenv (which is not thread-safe), Python builds the snapshot
// from os.environ while it holds the GIL, and the report shows exactly what was read.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"

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

/// A set of environment variables. Unset and set-but-empty are different (CUDA_VISIBLE_DEVICES="" hides every GPU).
class environment {
 public:
  environment() = default;
  environment(std::initializer_list<std::pair<const std::string, std::string>> vars) : vars_(vars) {}

  /// The current process's values of detection_variables. Reads getenv: do not call while another
  /// thread may call setenv (Python builds its snapshot from os.environ instead).
  static environment from_process() {
    environment env;
    for (const auto name : detection_variables) {
      const std::string key(name);
      if (const char* v = process_value(key.c_str())) env.vars_[key] = v;
    }
    return env;
  }

  /// One variable of the current process, without a snapshot (the warm resolve path reads one
  /// override variable and must not build a map per call). The one getenv in cuarch.
  static const char* process_value(const char* name) noexcept { return std::getenv(name); }

  /// The value's characters, or nullptr when unset (valid while this environment is unchanged).
  const char* find(std::string_view name) const {
    const auto it = vars_.find(std::string(name));
    return it == vars_.end() ? nullptr : it->second.c_str();
  }
  std::optional<std::string> get(std::string_view name) const {
    const auto it = vars_.find(std::string(name));
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }
  /// The value, or nullopt when unset or empty (for path variables, where empty means nothing).
  std::optional<std::string> get_nonempty(std::string_view name) const {
    auto v = get(name);
    if (v && v->empty()) return std::nullopt;
    return v;
  }
  environment& set(std::string name, std::string value) {
    vars_[std::move(name)] = std::move(value);
    return *this;
  }
  environment& unset(const std::string& name) {
    vars_.erase(name);
    return *this;
  }
  const std::map<std::string, std::string>& vars() const noexcept { return vars_; }

 private:
  std::map<std::string, std::string> vars_;
};

CUARCH_END_NAMESPACE
