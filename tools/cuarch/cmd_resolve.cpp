// `cuarch resolve`: resolve a request (a list, native, all, all-major) against a compiler, devices
// and policy, and print the targets for a build script or a JIT cache. Every flag and the request
// itself are read and validated before anything is detected, loaded or run: a malformed token is
// exit 2 at once, whatever toolkits the machine holds.
#include <cuarch/core/decode.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/detect.hpp>
#include <cuarch/doctor/resolve_detected.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/resolve/env_request.hpp>
#include <cuarch/resolve/output_format.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/policy.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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
The compiler is the one --toolkit names, or the one detection finds as `cuarch doctor` does:
--nvrtc PATH selects the NVRTC (JIT) path, --nvcc PATH the nvcc path; without either, --compiler
or --format nvrtc chooses NVRTC, else nvcc.
Output formats: nvcc (-gencode flags on one line), nvrtc (the options of each compile, one line
each), cmake (CUDA_ARCHITECTURES), torch (TORCH_CUDA_ARCH_LIST), json (targets, every spelling,
the cache key and the diagnostics). Notes go to stderr; stdout holds only the output.
Policies ({}): strict fails on any unbuildable target
(the default); best-effort drops and reports them; ptx-fallback gives PTX to a device newer
than the compiler when the driver (--driver) can JIT it; verify-devices makes explicit targets
load on the devices; compatible-minor gives a device whose own architecture the compiler cannot
build the machine code of the highest lower minor it can (sm_120 for 12.1, without 12.1's features).

Sources that disagree in a way that bears on the answer are warnings on stderr ("warnings" in
JSON); a failure names the compiler that decided, how it was found, and any other compiler
detection saw that would build the request, with the fix.

exit status: 0 resolved; 1 resolution failed, the format cannot express the targets, or --strict
and a warning (reasons on stderr); 2 bad usage or malformed input (nothing is detected then).
example: export TORCH_CUDA_ARCH_LIST=$(cuarch resolve --toolkit 12.8 --device-cc 12.0 --format torch))",
    choices(cuarch::all_policy_names));

struct resolve_flags {
  CLI::Option* archs = nullptr;
  CLI::Option* dialect = nullptr;
  CLI::Option* env = nullptr;
  CLI::Option* toolkit = nullptr;
  CLI::Option* supported = nullptr;
  CLI::Option* compiler = nullptr;
  CLI::Option* driver = nullptr;
  CLI::Option* policy = nullptr;
  CLI::Option* native_variant = nullptr;
  CLI::Option* format = nullptr;
  CLI::Option* strict = nullptr;
  detection_flags detection;
};

/// What the flags ask for, every value read and checked.
struct options {
  std::string archs = "native";
  bool archs_given = false;
  cuarch::arch_dialect dialect = cuarch::arch_dialect::generic;
  cuarch::env_override env = cuarch::env_override::cuarch_archs;
  bool env_given = false;
  std::optional<cuarch::cuda_version> toolkit;
  std::optional<std::vector<int>> supported;
  bool jit = false;                // the NVRTC compile path (else nvcc), when detecting
  cuarch::detect_options detect;   // detection options (device_ccs doubles as --device-cc)
  bool detection_options = false;  // any option that says where to look for compilers
  cuarch::driver_from driver = cuarch::driver_from::none;
  cuarch::cuda_version driver_version{};
  cuarch::resolve_policy policy;
  cuarch::output_format format = cuarch::output_format::nvcc;
  bool strict = false;  // warnings fail the command; every compile-side source is asked
};

std::vector<std::string_view> split(std::string_view s, std::string_view separators) {
  std::vector<std::string_view> parts;
  while (!s.empty()) {
    const std::size_t at = s.find_first_of(separators);
    const std::string_view part = s.substr(0, at);
    if (!part.empty()) parts.push_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

/// Reads the flags into `o`; the usage error, worded, if one is wrong.
std::optional<std::string> read_options(const resolve_flags& f, options& o) {
  if (auto a = flag_set::get(f.archs)) {
    o.archs = *a;
    o.archs_given = true;
  }
  if (auto d = flag_set::get(f.dialect)) {
    const auto dialect = cuarch::parse_arch_dialect(*d);
    if (!dialect) return "--dialect must be " + choices(cuarch::all_arch_dialects) + ", not '" + *d + "'";
    o.dialect = *dialect;
  }
  if (auto e = flag_set::get(f.env)) {
    o.env_given = true;
    o.env = cuarch::env_override::none;
    for (const auto name : split(*e, ",")) {
      const auto one = cuarch::parse_env_override(name);
      if (!one) return "--env takes " + choices(cuarch::all_env_overrides) + " (comma-separated), not '" + std::string(name) + "'";
      o.env = o.env | *one;
    }
  }
  if (auto t = flag_set::get(f.toolkit)) {
    const auto v = cuarch::parse_cuda_version(*t);
    if (!v) return "--toolkit: " + v.error().message();
    o.toolkit = *v;
  }
  if (auto s = flag_set::get(f.supported)) {
    std::vector<int> sms;
    for (const auto part : split(*s, ",; ")) {
      int sm = 0;
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), sm);
      if (ec != std::errc() || end != part.data() + part.size() || !cuarch::decode_sm_number(sm))
        return "--supported-archs takes sm numbers like 75,90,120, not '" + std::string(part) + "'";
      sms.push_back(sm);
    }
    o.supported = std::move(sms);
  }
  const auto chosen = read_detection_flags(f.detection, o.detect);
  if (chosen.error) return chosen.error;
  o.detection_options = chosen.compiler_options;
  if (auto v = flag_set::get(f.driver)) {
    if (*v == "detected") {
      o.driver = cuarch::driver_from::detected;
    } else {
      const auto dv = cuarch::parse_cuda_version(*v);
      if (!dv) return "--driver takes a CUDA version or 'detected': " + dv.error().message();
      o.driver = cuarch::driver_from::given;
      o.driver_version = *dv;
    }
  }
  if (auto p = flag_set::get(f.policy)) {
    if (const auto bad = cuarch::apply_policy_list(*p, o.policy))
      return "--policy takes " + choices(cuarch::all_policy_names) + " (comma-separated), not '" + std::string(*bad) + "'";
  }
  if (auto v = flag_set::get(f.native_variant)) {
    const auto spec = cuarch::parse_native_variant_spec(*v);
    if (!spec) return "--native-variant: " + spec.error().message();
    o.policy.native_preferences = *spec;
  }
  if (auto v = flag_set::get(f.format)) {
    const auto format = cuarch::parse_output_format(*v);
    if (!format) return "--format must be " + choices(cuarch::all_output_formats) + ", not '" + *v + "'";
    o.format = *format;
  }

  o.strict = flag_set::given(f.strict);

  // The compile path: --compiler, else the one compiler path named, else the output format.
  const bool nvrtc_named = flag_set::given(f.detection.nvrtc), nvcc_named = flag_set::given(f.detection.nvcc);
  if (auto c = flag_set::get(f.compiler)) {
    const auto kind = cuarch::parse_source_kind(*c);
    if (!kind || (*kind != cuarch::source_kind::nvcc && *kind != cuarch::source_kind::nvrtc))
      return "--compiler must be nvcc or nvrtc, not '" + *c + "'";
    o.jit = *kind == cuarch::source_kind::nvrtc;
    if (o.jit && nvcc_named && !nvrtc_named) return "--compiler nvrtc does not use the nvcc that --nvcc names";
    if (!o.jit && nvrtc_named && !nvcc_named) return "--compiler nvcc does not use the NVRTC that --nvrtc names";
  } else if (nvrtc_named && nvcc_named) {
    return "--nvrtc and --nvcc both name a compiler: say which one compiles with --compiler nvrtc|nvcc";
  } else {
    o.jit = nvrtc_named || (!nvcc_named && o.format == cuarch::output_format::nvrtc);
  }

  if (o.toolkit && (o.detection_options || flag_set::given(f.compiler)))
    return "--toolkit names the compiler; --compiler/--nvcc/--nvrtc/--cuda-home/--python-prefix/--isolated detect one: "
           "use one or the other";
  if (o.supported && !o.toolkit) return std::string("--supported-archs describes a --toolkit");
  return std::nullopt;
}

/// The request as resolution will read it. An explicit --archs beats the environment unless --env
/// says otherwise; a variable that is set but ignored is named on stderr, never ignored silently.
cuarch::arch_request make_request(const options& o) {
  cuarch::arch_request request;
  request.list = o.archs;
  request.dialect = o.dialect;
  request.overrides = o.env;
  if (o.archs_given && !o.env_given) {
    request.overrides = cuarch::env_override::none;
    for (const auto one : cuarch::all_env_overrides) {
      if (one == cuarch::env_override::none) continue;
      cuarch::arch_request probe = request;
      probe.overrides = one;
      const auto seen = cuarch::read_request(probe);
      if (seen.origin.source != cuarch::source_kind::environment) continue;
      std::string shown(seen.list);  // the environment's bytes, with control characters made visible
      for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      fmt::print(stderr, "cuarch resolve: note: --archs given; ignoring {}={} (--env {} lets it override)\n", seen.origin.variable,
                 shown, cuarch::to_string(one));
    }
  }
  return request;
}

/// Prints a failure: a JSON document on stdout for --format json (with the schema of every
/// resolve document), the reason on stderr; returns `status`.
int print_failure(const options& o, const cuarch::resolution_failure& failure, int status) {
  if (o.format == cuarch::output_format::json) fmt::print("{}\n", cuarch::to_json(failure));
  fmt::print(stderr, "cuarch resolve: {}\n", failure.message());
  return status;
}

/// Prints the disagreements that bear on the answer; under --strict they fail the command.
int print_warnings(const options& o, const std::vector<cuarch::resolution_warning>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "cuarch resolve: warning: {} ({}): {}\n", w.what, w.kind, w.meaning);
  if (!o.strict || warnings.empty()) return exit_ok;
  fmt::print(stderr, "cuarch resolve: --strict: {} warning(s) above; exit 1\n", warnings.size());
  return exit_failed;
}

/// Prints the output in the chosen format; exit status.
int print_result(const options& o, const cuarch::resolution& r, const cuarch::compiler_provenance& compiler,
                 const std::vector<cuarch::resolution_warning>& warnings) {
  for (const auto& d : r.diagnostics)
    if (d.outcome != cuarch::resolution_outcome::kept) fmt::print(stderr, "cuarch resolve: note: {}\n", d.message());
  if (r.origin.source == cuarch::source_kind::environment)
    fmt::print(stderr, "cuarch resolve: note: the request came from the environment variable {} (--env {})\n", r.origin.variable,
               o.env_given ? "asked for it" : "none ignores it");
  if (r.table_older_than_compiler)
    fmt::print(stderr,
               "cuarch resolve: note: cuarch's table (newest CUDA {}) is older than the compiler (CUDA {}); "
               "the compiler's supported-arch list decided where it was given\n",
               cuarch::newest_known_toolkit(), r.compiler_version);

  switch (o.format) {
    case cuarch::output_format::json: fmt::print("{}\n", cuarch::to_json(r, compiler, warnings)); return print_warnings(o, warnings);
    case cuarch::output_format::nvcc: fmt::print("{}\n", cuarch::nvcc_flags(r.targets)); return print_warnings(o, warnings);
    case cuarch::output_format::nvrtc:
      for (const auto& c : cuarch::nvrtc_compiles(r.targets)) {
        std::string line;
        for (const auto& opt : c.options) line += (line.empty() ? "" : " ") + opt;
        fmt::print("{}\n", line);
      }
      return print_warnings(o, warnings);
    case cuarch::output_format::cmake:
    case cuarch::output_format::torch: break;
  }
  const auto spelled = o.format == cuarch::output_format::cmake ? cuarch::cmake_architectures(r.targets)
                                                                : cuarch::torch_cuda_arch_list(r.targets);
  if (!spelled) {
    fmt::print(stderr, "cuarch resolve: {}\n", spelled.error().message());
    return exit_failed;
  }
  fmt::print("{}\n", *spelled);
  return print_warnings(o, warnings);
}

int run_resolve(const resolve_flags& flags) {
  options o;
  if (const auto bad = read_options(flags, o)) return usage_error(command_name, *bad);

  // The library makes the whole resolution (doctor/resolve_detected.hpp): the request is read and
  // a malformed one refused before anything is detected, loaded or run; detection asks only the
  // roles this request needs; a failure comes back explained. This command only words it.
  cuarch::detected_request q;
  q.request = make_request(o);
  q.policy = o.policy;
  q.jit = o.jit;
  q.toolkit = o.toolkit;
  q.toolkit_supported_sm = o.supported;
  q.driver = o.driver;
  q.driver_version = o.driver_version;
  q.strict = o.strict;
  q.detect = o.detect;
  const cuarch::detected_resolution done = cuarch::resolve_detected(q);
  if (done.malformed) return print_failure(o, done.result.error(), exit_usage);

  for (const auto& n : done.notes) fmt::print(stderr, "cuarch resolve: note: {}\n", n);
  if (!done.result) return print_failure(o, done.result.error(), cuarch::exit_status(done.result.error().summary.code));
  return print_result(o, *done.result, *done.compiler, done.warnings);
}

std::function<int()> setup_resolve(flag_set& f) {
  resolve_flags flags;
  const std::string request = "request", compiler = "compiler (the one that will build the code)",
                    devices = "devices and driver (asked only for native, or under verify-devices)", policy = "policy",
                    output = "output";
  flags.archs = f.value("--archs", "LIST|native|all|all-major", "what to resolve (default: native)", request);
  flags.dialect = f.value("--dialect", choices(cuarch::all_arch_dialects), "how to read LIST (default: generic, which reads them all)",
                          request);
  flags.env = f.value("--env", choices(cuarch::all_env_overrides),
                      "environment variables that override the request, first set one wins:\n"
                      "CUARCH_ARCHS (the default without --archs), TORCH_CUDA_ARCH_LIST, CUDAARCHS",
                      request);
  flags.toolkit = f.value("--toolkit", "VERSION", "given: its CUDA release, e.g. 12.8 or 13.0.88", compiler);
  flags.supported = f.value("--supported-archs", "LIST",
                            "with --toolkit: what it reports as supported (nvrtcGetSupportedArchs),\n"
                            "e.g. 75,80,90,120; it then decides",
                            compiler);
  flags.compiler = f.value(
      "--compiler", "nvcc|nvrtc",
      "detected: which compile path (default: the one --nvrtc or --nvcc\nnames, else nvrtc for --format nvrtc, nvcc otherwise)",
      compiler);
  flags.detection = add_detection_flags(f, compiler, devices);
  flags.driver = f.value("--driver", "VERSION|detected",
                         "the CUDA version the driver supports, or `detected`: checks PTX against\n"
                         "it and allows the PTX fallback. Without it PTX is not checked (right for\n"
                         "builds: this is not the driver that runs it)",
                         devices);
  flags.policy = f.value("--policy", "P[,P...]", "one or more of " + choices(cuarch::all_policy_names) + " (default: strict)", policy);
  flags.native_variant = f.value("--native-variant", "CHAIN|RULES",
                                 "the variants native tries per device, best first, baseline last: " + variant_choices() +
                                     ", a chain (f,a) or rules (12.0=f,9=a,default=a; default: a)",
                                 policy);
  flags.format = f.value("--format", choices(cuarch::all_output_formats), "how to print the targets (default: nvcc)", output);
  flags.strict = f.flag("--strict",
                        "exit 1 when sources disagree in a way that bears on the answer (nvcc vs\n"
                        "NVRTC, CUDA_HOME vs PATH, nvcc vs its headers, an override vs CUDA_HOME,\n"
                        "a compiler newer than the driver); asks both compilers and the driver",
                        policy);
  return [flags] { return run_resolve(flags); };
}

const register_command registration{
    command_name,
    {"resolve a request (a list, native, all) to targets for nvcc, NVRTC, CMake, PyTorch or JSON", footer, setup_resolve}};

}  // namespace
