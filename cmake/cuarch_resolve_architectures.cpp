// Configure-time helper behind cuarch_resolve_cuda_architectures() (cmake/cuarchCudaArchitectures.cmake).
// Built from cuarch's headers alone (no fmt, no CLI11), so it works from find_package,
// add_subdirectory and FetchContent before anything is built.
//   cuarch_resolve_architectures <request> <device ccs or -> <nvcc path or -> <how nvcc was chosen>
//                                <policies or -> <native variant or ->
// Prints `key=value` lines for the CMake function to read:
//   architectures=<CUDA_ARCHITECTURES value>      (on success)
//   compiler=nvcc 13.0.88 at /usr/local/cuda-13.0/bin/nvcc (CMAKE_CUDA_COMPILER)
//   note=<one line per request: kept / transformed / rejected, and why>
//   error=<the failure, naming the compiler that decided and the fix>
// Exit: 0 resolved, 1 resolution failed, 2 bad input.
#include <cuarch/cuarch.hpp>
#include <cuarch/detect.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

void print_line(std::string_view key, std::string_view value) {
  std::string line(key);
  line += '=';
  for (const char c : value) line += (c == '\n' || c == '\r') ? ' ' : c;  // one CMake-readable line each
  std::printf("%s\n", line.c_str());
}

std::string describe(const cuarch::compiler_info& c, std::string_view how) {
  std::string s(to_string(c.kind));
  s.append(" ").append(cuarch::to_text(c.version).view()).append(" at ").append(c.location);
  if (!how.empty()) s.append(" (").append(how).append(")");
  return s;
}

int fail(std::string_view message, int status) {
  print_line("error", message);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s <request> <device ccs|-> <nvcc|-> <how> <policies|-> <native variant|->\n", argv[0]);
    return 2;
  }
  const std::string request_text = argv[1], device_text = argv[2], nvcc = argv[3], how = argv[4];
  const std::string policy_text = argv[5], variant_text = argv[6];

  // The request first: a malformed list is refused before any compiler is run.
  cuarch::arch_request request;
  request.list = request_text;
  request.dialect = cuarch::arch_dialect::cmake;
  request.overrides = cuarch::env_override::none;  // CMake passes what the project asked for
  if (const auto parsed = cuarch::parse_arch_list(request_text, cuarch::arch_dialect::cmake); !parsed)
    return fail("REQUEST '" + request_text + "': " + parsed.error().message(), 2);

  cuarch::resolve_policy policy;
  if (policy_text != "-") {
    if (const auto bad = cuarch::apply_policy_list(policy_text, policy)) {
      std::string names;
      for (const auto p : cuarch::all_policy_names) names.append(names.empty() ? "" : ", ").append(cuarch::to_string(p));
      return fail("POLICY '" + std::string(*bad) + "' is not a policy (" + names + ")", 2);
    }
  }
  if (variant_text != "-") {  // the same grammar as --native-variant: "a", "f,a,baseline", "12.0=f,default=a"
    const auto spec = cuarch::parse_native_variant_spec(variant_text);
    if (!spec) return fail("NATIVE_VARIANT '" + variant_text + "': " + spec.error().message(), 2);
    policy.native_preferences = *spec;
  }

  // The compiler that will build: the nvcc CMake would use, else cuarch's discovery of nvcc.
  cuarch::detect_options options;
  options.mode = cuarch::detect_mode::first_answer;
  options.roles = cuarch::detect_role::offline_compiler;
  if (nvcc != "-") options.nvcc_path = nvcc;
  const bool want_devices = device_text == "-";
  if (want_devices) options.roles = options.roles | cuarch::detect_role::devices;
  if (!want_devices) {
    const auto ccs = cuarch::parse_device_list(device_text);
    if (!ccs) return fail("DEVICE_CC '" + device_text + "': " + ccs.error().message(), 2);
    options.device_ccs = *ccs;
  }
  const cuarch::detection found = cuarch::detect(options);
  const auto compiler = cuarch::detected_offline_compiler{&found}.compiler();
  if (!compiler) return fail("no nvcc to decide with: " + compiler.error().message(), 1);
  const std::string how_found = nvcc != "-" ? how : found.offline_compiler.why;
  print_line("compiler", describe(*compiler, how_found));

  const auto result = cuarch::resolve_target_archs(request, *compiler, cuarch::detected_devices{&found}, policy);
  if (!result) {
    for (const auto& d : result.error().diagnostics) print_line("note", d.message());
    return fail(result.error().summary.message() + " (decided by " + describe(*compiler, how_found) + ")", 1);
  }
  for (const auto& d : result->diagnostics) print_line("note", d.message());
  const auto cmake = cuarch::cmake_architectures(result->targets);
  if (!cmake) return fail(cmake.error().message(), 1);
  print_line("architectures", *cmake);
  return 0;
}
