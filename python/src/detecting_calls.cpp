// cuarch.resolve() and cuarch.doctor(): the calls that may detect compilers, drivers and devices.
// The option mapping follows tools/cuarch/cmd_resolve.cpp and tools/cuarch/detection_options.hpp,
// so the module and the command line answer the same request the same way; only the spelling of
// the options differs (keyword arguments instead of flags).
#include <cuarch/detect.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calls.hpp"

namespace cuarch_python {
namespace {

/// A failure before or during resolution, as the library's failure document.
outcome failed(const cuarch::resolution_failure& f, std::string prefix = {}) {
  outcome o;
  o.kind = outcome::failed;
  o.json = cuarch::to_json(f);
  o.code = code_name(f.summary.code);
  o.input_error = is_input_error(f.summary.code);
  o.message = std::move(prefix) + f.message();
  return o;
}
outcome failed(const cuarch::error& e, std::string prefix = {}) {
  return failed(cuarch::resolution_failure{e, {}}, std::move(prefix));
}

/// Paths and devices shared by resolve() and doctor(); false with `problem` set on a usage error.
struct detection_choice {
  bool compiler_options = false;
  std::optional<outcome> problem;
};
detection_choice take_detection_options(const std::optional<std::string>& nvrtc, const std::optional<std::string>& nvcc,
                                        const std::optional<std::string>& cuda_home, const std::optional<std::string>& devices,
                                        cuarch::detect_options& opts) {
  detection_choice c;
  auto path = [&](const std::optional<std::string>& given, std::string& into) {
    if (!given) return;
    into = *given;
    c.compiler_options = true;
  };
  path(cuda_home, opts.cuda_home);
  path(nvrtc, opts.nvrtc_path);
  path(nvcc, opts.nvcc_path);
  if (devices) {
    auto list = cuarch::parse_device_list(*devices);
    if (!list) {
      c.problem = failed(list.error(), "devices: ");
      return c;
    }
    opts.device_ccs = std::move(*list);
  }
  return c;
}

enum class driver_choice { none, given, detected };

}  // namespace

outcome resolve(const resolve_args& a) {
  cuarch::arch_request request;
  request.list = a.archs;  // a.archs outlives the call: the request keeps a view of it
  // Every name is read by the library's own name maps, as the command line reads its flags.
  const auto dialect = cuarch::parse_arch_dialect(a.dialect);
  if (!dialect) return usage("dialect must be one of " + names_of(cuarch::all_arch_dialects) + ", not '" + a.dialect + "'");
  request.dialect = *dialect;
  request.overrides = cuarch::env_override::none;
  for (const auto& name : a.env) {
    const auto one = cuarch::parse_env_override(name);
    if (!one) return usage("env takes " + names_of(cuarch::all_env_overrides) + ", not '" + name + "'");
    request.overrides = request.overrides | *one;
  }
  // As on the command line: explicit archs beat the environment unless env says otherwise, and a
  // variable that is set but ignored is named (a CuarchWarning), never ignored silently.
  std::string ignored;
  if (a.archs_given && !a.env_given) {
    for (const auto one : cuarch::all_env_overrides) {
      if (one == cuarch::env_override::none || !cuarch::has_override(request.overrides, one)) continue;
      cuarch::arch_request probe = request;
      probe.overrides = one;
      const auto seen = cuarch::read_request(probe);
      if (seen.origin.source == cuarch::source_kind::environment)
        ignored += std::string(ignored.empty() ? "" : "; ") + "archs given; ignoring " + std::string(seen.origin.variable) + "=" +
                   std::string(seen.list) + " (env=(\"" + std::string(cuarch::to_string(one)) + "\",) lets it override)";
    }
    request.overrides = cuarch::env_override::none;
  }

  cuarch::resolve_policy policy;
  for (const auto& name : a.policy) {
    const auto p = cuarch::parse_policy_name(name);
    if (!p) return usage("policy takes " + names_of(cuarch::all_policy_names) + ", not '" + name + "'");
    cuarch::apply_policy(*p, policy);
  }
  if (a.native_variant) {
    const auto spec = cuarch::parse_native_variant_spec(*a.native_variant);
    if (!spec) return usage("native_variant: " + spec.error().message());
    policy.native_preferences = *spec;
  }
  // The compile path, as on the command line: compiler=, else the one compiler path named, else nvcc
  // (the offline path a build, e.g. a PyTorch extension, uses). JIT callers pass compiler="nvrtc".
  const bool nvrtc_named = a.nvrtc.has_value(), nvcc_named = a.nvcc.has_value();
  bool jit = false;
  if (a.compiler) {
    const auto kind = cuarch::parse_source_kind(*a.compiler);
    if (!kind || (*kind != cuarch::source_kind::nvcc && *kind != cuarch::source_kind::nvrtc))
      return usage("compiler must be 'nvcc' or 'nvrtc', not '" + *a.compiler + "'");
    jit = *kind == cuarch::source_kind::nvrtc;
    if (jit && nvcc_named && !nvrtc_named) return usage("compiler='nvrtc' does not use the nvcc that nvcc= names");
    if (!jit && nvrtc_named && !nvcc_named) return usage("compiler='nvcc' does not use the NVRTC that nvrtc= names");
  } else if (nvrtc_named && nvcc_named) {
    return usage("nvrtc= and nvcc= both name a compiler: say which one compiles with compiler='nvrtc' or 'nvcc'");
  } else {
    jit = nvrtc_named;
  }

  cuarch::detect_options detect_opts;
  const auto chosen = take_detection_options(a.nvrtc, a.nvcc, a.cuda_home, a.devices, detect_opts);
  if (chosen.problem) return *chosen.problem;
  if (a.toolkit && (chosen.compiler_options || a.compiler))
    return usage("toolkit names the compiler; compiler/nvcc/nvrtc/cuda_home detect one: use one or the other");

  std::optional<cuarch::cuda_version> toolkit;
  if (a.toolkit) {
    const auto v = cuarch::parse_cuda_version(*a.toolkit);
    if (!v) return failed(v.error(), "toolkit: ");
    toolkit = *v;
  }
  driver_choice driver = driver_choice::none;
  cuarch::cuda_version driver_version{};
  if (a.driver) {
    if (*a.driver == "detected") {
      driver = driver_choice::detected;
    } else {
      const auto v = cuarch::parse_cuda_version(*a.driver);
      if (!v) return failed(v.error(), "driver (a CUDA version or 'detected'): ");
      driver = driver_choice::given;
      driver_version = *v;
    }
  }

  // Devices are asked for only when the request needs them (native, or verify-devices) and the
  // caller did not name them; the environment override is read first, as resolution reads it.
  // A malformed request ends here, as a ResolveInputError: nothing is detected, loaded or run.
  const auto effective = cuarch::read_request(request);
  const auto parsed = cuarch::parse_request(effective);
  if (!parsed) return failed(parsed.error());
  const bool needs_devices = policy.verify_on_devices || parsed->keyword() == cuarch::arch_keyword::native;
  const bool ask_driver_for_devices = needs_devices && !detect_opts.device_ccs;
  const bool detecting = !toolkit || ask_driver_for_devices || driver == driver_choice::detected;

  std::optional<cuarch::detection> found;
  if (detecting) {
    // Only the roles this request needs, each stopped at the candidate that governs it (as
    // `cuarch resolve` asks): nothing else is loaded or run in the caller's process.
    cuarch::role_set roles;
    if (!toolkit) roles = roles | (jit ? cuarch::detect_role::jit_compiler : cuarch::detect_role::offline_compiler);
    if (ask_driver_for_devices) roles = roles | cuarch::detect_role::devices;
    if (driver == driver_choice::detected) roles = roles | cuarch::detect_role::driver;
    detect_opts.roles = roles;
    detect_opts.mode = cuarch::detect_mode::first_answer;
    detect_opts.query_devices = ask_driver_for_devices;
    found = cuarch::detect(detect_opts);
  }

  outcome result;
  result.note = ignored;
  // Devices read through cuInit (NVML could not answer) are said: a process that forks workers
  // afterwards cannot use CUDA in them (CuarchWarning).
  if (found)
    for (const auto& n : found->devices_notes) result.note += (result.note.empty() ? "" : "; ") + n;
  // The sources go behind the library's type-erased adaptors (resolve/source_contract.hpp), as in
  // the command line: one resolution instantiation; an erased no_driver still means "no PTX check".
  const cuarch::detection* d = found ? &*found : nullptr;
  const cuarch::selection* role = nullptr;
  if (toolkit) {
    result.compiler_how = std::string(cuarch::to_string(cuarch::discovery::explicit_argument));
    result.compiler_origin = "toolkit=" + *a.toolkit;
    result.compiler_why = "given by the caller; judged by cuarch's table";
  } else {
    role = jit ? &d->jit_compiler : &d->offline_compiler;
    if (const cuarch::candidate* c = d->chosen(*role)) {
      result.compiler_how = std::string(cuarch::to_string(c->how));
      result.compiler_origin = c->origin;
    }
    result.compiler_why = role->why;
  }
  const cuarch::any_compiler_source compiler = [&]() -> cuarch::any_compiler_source {
    if (toolkit) return cuarch::fixed_compiler(*toolkit);
    if (jit) return cuarch::detected_jit_compiler{d};
    return cuarch::detected_offline_compiler{d};
  }();
  const cuarch::any_device_source devices = [&]() -> cuarch::any_device_source {
    if (detect_opts.device_ccs) return cuarch::fixed_devices(*detect_opts.device_ccs);
    if (d && ask_driver_for_devices) return cuarch::detected_devices{d};
    return cuarch::no_devices{};
  }();
  const cuarch::any_driver_source driver_source = [&]() -> cuarch::any_driver_source {
    switch (driver) {
      case driver_choice::given: return cuarch::fixed_driver(driver_version);
      case driver_choice::detected: return cuarch::detected_driver{d};
      case driver_choice::none: break;
    }
    return cuarch::no_driver{};
  }();

  const auto info = compiler.compiler();
  if (!info) {
    cuarch::resolution_failure f{info.error(), {}};
    // Where detection looked, and what else would have worked: the same explanation as the CLI's.
    if (d && !toolkit) cuarch::explain_failure_fully(f, *d, detect_opts, jit, request, devices, policy, driver_source);
    return failed(f, jit ? "no NVRTC for the JIT path: " : "no nvcc for the offline path: ");
  }
  cuarch::resolve_result r = cuarch::resolve_target_archs(request, *info, devices, policy, driver_source);
  // Only a detected compiler has a "who decided" and alternatives; toolkit= named the compiler.
  if (!r && d && !toolkit) cuarch::explain_failure_fully(r.error(), *d, detect_opts, jit, request, devices, policy, driver_source);
  if (!r) {
    // The library's message names the rule that refused; say which compiler it was judged against
    // (a loaded NVRTC, a given version) and how that compiler was found.
    std::string against = "resolved against " + std::string(cuarch::to_string(info->kind)) + " " +
                          std::string(cuarch::to_text(info->version).view());
    if (!info->location.empty()) against += " at " + info->location;
    against += " (" + result.compiler_how + "): ";
    return failed(r.error(), std::move(against));
  }
  result.json = cuarch::to_json(*r, &*info);
  return result;
}

outcome doctor(const doctor_args& a) {
  cuarch::detect_options opts;
  opts.probe_ptxas = true;  // as `cuarch doctor`
  opts.query_devices = a.query_devices;
  const auto chosen = take_detection_options(a.nvrtc, a.nvcc, a.cuda_home, a.devices, opts);
  if (chosen.problem) return *chosen.problem;
  if (a.isolated) {  // only what the arguments and CUARCH_* variables name (the doctor's --isolated)
    opts.already_loaded = false;
    opts.loader_search = false;
    opts.path_search = false;
    opts.default_locations = false;
  }
  const cuarch::detection found = cuarch::detect(opts);
  outcome o;
  o.json = cuarch::render_json(found, cuarch::find_disagreements(found));
  return o;
}

}  // namespace cuarch_python
