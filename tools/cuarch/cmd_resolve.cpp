// `cuarch resolve`: resolve a request (a list, native, all, all-major) against a compiler, devices
// and policy, and print the targets for a build script or a JIT cache. Every flag and the request
// itself are read and validated before anything is detected, loaded or run: a malformed token is
// exit 2 at once, whatever toolkits the machine holds.
#include <cuarch/core/detail/utf8.hpp>
#include <cuarch/detect.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/resolve/output_format.hpp>
#include <cuarch/resolve/outputs.hpp>

#include <functional>
#include <string>

#include "cli.hpp"
#include "detection_options.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;
constexpr const char* command_name = "resolve";

// Names of the library's enumerations as the help shows them ("a|f|baseline" for variants: the
// suffix is what users type, the name is what JSON writes).
std::string variant_choices() {
  std::string out;
  for (const auto v : cuarch::all_arch_variants)
    out.append(out.empty() ? "" : "|").append(cuarch::suffix(v).empty() ? cuarch::to_string(v) : cuarch::suffix(v));
  return out;
}

const std::string footer = fmt::format(
    R"(A LIST is in any spelling: "9.0a;10.0", "sm_90a compute_90", "90a-real;100f", "8.6+PTX".
An explicit --archs beats CUARCH_ARCHS and TORCH_CUDA_ARCH_LIST (a note on stderr says so);
--env names the variables that may override even an explicit --archs.
The compiler is the one --toolkit names, or the one detection finds as `cuarch doctor` does.
Which compile path decides: --compiler; else the one --nvrtc or --nvcc names; else NVRTC for
--format nvrtc or when this process already loaded an NVRTC; else nvcc.
Output formats: nvcc (-gencode flags on one line), nvrtc (the options of each compile, one line
each), cmake (CUDA_ARCHITECTURES), torch (TORCH_CUDA_ARCH_LIST), json (targets, every spelling,
the cache key and the diagnostics). Notes go to stderr; stdout holds only the output.
Policies ({}): strict fails on any unbuildable target
(the default); best-effort drops and reports them; ptx-fallback gives PTX to a device newer
than the compiler when the driver (--driver) can JIT it; verify-devices makes explicit targets
load on the devices; compatible-minor gives a device whose own architecture the compiler cannot
build the machine code of the highest lower minor it can (sm_120 for 12.1, without 12.1's features).

Warnings on stderr ("warnings" in JSON) say what bears on the answer: a compiler your own
tools would run (CUDACXX, $CUDA_HOME's nvcc, the first nvcc on PATH, an NVRTC already loaded)
that gives another verdict, with the exact fix; nvcc vs its headers; a compiler newer than the
driver. A failure names the compiler that decided, how it was found, and any other compiler
detection saw that would build the request, with the fix.

exit status: 0 resolved; 1 resolution failed, the format cannot express the targets, or --strict
and a warning (reasons on stderr); 2 bad usage or malformed input (nothing is detected then).
example: export TORCH_CUDA_ARCH_LIST=$(cuarch resolve --toolkit 12.8 --device-cc 12.0 --format torch))",
    choices(cuarch::all_policy_names));

struct resolve_flags {
  library_flags options;  // every flag is a library option (front_door/options.hpp)
};

/// Prints a failure: a JSON document on stdout for --format json (with the schema of every
/// resolve document), the reason on stderr; returns the outcome's status.
int print_failure(cuarch::output_format format, const cuarch::resolve_outcome& done) {
  if (format == cuarch::output_format::json) print_to(stdout, "{}\n", cuarch::to_json(done));
  print_to(stderr, "cuarch resolve: {}\n", say(done.message()));
  return done.exit_status();
}

/// Prints the targets in the chosen format; whether the format could spell them.
bool print_targets(cuarch::output_format format, const cuarch::resolution& r, const cuarch::resolve_outcome& done) {
  switch (format) {
    case cuarch::output_format::json: print_to(stdout, "{}\n", cuarch::to_json(done)); return true;
    case cuarch::output_format::nvcc: print_to(stdout, "{}\n", cuarch::nvcc_flags(r.targets)); return true;
    case cuarch::output_format::nvrtc:
      for (const auto& c : cuarch::nvrtc_compiles(r.targets)) {
        std::string line;
        for (const auto& opt : c.options) line += (line.empty() ? "" : " ") + opt;
        print_to(stdout, "{}\n", line);
      }
      return true;
    case cuarch::output_format::cmake:
    case cuarch::output_format::torch: break;
  }
  const auto spelled = format == cuarch::output_format::cmake ? cuarch::cmake_architectures(r.targets)
                                                              : cuarch::torch_cuda_arch_list(r.targets);
  if (!spelled) {
    print_to(stderr, "cuarch resolve: {}\n", say(spelled.error().message(done.spelling)));
    return false;
  }
  print_to(stdout, "{}\n", *spelled);
  return true;
}

int run_resolve(const resolve_flags& flags) {
  // The library reads every option's text and makes the whole resolution (front_door/): a
  // malformed request is refused before anything is detected, loaded or run; detection asks only
  // the roles this request needs; a failure comes back explained. This command only words it.
  cuarch::resolve_options o;
  if (const auto bad = flags.options.read(o)) return usage_error(command_name, *bad);
  const cuarch::output_format format = o.output.value_or(cuarch::output_format::nvcc);
  const cuarch::resolve_outcome done = [&] {
    const detecting scope;  // stdout is the output's; Ctrl-C kills the probe and ends cuarch (cli.hpp)
    o.cancel = &interrupted;
    o.progress = scope.progress();
    return cuarch::resolve_here(o);
  }();
  if (done.usage) return usage_error(command_name, *done.usage);
  for (const auto& n : done.notes) print_to(stderr, "cuarch resolve: note: {}\n", say(n));
  for (const auto& w : done.warnings)
    print_to(stderr, "cuarch resolve: warning: {} ({}): {}\n", say(w.what), w.kind, say(w.meaning));
  if (!done.result) return print_failure(format, done);

  const cuarch::resolution& r = *done.result;
  for (const auto& d : r.diagnostics)
    if (d.outcome != cuarch::resolution_outcome::kept)
      print_to(stderr, "cuarch resolve: note: {}\n", say(d.message(done.spelling)));
  if (r.origin.source == cuarch::source_kind::environment)
    print_to(stderr, "cuarch resolve: note: the request came from the environment variable {}\n", r.origin.variable);
  if (r.table_older_than_compiler)
    print_to(stderr, "cuarch resolve: note: cuarch's table (newest CUDA {}) is older than the compiler (CUDA {}){}\n",
             cuarch::newest_known_toolkit(), r.compiler_version,
             done.compiler && done.compiler->compiler.supported_sm_numbers
                 ? "; the compiler's supported-arch list decided"
                 : "; targets newer than the table are judged by the table");
  if (!print_targets(format, r, done)) return exit_failed;
  if (done.exit_status() != 0)
    print_to(stderr, "cuarch resolve: --strict: {} warning(s) above; exit 1\n", done.warnings.size());
  return done.exit_status();
}

std::function<int()> setup_resolve(flag_set& f) {
  using cuarch::option_name;
  resolve_flags flags;
  library_flags& lf = flags.options;
  const std::string request = "request", compiler = "compiler (the one that will build the code)",
                    devices = "devices and driver (asked only for native, or under verify-devices)", policy = "policy",
                    output = "output";
  lf.value(f, option_name::archs, "--archs", "LIST|native|all|all-major", "what to resolve (default: native)", request);
  lf.value(f, option_name::dialect, "--dialect", choices(cuarch::all_arch_dialects),
           "how to read LIST (default: generic, which reads them all)", request);
  lf.value(f, option_name::env, "--env", choices(cuarch::all_env_overrides),
           "environment variables that override the request, first set one wins:\n"
           "CUARCH_ARCHS (the default without --archs), TORCH_CUDA_ARCH_LIST, CUDAARCHS",
           request);
  lf.value(f, option_name::toolkit, "--toolkit", "VERSION", "given: its CUDA release, e.g. 12.8 or 13.0.88", compiler);
  lf.value(f, option_name::supported_archs, "--supported-archs", "LIST",
           "with --toolkit: what it reports as supported (nvrtcGetSupportedArchs),\n"
           "e.g. 75,80,90,120; it then decides",
           compiler);
  lf.value(
      f, option_name::compiler, "--compiler", "nvcc|nvrtc|auto",
      "which compile path decides (default auto: the one --nvrtc or --nvcc\nnames, else nvrtc for --format nvrtc or when NVRTC is already loaded,\nelse nvcc)",
      compiler);
  add_detection_flags(lf, f, compiler, devices);
  lf.value(f, option_name::driver, "--driver", "VERSION|detected",
           "the CUDA version the driver supports, or `detected`: checks PTX against\n"
           "it and allows the PTX fallback. Without it PTX is not checked (right for\n"
           "builds: this is not the driver that runs it)",
           devices);
  lf.value(f, option_name::inventory, "--inventory", "FILE",
           "a fleet: `kubectl get nodes -o json` or a CSV of nvidia-smi --query-gpu\n"
           "with a host column; its GPU nodes are the devices, the oldest driver\n"
           "checks PTX, and a node whose driver cannot run what the compiler builds\n"
           "fails (instead of --device-cc and --driver)",
           devices);
  lf.value(f, option_name::policy, "--policy", "P[,P...]",
           "one or more of " + choices(cuarch::all_policy_names) + " (default: strict)", policy);
  lf.value(f, option_name::native_variant, "--native-variant", "CHAIN|RULES",
           "the variants native tries per device, best first, baseline last: " + variant_choices() +
               ", a chain (f,a) or rules (12.0=f,9=a,default=a; default: a)",
           policy);
  lf.value(f, option_name::output, "--format", choices(cuarch::all_output_formats),
           "how to print the targets (default: nvcc)", output);
  lf.flag(f, option_name::strict, "--strict",
          "exit 1 when a warning bears on the answer (another compiler your tools\n"
          "run gives another verdict, nvcc vs its headers, a compiler newer than\n"
          "the driver); asks both compilers and the driver",
          policy);
  return [flags] { return run_resolve(flags); };
}

const register_command registration{
    command_name,
    {"resolve a request (a list, native, all) to targets for nvcc, NVRTC, CMake, PyTorch or JSON", footer,
     setup_resolve}};

}  // namespace
