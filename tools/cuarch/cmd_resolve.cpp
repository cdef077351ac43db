// `cuarch resolve`: resolve a request (a list, native, all, all-major) against a compiler, devices
// and policy, and print the targets for a build script or a JIT cache.
#include <cuarch/core/decode.hpp>
#include <cuarch/detect.hpp>
#include <cuarch/resolve/env_request.hpp>
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/policy.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "detection_options.hpp"

namespace {

using namespace cuarch_cli;
constexpr std::string_view command_name = "resolve";

const char* const help_text = R"(usage: cuarch resolve [options]

Resolves CUDA targets and prints them for a build script, a JIT cache or a person.

request
  --archs LIST|native|all|all-major   what to resolve (default: native). LIST in any spelling:
                                      "9.0a;10.0", "sm_90a compute_90", "90a-real;100f", "8.6+PTX"
  --dialect generic|torch|cmake|nvcc  how to read LIST (default: generic, which reads them all)
  --env cuarch,torch,cmake|none       environment variables that override the request, first set
                                      one wins: CUARCH_ARCHS (default), TORCH_CUDA_ARCH_LIST, CUDAARCHS
compiler (the one that will build the code): given, or detected as `cuarch doctor` does
  --toolkit VERSION                   given: its CUDA release, e.g. 12.8 or 13.0.88
  --supported-archs LIST              with --toolkit: what it reports as supported
                                      (nvrtcGetSupportedArchs), e.g. 75,80,90,120; it then decides
  --compiler nvcc|nvrtc               detected: which compile path (default: nvrtc for --format
                                      nvrtc, nvcc otherwise)
  --cuda-home DIR  --nvcc PATH  --nvrtc PATH  --python-prefix DIR  --isolated
                                      detected: where to look first (see cuarch doctor --help)
devices and driver (asked only for native, or for explicit lists under verify-devices)
  --device-cc LIST                    the devices' compute capabilities, e.g. 9.0,12.0; without it
                                      native asks the driver (--libcuda PATH names one)
  --driver VERSION|detected           the CUDA version the driver supports, or `detected`: checks
                                      PTX against it and allows the PTX fallback. Without it PTX is
                                      not checked (right for builds: this is not the driver that runs it)
policy
  --policy P[,P...]                   strict (default): any unbuildable target is an error
                                      best-effort: drop and report them (renames followed)
                                      ptx-fallback: PTX for a device newer than the compiler, when the
                                      driver (--driver) can JIT it
                                      verify-devices: explicit targets must load on the devices
  --native-variant a|f|baseline       the variant native prefers for each device (default: a)
output
  --format nvcc|nvrtc|cmake|torch|json  (default: nvcc)
      nvcc   one line of -gencode flags          nvrtc  one line of options per compile
      cmake  CUDA_ARCHITECTURES                  torch  TORCH_CUDA_ARCH_LIST
      json   targets, every spelling, the cache key and the diagnostics
  Notes (transformed or dropped targets) go to stderr; stdout holds only the output.

exit status: 0 resolved; 1 resolution failed or the format cannot express the targets (reasons on
stderr); 2 bad usage or malformed input.
example: export TORCH_CUDA_ARCH_LIST=$(cuarch resolve --toolkit 12.8 --device-cc 12.0 --format torch)
)";

/// Errors about the input itself (exit 2) rather than about what can be resolved (exit 1).
bool is_input_error(cuarch::errc c) {
  switch (c) {
    case cuarch::errc::empty_input:
    case cuarch::errc::malformed_token:
    case cuarch::errc::unknown_suffix:
    case cuarch::errc::variant_not_defined:
    case cuarch::errc::ptx_of_specific_variant:
    case cuarch::errc::keyword_not_alone:
    case cuarch::errc::too_many_targets:
    case cuarch::errc::invalid_version:
    case cuarch::errc::invalid_environment: return true;
    default: return false;
  }
}

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

enum class driver_choice { none, given, detected };

struct options {
  std::string archs = "native";
  cuarch::arch_dialect dialect = cuarch::arch_dialect::generic;
  cuarch::env_override env = cuarch::env_override::cuarch_archs;
  std::optional<cuarch::cuda_version> toolkit;
  std::optional<std::vector<int>> supported;
  std::optional<std::string> compiler_role;  // nvcc or nvrtc (detection)
  cuarch::detect_options detect;             // detection options (device_ccs doubles as --device-cc)
  bool detection_options = false;            // any of them given
  driver_choice driver = driver_choice::none;
  cuarch::cuda_version driver_version{};
  cuarch::resolve_policy policy;
  std::string format = "nvcc";
};

/// Reads the options; returns 0 or the usage exit status (after printing why).
int read_options(arguments& args, options& o) {
  if (auto a = args.take("--archs")) o.archs = *a;
  if (auto d = args.take("--dialect")) {
    if (*d == "generic") o.dialect = cuarch::arch_dialect::generic;
    else if (*d == "torch") o.dialect = cuarch::arch_dialect::torch;
    else if (*d == "cmake") o.dialect = cuarch::arch_dialect::cmake;
    else if (*d == "nvcc") o.dialect = cuarch::arch_dialect::nvcc;
    else return usage_error(command_name, "--dialect must be generic, torch, cmake or nvcc, not '" + *d + "'");
  }
  if (auto e = args.take("--env")) {
    o.env = cuarch::env_override::none;
    for (const auto name : split(*e, ",")) {
      if (name == "none") continue;
      if (name == "cuarch") o.env = o.env | cuarch::env_override::cuarch_archs;
      else if (name == "torch") o.env = o.env | cuarch::env_override::torch_cuda_arch_list;
      else if (name == "cmake") o.env = o.env | cuarch::env_override::cudaarchs;
      else return usage_error(command_name, "--env takes cuarch, torch, cmake or none, not '" + std::string(name) + "'");
    }
  }
  if (auto t = args.take("--toolkit")) {
    const auto v = cuarch::parse_cuda_version(*t);
    if (!v) return usage_error(command_name, "--toolkit: " + v.error().message());
    o.toolkit = *v;
  }
  if (auto s = args.take("--supported-archs")) {
    std::vector<int> sms;
    for (const auto part : split(*s, ",; ")) {
      int sm = 0;
      if (!cuarch::detail::parse_uint(part, sm) || !cuarch::decode_sm_number(sm))
        return usage_error(command_name, "--supported-archs takes sm numbers like 75,90,120, not '" + std::string(part) + "'");
      sms.push_back(sm);
    }
    o.supported = std::move(sms);
  }
  if (auto c = args.take("--compiler")) {
    if (*c != "nvcc" && *c != "nvrtc") return usage_error(command_name, "--compiler must be nvcc or nvrtc, not '" + *c + "'");
    o.compiler_role = *c;
  }
  const auto chosen = cuarch_cli::take_detection_options(command_name, args, o.detect);
  if (chosen.status != 0) return chosen.status;
  o.detection_options = chosen.compiler_options;
  if (auto v = args.take("--driver")) {
    if (*v == "detected") {
      o.driver = driver_choice::detected;
    } else {
      const auto dv = cuarch::parse_cuda_version(*v);
      if (!dv) return usage_error(command_name, "--driver takes a CUDA version or 'detected': " + dv.error().message());
      o.driver = driver_choice::given;
      o.driver_version = *dv;
    }
  }
  if (auto p = args.take("--policy")) {
    for (const auto name : split(*p, ",")) {
      if (name == "strict") o.policy.unbuildable = cuarch::on_unbuildable::error;
      else if (name == "best-effort") {
        o.policy.unbuildable = cuarch::on_unbuildable::drop;
        o.policy.follow_renames = true;
      } else if (name == "ptx-fallback") o.policy.ptx_fallback = true;
      else if (name == "verify-devices") o.policy.verify_on_devices = true;
      else
        return usage_error(command_name, "--policy takes strict, best-effort, ptx-fallback or verify-devices, not '" +
                                             std::string(name) + "'");
    }
  }
  if (auto v = args.take("--native-variant")) {
    if (*v == "a") o.policy.native_variant = cuarch::arch_variant::arch_specific;
    else if (*v == "f") o.policy.native_variant = cuarch::arch_variant::family_specific;
    else if (*v == "baseline") o.policy.native_variant = cuarch::arch_variant::baseline;
    else return usage_error(command_name, "--native-variant must be a, f or baseline, not '" + *v + "'");
  }
  if (auto f = args.take("--format")) o.format = *f;
  if (o.format != "nvcc" && o.format != "nvrtc" && o.format != "cmake" && o.format != "torch" && o.format != "json")
    return usage_error(command_name, "--format must be nvcc, nvrtc, cmake, torch or json, not '" + o.format + "'");
  if (const int bad = reject_leftovers(command_name, args, false)) return bad;
  if (o.toolkit && (o.detection_options || o.compiler_role))
    return usage_error(command_name, "--toolkit names the compiler; --compiler/--nvcc/--nvrtc/--cuda-home/--python-prefix/"
                                     "--isolated detect one: use one or the other");
  if (o.supported && !o.toolkit) return usage_error(command_name, "--supported-archs describes a --toolkit");
  return 0;
}

/// Prints the output in the chosen format; exit status.
int print_result(const options& o, const cuarch::resolution& r, const cuarch::compiler_info& compiler) {
  for (const auto& d : r.diagnostics)
    if (d.outcome != cuarch::resolution_outcome::kept) fmt::print(stderr, "cuarch resolve: note: {}\n", d.message());
  if (r.origin.source == cuarch::source_kind::environment)
    fmt::print(stderr, "cuarch resolve: note: the request came from the environment variable {} (it overrides --archs; "
                       "--env none ignores it)\n", r.origin.variable);
  if (r.table_older_than_compiler)
    fmt::print(stderr, "cuarch resolve: note: cuarch's table (newest CUDA {}) is older than the compiler (CUDA {}); "
                       "the compiler's supported-arch list decided where it was given\n",
               cuarch::newest_known_toolkit(), r.compiler_version);

  if (o.format == "json") {
    fmt::print("{}\n", cuarch::to_json(r, &compiler));
    return exit_ok;
  }
  if (o.format == "nvcc") {
    fmt::print("{}\n", cuarch::nvcc_flags(r.targets));
    return exit_ok;
  }
  if (o.format == "nvrtc") {
    for (const auto& c : cuarch::nvrtc_compiles(r.targets)) {
      std::string line;
      for (const auto& opt : c.options) line += (line.empty() ? "" : " ") + opt;
      fmt::print("{}\n", line);
    }
    return exit_ok;
  }
  const auto spelled = o.format == "cmake" ? cuarch::cmake_architectures(r.targets) : cuarch::torch_cuda_arch_list(r.targets);
  if (!spelled) {
    fmt::print(stderr, "cuarch resolve: {}\n", spelled.error().message());
    return exit_failed;
  }
  fmt::print("{}\n", *spelled);
  return exit_ok;
}

// The sources, behind one type each, so the command instantiates resolution twice (with and
// without a driver) instead of once per combination. no_driver stays its own type: it means "do
// not check PTX against a driver", which an erased source that fails could not express.
struct cli_compiler {
  std::function<cuarch::expected<cuarch::compiler_info, cuarch::error>()> get;
  cuarch::expected<cuarch::compiler_info, cuarch::error> compiler() const { return get(); }
};
struct cli_devices {
  std::function<cuarch::expected<std::vector<cuarch::device_info>, cuarch::error>()> get;
  cuarch::expected<std::vector<cuarch::device_info>, cuarch::error> devices() const { return get(); }
};
struct cli_driver {
  std::function<cuarch::expected<cuarch::observation, cuarch::error>()> get;
  cuarch::expected<cuarch::observation, cuarch::error> driver_version() const { return get(); }
};

template <class Driver>
int resolve_and_print(const options& o, const cuarch::arch_request& request, const cli_compiler& compiler,
                      const cli_devices& devices, const Driver& driver) {
  const auto info = compiler.compiler();
  if (!info) {
    fmt::print(stderr, "cuarch resolve: no compiler: {}\n", info.error().message());
    return exit_failed;
  }
  const auto r = cuarch::resolve_target_archs(request, *info, devices, o.policy, driver);
  if (!r) {
    if (o.format == "json") fmt::print("{}\n", cuarch::to_json(r.error()));
    fmt::print(stderr, "cuarch resolve: {}\n", r.error().message());
    return is_input_error(r.error().summary.code) ? exit_usage : exit_failed;
  }
  return print_result(o, *r, *info);
}

int run_resolve(arguments& args) {
  options o;
  if (const int bad = read_options(args, o)) return bad;
  cuarch::arch_request request;
  request.list = o.archs;
  request.dialect = o.dialect;
  request.overrides = o.env;

  // Devices are needed for native (and explicit lists under verify-devices); the driver is asked
  // for them only then, and only when --device-cc does not name them. The environment override is
  // read first, exactly as resolution reads it.
  const auto effective = cuarch::read_request(request);
  const auto parsed = cuarch::parse_arch_list(effective.list, effective.dialect);
  const bool needs_devices = o.policy.verify_on_devices || (parsed && parsed->keyword() == cuarch::arch_keyword::native);
  const bool ask_driver_for_devices = needs_devices && !o.detect.device_ccs;
  const bool detecting = !o.toolkit || ask_driver_for_devices || o.driver == driver_choice::detected;

  std::optional<cuarch::detection> found;
  if (detecting) {
    o.detect.query_devices = ask_driver_for_devices;
    found = cuarch::detect(o.detect);
  }
  cli_compiler compiler;
  if (o.toolkit) {
    const cuarch::fixed_compiler fixed = o.supported ? cuarch::fixed_compiler(*o.toolkit, *o.supported) : cuarch::fixed_compiler(*o.toolkit);
    compiler.get = [fixed] { return fixed.compiler(); };
  } else {
    const bool jit = o.compiler_role ? *o.compiler_role == "nvrtc" : o.format == "nvrtc";
    const cuarch::detection* d = &*found;
    if (jit) compiler.get = [d] { return cuarch::detected_jit_compiler{d}.compiler(); };
    else compiler.get = [d] { return cuarch::detected_offline_compiler{d}.compiler(); };
  }
  cli_devices devices;
  if (o.detect.device_ccs) {
    const cuarch::fixed_devices given(*o.detect.device_ccs);
    devices.get = [given] { return given.devices(); };
  } else if (found && ask_driver_for_devices) {
    const cuarch::detection* d = &*found;
    devices.get = [d] { return cuarch::detected_devices{d}.devices(); };
  } else {
    devices.get = [] { return cuarch::no_devices{}.devices(); };
  }
  switch (o.driver) {
    case driver_choice::given: {
      const cuarch::fixed_driver given(o.driver_version);
      return resolve_and_print(o, request, compiler, devices, cli_driver{[given] { return given.driver_version(); }});
    }
    case driver_choice::detected: {
      const cuarch::detection* d = &*found;
      return resolve_and_print(o, request, compiler, devices, cli_driver{[d] { return cuarch::detected_driver{d}.driver_version(); }});
    }
    case driver_choice::none: break;
  }
  return resolve_and_print(o, request, compiler, devices, cuarch::no_driver{});
}

const register_command registration{
    std::string(command_name), "resolve a request (a list, native, all) to targets for nvcc, NVRTC, CMake, PyTorch or JSON",
    help_text, run_resolve};

}  // namespace
