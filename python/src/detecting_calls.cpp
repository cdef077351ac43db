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
  cuarch::driver_from driver = cuarch::driver_from::none;
  cuarch::cuda_version driver_version{};
  if (a.driver) {
    if (*a.driver == "detected") {
      driver = cuarch::driver_from::detected;
    } else {
      const auto v = cuarch::parse_cuda_version(*a.driver);
      if (!v) return failed(v.error(), "driver (a CUDA version or 'detected'): ");
      driver = cuarch::driver_from::given;
      driver_version = *v;
    }
  }

  // The whole resolution is the library's, as for `cuarch resolve` (doctor/resolve_detected.hpp): a
  // malformed request is refused (a ResolveInputError) before anything is detected, loaded or run;
  // detection asks only the roles this request needs; a failure comes back explained.
  cuarch::detected_request q;
  q.request = request;
  q.policy = policy;
  q.jit = jit;
  q.toolkit = toolkit;
  q.driver = driver;
  q.driver_version = driver_version;
  q.detect = std::move(detect_opts);
  q.detect.cuinit_fallback = a.cuinit_fallback;
  const cuarch::detected_resolution done = cuarch::resolve_detected(q);
  if (done.malformed) return failed(done.result.error());

  // What the command line prints as notes (an ignored variable; a toolkit root read other than
  // verbatim; devices read through cuInit: a process that forks workers afterwards cannot use CUDA
  // in them) is said, success or failure: cuarch/__init__.py raises it as a CuarchWarning.
  outcome result;
  result.note = ignored;
  for (const auto& n : done.notes) result.note += (result.note.empty() ? "" : "; ") + n;
  const cuarch::detection* d = done.found ? &*done.found : nullptr;
  if (toolkit) {
    result.compiler_how = std::string(cuarch::to_string(cuarch::discovery::explicit_argument));
    result.compiler_origin = "toolkit=" + *a.toolkit;
    result.compiler_why = "given by the caller; judged by cuarch's table";
  } else if (d) {
    const cuarch::selection& role = jit ? d->jit_compiler : d->offline_compiler;
    if (const cuarch::candidate* c = d->chosen(role)) {
      result.compiler_how = std::string(cuarch::to_string(c->how));
      result.compiler_origin = c->origin;
    }
    result.compiler_why = role.why;
  }
  if (!done.result) {
    outcome f;
    if (!done.compiler) {
      f = failed(done.result.error(), jit ? "no NVRTC for the JIT path: " : "no nvcc for the offline path: ");
    } else {
      // The library's message names the rule that refused; say first which compiler it was judged
      // against (a loaded NVRTC, a given version) and how that compiler was found.
      const cuarch::compiler_info& c = done.compiler->compiler;
      std::string against = "resolved against " + std::string(cuarch::to_string(c.kind)) + " " +
                            std::string(cuarch::to_text(c.version).view());
      if (!c.location.empty()) against += " at " + c.location;
      f = failed(done.result.error(), against + " (" + result.compiler_how + "): ");
    }
    f.note = std::move(result.note);  // said with the failure too (CuarchWarning)
    return f;
  }
  // The disagreements that bear on the answer travel in the document ("warnings"); cuarch/__init__.py
  // raises each as a CuarchWarning.
  result.json = cuarch::to_json(*done.result, *done.compiler, done.warnings);
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
