// `cuarch env --for TOOL`: resolve as `cuarch resolve` does (the one front door) and print the
// variables TOOL reads, so that it builds the validated targets with the nvcc that validated them.
// The rules (which variables, their spelling, what the environment has otherwise) are the
// library's (front_door/tool_env.hpp); this command only maps flags and prints.
#include <cuarch/detect.hpp>
#include <cuarch/front_door/tool_env.hpp>
#include <cuarch/fmt.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "detection_options.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;
constexpr const char* command_name = "env";

const std::string footer =
    R"text(Resolves as `cuarch resolve` does (the same flags, detection and rules; the compile path is
nvcc, which every tool here runs) and prints the variables TOOL reads:
  torch       TORCH_CUDA_ARCH_LIST, CUDA_HOME (and PYTORCH_NVCC when set to another nvcc)
  flashinfer  FLASHINFER_CUDA_ARCH_LIST (explicit suffixes), CUDA_HOME, FLASHINFER_NVCC
  cmake       CUDAARCHS, CUDACXX (read by a fresh build directory's first configure)
  tvm-ffi     TVM_FFI_CUDA_ARCH_LIST, CUDA_HOME
  triton      TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH (the validated toolkit's ptxas)
A target TOOL's list cannot spell is an error naming TOOL, its release and the target, and a
request it can spell: never a reduced list. A refusal (exit 1 or 2) prints, in the shell format,
lines that make `eval` fail, so `set -e; eval "$(cuarch env ...)"` stops there; the other formats
print only the json document. A value the environment already has otherwise is named in a note
on stderr (the printed lines replace it), and so is an nvcc first on PATH that is not the one
that validated. Warnings that the lines do not settle go to stderr; --strict makes them exit 1.
Formats: shell (export NAME='value'), dotenv (NAME=value), github (lines for $GITHUB_ENV), json
(the cuarch.env/1 document). Exit status: 0 printed; 1 resolution failed, TOOL cannot express it,
or --strict and a warning; 2 bad usage or malformed input.
example: eval "$(cuarch env --for flashinfer)"
         cuarch env --for cmake --archs 9.0a --format github >>"$GITHUB_ENV")text";

/// The tools --for takes: the library's list (front_door/tool_env.hpp).
std::vector<std::string> tool_names() {
  std::vector<std::string> out;
  for (const auto t : cuarch::all_env_tools) out.emplace_back(cuarch::to_string(t));
  return out;
}

struct env_flags {
  CLI::Option* tool = nullptr;
  CLI::Option* format = nullptr;
  CLI::Option* cmake_version = nullptr;
  library_flags options;
};

int run_env(const env_flags& flags) {
  const auto tool_text = flag_set::get(flags.tool);
  if (!tool_text) return usage_error(command_name, "--for TOOL is required: " + choices(cuarch::all_env_tools));
  const auto tool = cuarch::detail::find_by_name(cuarch::all_env_tools, *tool_text);
  if (!tool)
    return usage_error(command_name, "--for: must be " + choices(cuarch::all_env_tools) + ", not '" + *tool_text + "'" +
                                         did_you_mean(*tool_text, tool_names()));
  const auto format_text = flag_set::get(flags.format).value_or("shell");
  const auto format = cuarch::detail::find_by_name(cuarch::all_env_formats, format_text);
  if (!format)
    return usage_error(command_name, "--format: must be " + choices(cuarch::all_env_formats) + ", not '" + format_text +
                                         "'" + did_you_mean(format_text, value_words(flags.format->get_type_name())));

  if (flag_set::given(flags.cmake_version) && *tool != cuarch::env_tool::cmake)
    return usage_error(command_name, "--cmake-version is for --for cmake only");
  cuarch::resolve_options o;
  if (const auto bad = flags.options.read(o)) return usage_error(command_name, *bad);
  const cuarch::env_outcome got = [&] {
    const detecting scope;  // stdout is the output's; Ctrl-C kills the probe and ends cuarch (cli.hpp)
    o.cancel = &interrupted;
    o.progress = scope.progress();
    return cuarch::env_here(*tool, *format, o, flag_set::get(flags.cmake_version).value_or(""));
  }();
  if (got.usage) return usage_error(command_name, *got.usage);
  const std::string who = fmt::format("cuarch env --for {}", cuarch::to_string(*tool));
  for (const auto& n : got.done.notes) print_to(stderr, "{}: note: {}\n", who, say(n));
  for (const auto& w : got.warnings())
    print_to(stderr, "{}: warning: {} ({}): {}\n", who, say(w.what), w.kind, say(w.meaning));
  if (*format == cuarch::env_format::json) print_to(stdout, "{}\n", got.json);
  // A refusal prints what makes its consumer fail too (an eval of it returns non-zero), never nothing.
  const auto refuse = [&](const std::string& why) {
    print_to(stderr, "{}: {}\n", who, say(why));
    print_to(stdout, "{}", cuarch::env_refused_lines(*format));  // json: nothing, the document said it
    return got.exit_status();
  };
  if (got.result)
    for (const auto& n : got.result->notes) print_to(stderr, "{}: note: {}\n", who, say(n));
  if (got.refused) return refuse(got.refusal);
  if (got.strict_failed)
    return refuse(fmt::format("--strict: {} warning(s) above; exit 1", got.result->warnings.size()));
  if (*format != cuarch::env_format::json) print_to(stdout, "{}", *got.text);
  return exit_ok;
}

std::function<int()> setup_env(flag_set& f) {
  using cuarch::option_name;
  env_flags flags;
  library_flags& lf = flags.options;
  const std::string tool = "tool", request = "request (as cuarch resolve)",
                    compiler = "compiler (the nvcc the tool will run)", devices = "devices and driver",
                    policy = "policy";
  flags.tool = f.value("--for", choices(cuarch::all_env_tools), "the tool whose variables to print (required)", tool);
  // The tool is named by --for only: `cuarch env torch` is answered with the option it needs.
  f.on_unexpected([](const std::string& arg) {
    const auto names = tool_names();
    if (std::find(names.begin(), names.end(), arg) != names.end()) return "; did you mean '--for " + arg + "'?";
    return did_you_mean(arg, names, [](const std::string& name) { return "--for " + name; });
  });
  flags.format = f.value("--format", choices(cuarch::all_env_formats), "how to print them (default: shell)", tool);
  flags.cmake_version = f.value("--cmake-version", "VERSION",
                                "with --for cmake: the CMake that will read CUDAARCHS (its\nCMAKE_VERSION; default: ask "
                                "$CMAKE_COMMAND, else the cmake\non PATH): 'a' needs 3.25.0, 'f' 4.0.2",
                                tool);
  lf.also("cmake_version", flags.cmake_version);
  lf.value(f, option_name::archs, "--archs", "LIST|native|all|all-major", "what to resolve (default: native)", request);
  lf.value(f, option_name::dialect, "--dialect", choices(cuarch::all_arch_dialects),
           "how to read LIST (default: generic)", request);
  lf.value(f, option_name::env, "--env", choices(cuarch::all_env_overrides),
           "variables that override the request (as cuarch resolve)", request);
  add_detection_flags(lf, f, compiler, devices);
  lf.value(f, option_name::driver, "--driver", "VERSION|detected", "check PTX against this driver (as cuarch resolve)",
           devices);
  lf.value(f, option_name::policy, "--policy", "P[,P...]",
           "one or more of " + choices(cuarch::all_policy_names) + " (default: strict)", policy);
  lf.value(f, option_name::native_variant, "--native-variant", "CHAIN|RULES",
           "the variants native tries (as cuarch resolve)", policy);
  lf.flag(f, option_name::strict, "--strict",
          "exit 1 when a warning the printed lines do not settle bears on the answer", policy);
  return [flags] { return run_env(flags); };
}

// A usage error too prints what makes `eval` fail (the format as the arguments ask, shell by default).
std::string refused_output() {
  const auto format = cuarch::detail::find_by_name(cuarch::all_env_formats,
                                                   requested_format().empty() ? "shell" : requested_format());
  return cuarch::env_refused_lines(format.value_or(cuarch::env_format::shell));
}

const register_command registration{
    command_name,
    {"print the variables a tool reads (torch, flashinfer, cmake, ...) for the validated targets and nvcc", footer,
     setup_env, refused_output}};

}  // namespace
