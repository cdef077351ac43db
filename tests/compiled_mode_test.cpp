// The two ways of building cuarch give the same answers: this file is built header-only (as every
// unit test, compiled_mode_test_cxx<std>) and against cuarch::compiled (compiled_mode_compiled_test,
// where detect(), the doctor and resolve_warnings() come from src/cuarch.cpp and this TU sees only
// their declarations). Each case asserts facts, not a comparison between the two builds, so either
// build fails on its own when its mode is broken.
#include <cuarch/detect.hpp>
#include <cuarch/resolve/json_documents.hpp>

#include <catch2/catch_test_macros.hpp>

#include <string>

#include "fixtures/fixture_support.hpp"

#if defined(CUARCH_COMPILED)
static_assert(CUARCH_DEFINITIONS == 0, "a TU of a compiled-mode program must not define the entry points");
constexpr bool compiled_mode = true;
#else
static_assert(CUARCH_DEFINITIONS == 1, "header-only mode defines the entry points in every TU");
constexpr bool compiled_mode = false;
#endif

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an NVRTC named and missing: the role fails with the path, the doctor and a resolve say so",
          "[compiled_mode]") {
  INFO("compiled mode: " << compiled_mode);
  auto options = cuarch_test::hermetic();
  options.nvrtc_path = "/nonexistent/cuarch-compiled-mode/libnvrtc.so.13";
  options.roles = cuarch::detect_role::jit_compiler;
  options.mode = cuarch::detect_mode::first_answer;
  const cuarch::detection d = cuarch::detect(options);

  CHECK(d.jit_compiler.given_and_failed);
  REQUIRE(d.jit_compiler.failure);
  CHECK(d.jit_compiler.failure->code == cuarch::errc::library_not_found);
  CHECK_FALSE(d.offline_compiler.asked);

  const auto findings = cuarch::find_disagreements(d);
  CHECK(contains(cuarch::render_text(d, findings), options.nvrtc_path));
  const std::string json = cuarch::render_json(d, findings);
  CHECK(json.rfind("{\"schema\":\"cuarch.doctor/1\"", 0) == 0);
  CHECK(contains(json, options.nvrtc_path));

  cuarch::arch_request request{"9.0"};
  request.overrides = cuarch::env_override::none;
  auto r = cuarch::resolve_target_archs(request, cuarch::detected_jit_compiler{&d}, cuarch::fixed_devices({{9, 0}}));
  REQUIRE_FALSE(r);
  CHECK(r.error().summary.code == cuarch::errc::library_not_found);
  CHECK(contains(r.error().message(), options.nvrtc_path));
  CHECK(cuarch::resolve_warnings(d, cuarch::source_kind::nvrtc).empty());
}

TEST_CASE("the local toolkit's NVRTC: detected, explained when it cannot build, no disagreement",
          "[compiled_mode][real]") {
  const std::string nvrtc = cuarch_test::local_nvrtc();
  if (nvrtc.empty()) SKIP("no local CUDA toolkit with NVRTC (CUARCH_LOCAL_CUDA, /usr/local/cuda)");
  auto options = cuarch_test::hermetic();
  options.nvrtc_path = nvrtc;
  options.roles = cuarch::detect_role::jit_compiler;
  options.mode = cuarch::detect_mode::first_answer;
  const cuarch::detection d = cuarch::detect(options);

  REQUIRE(d.chosen(d.jit_compiler) != nullptr);
  const auto compiler = d.compiler_of(d.jit_compiler);
  REQUIRE(compiler);
  CHECK(compiler->kind == cuarch::source_kind::nvrtc);
  CHECK(compiler->version.major >= 11);

  cuarch::arch_request request{"9.0a"};
  request.overrides = cuarch::env_override::none;
  const auto devices = cuarch::fixed_devices({{9, 0}});
  auto ok = cuarch::resolve_target_archs(request, cuarch::detected_jit_compiler{&d}, devices);
  REQUIRE(ok);
  CHECK(ok->targets.size() == 1);
  CHECK(cuarch::resolve_warnings(d, cuarch::source_kind::nvrtc, &ok->targets).empty());

  // sm_35 left NVRTC long ago (CUDA 12.0): the failure names the NVRTC that decided and how it
  // was found, which explain_failure() adds from the detection.
  cuarch::arch_request old{"3.5"};
  old.overrides = cuarch::env_override::none;
  auto failed = cuarch::resolve_target_archs(old, cuarch::detected_jit_compiler{&d}, devices);
  REQUIRE_FALSE(failed);
  cuarch::resolve_outcome out;
  out.result = failed;
  cuarch::explain_failure(out, d, options, /*jit=*/true, *cuarch::read_and_parse(old), devices,
                          cuarch::resolve_policy{}, cuarch::no_driver{});
  REQUIRE(out.compiler);
  CHECK(out.compiler->path == nvrtc);
  CHECK(contains(out.compiler->found, "given explicitly"));
  CHECK(contains(out.message(), "decided by: NVRTC"));
}

TEST_CASE("the resolutions the compiled library instantiates, and its writers, answer as header-only",
          "[compiled_mode]") {
  INFO("compiled mode: " << compiled_mode);
  cuarch::arch_request request{"8.0;9.0a;12.0+PTX"};
  request.overrides = cuarch::env_override::none;
  cuarch::compiler_info cuda13;
  cuda13.kind = cuarch::source_kind::knowledge_table;
  cuda13.version = cuarch::cuda_version{13, 0};

  // fixed_compiler and a compiler by value, with the default sources and policy.
  const auto by_source = cuarch::resolve_target_archs(request, cuarch::fixed_compiler(cuarch::cuda_version{13, 0}));
  const auto by_value = cuarch::resolve_target_archs(request, cuda13);
  REQUIRE(by_source);
  REQUIRE(by_value);
  const std::string flags =
      "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_120,code=sm_120 "
      "-gencode=arch=compute_120,code=compute_120";
  CHECK(cuarch::nvcc_flags(by_source->targets) == flags);
  CHECK(cuarch::nvcc_flags(by_value->targets) == flags);
  CHECK(cuarch::cmake_architectures(by_value->targets).value() == "80-real;90a-real;120");
  CHECK(cuarch::to_json(*by_value).rfind("{\"schema\":\"cuarch.resolve/1\"", 0) == 0);
  CHECK(cuarch::jit_cache_digest(cuarch::jit_cache_key(cuda13, by_value->targets)).size() == 16);

  // Sources other than the defaults, instantiated in this TU in either mode.
  const cuarch::fixed_devices devices({{9, 0}});
  const cuarch::no_driver driver;
  cuarch::arch_request native{"native"};
  native.overrides = cuarch::env_override::none;
  const auto native_set = cuarch::resolve_target_archs(native, cuda13, devices, cuarch::resolve_policy{}, driver);
  REQUIRE(native_set);
  CHECK(cuarch::nvcc_flags(native_set->targets) == "-gencode=arch=compute_90a,code=sm_90a");  // native prefers 9.0a

  // A failure's message, and the JSON documents of `cuarch list` and `cuarch check`.
  cuarch::arch_request old{"3.5"};
  old.overrides = cuarch::env_override::none;
  const auto failed = cuarch::resolve_target_archs(old, cuda13);
  REQUIRE_FALSE(failed);
  CHECK(contains(failed.error().message(), "sm_35 was removed in CUDA 12.0"));
  CHECK(cuarch::to_json(failed.error()).rfind("{\"schema\":\"cuarch.resolve/1\"", 0) == 0);
  CHECK(cuarch::list_json(cuarch::cuda_version{13, 0}).rfind("{\"schema\":\"cuarch.list/1\"", 0) == 0);
}
