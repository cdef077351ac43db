// The detection options `cuarch doctor` and `cuarch resolve` share, declared and read in one place
// so the two commands cannot drift apart (what --isolated turns off, how --device-cc and --timeout
// are read).
#pragma once

#include <cuarch/core/device_list.hpp>
#include <cuarch/detect.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "flags.hpp"

namespace cuarch_cli {

struct detection_flags {
  CLI::Option* cuda_home = nullptr;
  CLI::Option* nvrtc = nullptr;
  CLI::Option* nvcc = nullptr;
  CLI::Option* cudart = nullptr;
  CLI::Option* libcuda = nullptr;
  CLI::Option* ptxas = nullptr;
  CLI::Option* python_prefix = nullptr;
  CLI::Option* isolated = nullptr;
  CLI::Option* device_cc = nullptr;
  CLI::Option* timeout = nullptr;
};

inline detection_flags add_detection_flags(flag_set& f, const std::string& group, const std::string& devices_group) {
  detection_flags d;
  d.cuda_home = f.value("--cuda-home", "DIR", "a toolkit root to consider first (before $CUDA_HOME)", group);
  d.nvrtc = f.value("--nvrtc", "PATH", "the libnvrtc to use for JIT (as CUARCH_NVRTC)", group);
  d.nvcc = f.value("--nvcc", "PATH", "the nvcc to use for offline builds (as CUARCH_NVCC)", group);
  d.cudart = f.value("--cudart", "PATH", "the libcudart to report (as CUARCH_CUDART)", group);
  d.libcuda = f.value("--libcuda", "PATH", "the driver library to use (as CUARCH_LIBCUDA)", group);
  d.ptxas = f.value("--ptxas", "PATH", "a ptxas to report (as CUARCH_PTXAS)", group);
  d.python_prefix = f.value("--python-prefix", "DIR",
                            "a Python environment to scan for pip nvidia-* wheels and Triton's ptxas\n"
                            "(repeatable; $VIRTUAL_ENV and $CONDA_PREFIX are scanned anyway)",
                            group, /*repeatable=*/true);
  d.isolated = f.flag("--isolated",
                      "look only at the options above and the CUARCH_* variables: no loader\n"
                      "search, no PATH, no already-loaded libraries, no default locations",
                      group);
  d.timeout = f.value("--timeout", "SECONDS",
                      "how long detection may take in all, and any one nvcc/ptxas --version\n"
                      "(default 10; at most 3600)",
                      group);
  d.device_cc = f.value("--device-cc", "LIST", "the devices' compute capabilities, e.g. 9.0,12.0 (build machines\nwithout GPUs)",
                        devices_group);
  return d;
}

/// What read_detection_flags found.
struct detection_choice {
  bool compiler_options = false;     // an option that says where to look for compilers was given
  std::optional<std::string> error;  // a usage error (exit 2), already worded
};

/// Reads the shared options into `opts`.
inline detection_choice read_detection_flags(const detection_flags& d, cuarch::detect_options& opts) {
  detection_choice c;
  auto path = [&](const CLI::Option* o, std::string& into, bool about_compilers) {
    if (auto v = flag_set::get(o)) {
      into = *v;
      c.compiler_options = c.compiler_options || about_compilers;
    }
  };
  path(d.cuda_home, opts.cuda_home, true);
  path(d.nvrtc, opts.nvrtc_path, true);
  path(d.nvcc, opts.nvcc_path, true);
  path(d.cudart, opts.cudart_path, false);
  path(d.libcuda, opts.libcuda_path, false);
  path(d.ptxas, opts.ptxas_path, false);
  for (const auto& prefix : flag_set::all(d.python_prefix)) {
    opts.python_prefixes.push_back(prefix);
    c.compiler_options = true;
  }
  if (flag_set::given(d.isolated)) {  // only what the options and CUARCH_* variables name
    opts.already_loaded = false;
    opts.loader_search = false;
    opts.path_search = false;
    opts.default_locations = false;
    c.compiler_options = true;
  }
  if (auto v = flag_set::get(d.device_cc)) {
    auto list = cuarch::parse_device_list(*v);
    if (!list) {
      c.error = "--device-cc: " + list.error().message();
      return c;
    }
    opts.device_ccs = std::move(*list);
  }
  if (auto v = flag_set::get(d.timeout)) {
    char* end = nullptr;
    const double seconds = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || !std::isfinite(seconds) || !(seconds > 0) || seconds > 3600) {
      c.error = "--timeout needs a number of seconds above 0 and at most 3600, not '" + *v + "'";
      return c;
    }
    const auto bound = std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
    opts.tool_timeout = bound;  // any one tool, and
    opts.deadline = bound;      // the whole detection
  }
  return c;
}

}  // namespace cuarch_cli
