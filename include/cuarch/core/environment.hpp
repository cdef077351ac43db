// environment: the variables cuarch reads, captured once (the only getenv and the only read of
// `environ` are here). The front door hands one snapshot to the request, detection and every source:
// one resolution sees one environment, tests need no setenv (not thread-safe), Python builds it from
// os.environ, the report shows it. The snapshot also keeps the rest of the process environment, for
// the programs cuarch runs (nvcc --version): they get it from the snapshot, never from the live
// `environ`, which another thread's setenv may free under them (docs/reliability.md).
#pragma once

#include <cstdlib>
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"

extern "C" char** environ;  // POSIX: the process environment (read only by environment::from_process)

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

  /// The current process's values of detection_variables, and the rest of its environment for the
  /// programs cuarch runs. Reads `environ`: do not call while another thread may call setenv
  /// (Python builds its snapshot from os.environ, under the GIL, instead).
  static environment from_process() {
    environment env;
    for (const std::string& entry : process_entries()) {
      const std::size_t eq = entry.find('=');
      if (is_detection_variable(std::string_view(entry).substr(0, eq)))
        env.set(entry.substr(0, eq), entry.substr(eq + 1));
      else env.inherit(entry);
    }
    return env;
  }

  /// Every NAME=VALUE entry of the current process's environment (entries without '=' skipped:
  /// execve would pass them, but no shell or getenv can read them). Same caveat as from_process.
  static std::vector<std::string> process_entries() {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e)
      if (std::string_view(*e).find('=') != std::string_view::npos) out.emplace_back(*e);
    return out;
  }

  static bool is_detection_variable(std::string_view name) noexcept {
    return std::find(std::begin(detection_variables), std::end(detection_variables), name) !=
           std::end(detection_variables);
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
    if (it != vars_.end() && it->first == name)
      vars_[static_cast<std::size_t>(it - vars_.begin())].second = std::move(value);
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

  /// A variable cuarch does not read, kept only for the programs it runs ("NAME=VALUE"). Not found
  /// by find() and not in vars(), so reports never show it (it may hold a secret).
  environment& inherit(std::string entry) {
    inherited_.push_back(std::move(entry));
    return *this;
  }
  const std::vector<std::string>& inherited() const noexcept { return inherited_; }

  /// The environment of a program cuarch runs: vars(), then every inherited entry whose name is
  /// neither in vars() nor a detection variable (one the snapshot lacks is unset for the resolution,
  /// so for its programs too). A hand-built environment, with nothing inherited, gives its programs
  /// exactly its variables.
  std::vector<std::string> program_environment() const {
    std::vector<std::string> out;
    out.reserve(vars_.size() + inherited_.size());
    for (const auto& [k, v] : vars_) out.push_back(k + "=" + v);
    for (const std::string& entry : inherited_) {
      const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
      if (!is_detection_variable(name) && !find(name)) out.push_back(entry);
    }
    return out;
  }

 private:
  std::vector<variable>::const_iterator at(std::string_view name) const {
    return std::lower_bound(vars_.begin(), vars_.end(), name,
                            [](const variable& v, std::string_view n) { return v.first < n; });
  }
  std::vector<variable> vars_;
  std::vector<std::string> inherited_;  // in the process's order
};

CUARCH_END_NAMESPACE
