// The detection options `cuarch doctor` and `cuarch resolve` share, read in one place so the two
// commands cannot drift apart (what --isolated turns off, how --device-cc is read).
#pragma once

#include <cuarch/detect.hpp>
#include <cuarch/sources/device_source.hpp>

#include <string>
#include <string_view>

#include "cli.hpp"

namespace cuarch_cli {

/// What take_detection_options found.
struct detection_choice {
  bool compiler_options = false;  // an option that says where to look for compilers was given
  int status = 0;                 // exit_usage after a usage error was printed, else 0
};

/// Takes --cuda-home, --nvrtc, --nvcc, --cudart, --libcuda, --ptxas, --python-prefix (repeatable),
/// --isolated and --device-cc into `opts`.
inline detection_choice take_detection_options(std::string_view command, arguments& args, cuarch::detect_options& opts) {
  detection_choice c;
  auto path = [&](const char* name, std::string& into, bool about_compilers) {
    if (auto v = args.take(name)) {
      into = *v;
      c.compiler_options = c.compiler_options || about_compilers;
    }
  };
  path("--cuda-home", opts.cuda_home, true);
  path("--nvrtc", opts.nvrtc_path, true);
  path("--nvcc", opts.nvcc_path, true);
  path("--cudart", opts.cudart_path, false);
  path("--libcuda", opts.libcuda_path, false);
  path("--ptxas", opts.ptxas_path, false);
  while (auto v = args.take("--python-prefix")) {
    opts.python_prefixes.push_back(*v);
    c.compiler_options = true;
  }
  if (args.flag("--isolated")) {  // only what the options and CUARCH_* variables name
    opts.already_loaded = false;
    opts.loader_search = false;
    opts.path_search = false;
    opts.default_locations = false;
    c.compiler_options = true;
  }
  if (auto v = args.take("--device-cc")) {
    auto list = cuarch::parse_device_list(*v);
    if (!list) {
      c.status = usage_error(command, "--device-cc: " + list.error().message());
      return c;
    }
    opts.device_ccs = std::move(*list);
  }
  return c;
}

}  // namespace cuarch_cli
