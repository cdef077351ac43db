// The "used" TU of tests/scripts/header_warnings_test.sh: every public header included and the main
// entry points called (parse, resolve with fixed sources, every output, detect() and the doctor in
// header-only mode, fmt formatting), so that warnings which need code generated from cuarch's inline
// functions (GCC's -Wrestrict, -Wstringop-*, -Wmaybe-uninitialized at -O2/-O3) have code to fire in.
// Compiled with -c only (never linked or run): the script builds it for every compiler, -O level and
// standard with -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror.
#include "all_headers.hpp"

// No helper macro of cuarch's own is left defined in a user's code (compute_capability.hpp's was).
#ifdef CUARCH_DETAIL_ORDERED
#  error "CUARCH_DETAIL_ORDERED leaks out of cuarch's headers"
#endif

#include <cstdio>
#include <string>
#include <vector>

namespace {

int parse_and_check() {
  int failures = 0;
  const auto list = cuarch::parse_arch_list("8.0;9.0a;12.0+PTX;sm_100f;compute_90a");
  if (!list) return 1;
  for (const auto& p : *list)
    std::printf("%s %s\n", cuarch::gencode_flag(p.target).str().c_str(), cuarch::dotted(p.target).str().c_str());
  const auto bad = cuarch::parse_arch_list("8.0;sm_12x");
  if (!bad) std::printf("%s\n", bad.error().message().c_str());
  const auto one = cuarch::parse_arch("sm_120a");
  if (one) {
    const auto why = cuarch::check_buildable(*one, cuarch::cuda_version{12, 4});
    if (!why) std::printf("%s\n", why.error().message().c_str());
  }
  const auto cc = cuarch::parse_compute_capability("9.0");
  const auto version = cuarch::parse_cuda_version("12.8");
  if (!cc || !version) ++failures;
  return failures;
}

void print_outputs(const cuarch::target_set& targets, const cuarch::resolution& r,
                   const cuarch::compiler_info& compiler) {
  for (const auto& flag : cuarch::nvcc_gencode_flags(targets)) std::printf("%s\n", flag.c_str());
  std::printf("%s\n", cuarch::nvcc_flags(targets).c_str());
  for (const auto& c : cuarch::nvrtc_compiles(targets))
    for (const auto& option : c.options) std::printf("%s\n", option.c_str());
  if (const auto cmake = cuarch::cmake_architectures(targets)) std::printf("%s\n", cmake->c_str());
  if (const auto torch = cuarch::torch_cuda_arch_list(targets)) std::printf("%s\n", torch->c_str());
  const std::string key = cuarch::jit_cache_key(compiler, targets);
  std::printf("%s %s\n", key.c_str(), cuarch::jit_cache_digest(key).c_str());
  std::printf("%s\n", cuarch::to_json(r, &compiler).c_str());
#if CUARCH_WARN_FMT
  std::printf("%s %s\n", fmt::format("{}", targets.front()).c_str(),
              fmt::format("{:>9}", cuarch::cuda_version{12, 8}).c_str());
#endif
}

int resolve_fixed() {
  cuarch::arch_request request{"native;8.0+PTX"};
  request.overrides = cuarch::env_override::none;
  const cuarch::fixed_compiler compiler(cuarch::cuda_version{12, 8});
  const auto r = cuarch::resolve_target_archs(request, compiler, cuarch::fixed_devices{{9, 0}, {12, 0}},
                                              cuarch::best_effort_policy{},
                                              cuarch::fixed_driver(cuarch::cuda_version{13, 0}));
  if (!r) {
    std::printf("%s\n", cuarch::to_json(r.error()).c_str());
    return 1;
  }
  print_outputs(r->targets, *r, *compiler.compiler());
  cuarch::arch_request jit{"all-major"};
  jit.overrides = cuarch::env_override::none;
  const auto j = cuarch::resolve_target_archs(
      jit, cuarch::fixed_compiler(cuarch::cuda_version{13, 0}, {75, 80, 90, 100, 120}), cuarch::no_devices{},
      cuarch::jit_policy{});
  return j ? 0 : 1;
}

int visible_devices() {
  std::vector<cuarch::enumerated_gpu> gpus(2);
  gpus[0].uuid = "GPU-aaaa1111-0000-0000-0000-000000000000";
  gpus[0].cc_major = 9;
  gpus[1].uuid = "GPU-aaaa2222-0000-0000-0000-000000000000";
  gpus[1].cc_major = 12;
  const auto order = cuarch::parse_cuda_device_order(std::string("PCI_BUS_ID"));
  const auto vis = cuarch::apply_cuda_visible_devices(gpus, std::string("1,GPU-aaaa1,-1"), order);
  return static_cast<int>(vis.devices.size());
}

int detect_and_report() {
  cuarch::detect_options options;
  options.device_ccs = std::vector<cuarch::compute_capability>{{9, 0}};
  const cuarch::detection found = cuarch::detect(options);
  const auto findings = cuarch::find_disagreements(found);
  std::printf("%s\n%s\n", cuarch::render_text(found, findings).c_str(), cuarch::render_json(found, findings).c_str());

  // The front door, every option read from text as the command line reads its flags.
  cuarch::resolve_options request;
  if (cuarch::set_option(request, cuarch::option_name::archs, "native") ||
      cuarch::set_option(request, cuarch::option_name::devices, "9.0"))
    return 1;
  request.env = cuarch::env_override::none;
  const cuarch::resolve_outcome resolved = cuarch::resolve_here(request);
  for (const auto& note : resolved.notes) std::printf("%s\n", note.c_str());
  for (const auto& w : resolved.warnings) std::printf("%s: %s\n", w.what.c_str(), w.meaning.c_str());
  // The README's way: fields assigned directly (GCC 12 once warned -Wmaybe-uninitialized at -O2 on
  // an std::optional<std::string> assigned a literal, in the caller's code).
  cuarch::resolve_options readme;
  readme.archs = "9.0a;12.0";
  readme.toolkit = cuarch::cuda_version{13, 0};
  const cuarch::resolve_outcome by_fields = cuarch::resolve_here(readme);
  return resolved.exit_status() + by_fields.exit_status();
}

/// Every public parser with short literals, the tests' edge cases among them: at -O3 g++ 12 may
/// inline a parser into its caller and then warn about the literal's bounds (-Warray-bounds) in the
/// user's build, where the header's own functions alone give it nothing to see. (Issue 34: "580"
/// through parse_driver_version tripped it in read_uint, in a Catch2 test built at Release; this TU
/// did not reproduce that one, whose inlining Catch2's macros decided.)
int parse_every_spelling() {
  int n = 0;
  for (const char* s : {"", "5", "580", "580.", "9.0", "12.8", "580.65.06", "V13.0.88", "1234567890", "12.4.127.1"}) {
    n += cuarch::parse_cuda_version(s).has_value() + cuarch::parse_driver_version(s).has_value() +
         cuarch::parse_ptx_isa_version(s).has_value() + cuarch::parse_compute_capability(s).has_value() +
         cuarch::parse_nvcc_version_output(s).has_value() + cuarch::parse_device_list(s).has_value();
  }
  n += cuarch::parse_driver_version("580").has_value() + cuarch::parse_driver_version("").has_value();
  n += cuarch::parse_cuda_version("9").has_value() + cuarch::parse_compute_capability("9").has_value();
  for (const char* s : {"", "s", "sm_", "sm_9", "90", "9.0a", "sm_100f", "compute_90a", "12.0+PTX", "8.0;9.0 12.0"}) {
    n += cuarch::parse_arch(s).has_value() + cuarch::parse_arch_list(s).has_value() +
         cuarch::parse_arch_list(s, cuarch::arch_dialect::torch).has_value() +
         cuarch::parse_arch_list(s, cuarch::arch_dialect::cmake).has_value() +
         cuarch::parse_arch_list(s, cuarch::arch_dialect::nvcc).has_value() +
         cuarch::parse_arch_variant(s).has_value() + cuarch::parse_arch_dialect(s).has_value() +
         cuarch::parse_output_format(s).has_value() + cuarch::parse_policy_name(s).has_value() +
         cuarch::parse_env_override(s).has_value() + cuarch::parse_native_variant_spec(s).has_value();
  }
  n += cuarch::decode_cudart_version(13000).has_value() + cuarch::decode_nvrtc_version(13, 0).has_value() +
       cuarch::decode_sm_number(90).has_value() + cuarch::decode_cuda_arch_macro(900).has_value();
  return n > 1000 ? 1 : 0;
}

}  // namespace

int main() {
  return parse_and_check() + resolve_fixed() + visible_devices() + detect_and_report() + parse_every_spelling();
}
