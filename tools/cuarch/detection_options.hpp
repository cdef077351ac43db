// The command line's spelling of the library's options (front_door/options.hpp): each flag names
// an option_name, and its text goes to cuarch::set_option() unchanged, so the value grammar, the
// defaults and the rules between options are the library's, the same as Python's and CMake's.
// `cuarch doctor` and `cuarch resolve` share the detection flags below.
#pragma once

#include <cuarch/detect.hpp>

#include <optional>
#include <string>
#include <vector>

#include "flags.hpp"

namespace cuarch_cli {

class library_flags {
 public:
  /// An option with a value: "--dialect VALUE".
  void value(flag_set& f, cuarch::option_name name, const std::string& flag, const std::string& value_name,
             const std::string& help, const std::string& group, bool repeatable = false) {
    flags_.push_back({f.value(flag, value_name, help, group, repeatable), name, false});
  }
  /// A flag that sets a true/false option: "--strict".
  void flag(flag_set& f, cuarch::option_name name, const std::string& flag, const std::string& help,
            const std::string& group) {
    flags_.push_back({f.flag(flag, help, group), name, true});
  }
  /// Reads every flag given into `o`; the usage error ("--dialect: must be ...") of the first bad
  /// value, or of the first rule between options the flags break (worded with the flags' names).
  std::optional<std::string> read(cuarch::resolve_options& o) const {
    for (const auto& lf : flags_) {
      if (!flag_set::given(lf.option)) continue;
      const std::vector<std::string> values = lf.is_flag ? std::vector<std::string>{"true"} : flag_set::all(lf.option);
      for (const auto& v : values)
        if (auto bad = cuarch::set_option(o, lf.name, v))
          return lf.option->get_name() + ": " + bad->message + did_you_mean(v, value_words(lf.option->get_type_name()));
    }
    o.spelling = speller();
    return cuarch::check_options(o, o.spelling);
  }
  /// A flag of this command that is no library option but may be named in a message ("--cmake-version").
  void also(std::string name, CLI::Option* option) { others_.emplace_back(std::move(name), option); }
  /// How messages name an option: "--device-cc 9.0" for devices (its flag and an example value, one
  /// shell word). An option this command has no flag for keeps the library's name.
  std::string spelling(std::string_view name, std::string_view value = {}) const {
    std::string flag(name);
    const auto n = cuarch::parse_option_name(name);
    for (const auto& lf : flags_)
      if (n && lf.name == *n) flag = lf.option->get_name();
    for (const auto& [other, option] : others_)
      if (other == name) flag = option->get_name();
    return value.empty() ? flag : flag + " " + cuarch::detail::shell_word(std::string(value));
  }
  cuarch::option_speller speller() const {
    return {[](const void* self, std::string_view name, std::string_view value) {
              return static_cast<const library_flags*>(self)->spelling(name, value);
            },
            this};
  }

 private:
  struct entry {
    CLI::Option* option;
    cuarch::option_name name;
    bool is_flag;
  };
  std::vector<entry> flags_;
  std::vector<std::pair<std::string, CLI::Option*>> others_;
};

/// Where to look for compilers, libraries and devices: `cuarch doctor` and `cuarch resolve` alike.
inline void add_detection_flags(library_flags& lf, flag_set& f, const std::string& group,
                                const std::string& devices_group) {
  using cuarch::option_name;
  lf.value(f, option_name::cuda_home, "--cuda-home", "DIR", "a toolkit root to consider first (before $CUDA_HOME)",
           group);
  lf.value(f, option_name::nvrtc, "--nvrtc", "PATH", "the libnvrtc to use for JIT (as CUARCH_NVRTC)", group);
  lf.value(f, option_name::nvcc, "--nvcc", "PATH", "the nvcc to use for offline builds (as CUARCH_NVCC)", group);
  lf.value(f, option_name::cudart, "--cudart", "PATH", "the libcudart to report (as CUARCH_CUDART)", group);
  lf.value(f, option_name::libcuda, "--libcuda", "PATH", "the driver library to use (as CUARCH_LIBCUDA)", group);
  lf.value(f, option_name::ptxas, "--ptxas", "PATH", "a ptxas to report (as CUARCH_PTXAS)", group);
  lf.value(f, option_name::python_prefix, "--python-prefix", "DIR",
           "a Python environment to scan for pip nvidia-* wheels and Triton's ptxas\n"
           "(repeatable; $VIRTUAL_ENV and $CONDA_PREFIX are scanned too, unless\n--isolated)",
           group, /*repeatable=*/true);
  lf.flag(f, option_name::isolated, "--isolated",
          "look only at the options above and the CUARCH_* variables: no loader\n"
          "search, no PATH, no already-loaded libraries, no default locations, and\n"
          "not where CUDA_HOME, CUDA_PATH, CUDACXX, TRITON_PTXAS_PATH, VIRTUAL_ENV or\n"
          "CONDA_PREFIX point",
          group);
  lf.value(f, option_name::timeout, "--timeout", "SECONDS",
           "how long detection may take in all, and any one nvcc/ptxas --version\n"
           "(default 10; 0.001 to 3600)",
           group);
  lf.value(f, option_name::devices, "--device-cc", "LIST",
           "the devices' compute capabilities, e.g. 9.0,12.0 (build machines\nwithout GPUs)", devices_group);
}

}  // namespace cuarch_cli
