// environment: the environment variables detection reads, captured once. Detection reads this
// snapshot, never getenv directly, so a run is deterministic, tests can inject any environment
// without setenv (which is not thread-safe), and the report can show exactly what was read.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "posix/posix.hpp"  // detail::split_path_list, the one PATH-list splitter

CUARCH_BEGIN_NAMESPACE

/// The variables detection consults (documented per component in detect.hpp).
inline constexpr std::string_view detection_variables[] = {
    "CUARCH_NVRTC", "CUARCH_NVCC", "CUARCH_CUDART",        "CUARCH_LIBCUDA",  "CUARCH_PTXAS", "CUDA_HOME",    "CUDA_PATH",
    "CUDACXX",      "PATH",        "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "VIRTUAL_ENV",  "CONDA_PREFIX", "TRITON_PTXAS_PATH",
};

/// A set of environment variables. Unset and set-but-empty are different (CUDA_VISIBLE_DEVICES="" hides every GPU).
class environment {
 public:
  environment() = default;
  environment(std::initializer_list<std::pair<const std::string, std::string>> vars) : vars_(vars) {}

  /// The current process's values of detection_variables. Reads getenv: do not call while another
  /// thread may call setenv.
  static environment from_process() {
    environment env;
    for (const auto name : detection_variables) {
      const std::string key(name);
      if (const char* v = std::getenv(key.c_str())) env.vars_[key] = v;
    }
    return env;
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
