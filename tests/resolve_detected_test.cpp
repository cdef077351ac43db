// resolve_detected(): the whole resolution `cuarch resolve` and Python's resolve() make. What it
// promises beyond resolve_target_archs(): a malformed request detects nothing; a request that
// names its compiler and devices detects nothing either; a detected compiler's failure comes back
// explained (who decided, how it was found); its warnings ride with the answer.
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <string>

#include "fixtures/fixture_support.hpp"

namespace {

cuarch::arch_request request_of(const char* list) {
  cuarch::arch_request r{list};
  r.overrides = cuarch::env_override::none;
  return r;
}

}  // namespace

TEST_CASE("a malformed request is refused before anything is detected", "[resolve_detected]") {
  cuarch::detected_request q;
  q.request = request_of("9.0;sm_12x");
  q.detect = cuarch_test::hermetic();
  q.detect.nvcc_path = "/nonexistent/nvcc";  // would be a failure of its own, were it asked
  const auto done = cuarch::resolve_detected(q);
  CHECK(done.malformed);
  CHECK_FALSE(done.found);
  REQUIRE_FALSE(done.result);
  CHECK(cuarch::classify(done.result.error().summary.code).exit == cuarch::exit_class::bad_input);
}

TEST_CASE("a named toolkit and named devices: nothing is detected", "[resolve_detected]") {
  cuarch::detected_request q;
  q.request = request_of("native");
  q.toolkit = cuarch::cuda_version{13, 0};
  q.detect.device_ccs = std::vector<cuarch::compute_capability>{{12, 0}};
  const auto done = cuarch::resolve_detected(q);
  CHECK_FALSE(done.malformed);
  CHECK_FALSE(done.found);
  REQUIRE(done.result);
  CHECK(cuarch::nvcc_flags(done.result->targets) == "-gencode=arch=compute_120a,code=sm_120a");
  REQUIRE(done.compiler);
  CHECK(done.compiler->compiler.kind == cuarch::source_kind::knowledge_table);
  CHECK(done.compiler->found.empty());  // a release given by version was not found anywhere
}

TEST_CASE("a detected nvcc that cannot build the request: the failure names it and how it was found", "[resolve_detected]") {
  const std::string nvcc = cuarch_test::source_dir() + "/tests/fixtures/fake-nvcc/nvcc-12.8";
  cuarch::detected_request q;
  q.request = request_of("12.0f");
  q.detect = cuarch_test::hermetic();
  q.detect.nvcc_path = nvcc;
  q.detect.device_ccs = std::vector<cuarch::compute_capability>{{12, 0}};
  const auto done = cuarch::resolve_detected(q);
  REQUIRE(done.found);
  CHECK_FALSE(done.found->jit_compiler.asked);  // only the nvcc path's roles were asked
  REQUIRE(done.compiler);
  CHECK(done.compiler->compiler.version.minor == 8);
  CHECK(done.compiler->path == nvcc);  // the provenance a success document carries too
  CHECK(done.compiler->found.find("given explicitly") != std::string::npos);
  REQUIRE_FALSE(done.result);
  const auto& f = done.result.error();
  CHECK(f.summary.code == cuarch::errc::nothing_resolved);
  REQUIRE(f.compiler);
  CHECK(f.compiler->found.find("given explicitly") != std::string::npos);
  CHECK(f.message().find("sm_120f needs CUDA >= 12.9") != std::string::npos);
}

#ifdef CUARCH_CLI_PATH
TEST_CASE("`cuarch resolve` says when the devices were read through cuInit", "[resolve_detected][cli]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  // A stub libcuda named explicitly, with no NVML beside it: native reads its devices through
  // cuInit, and a process forked afterwards could not use CUDA. That must not be silent.
  const std::vector<std::string> argv{"/usr/bin/env",
                                      "-u",
                                      "CUARCH_ARCHS",
                                      "CUARCH_STUB_DEVICES=9.0",
                                      "CUARCH_STUB_DRIVER_VERSION=13000",
                                      "CUARCH_LIBCUDA=" + stubs.path + "/lib/libcuda.so.1",
                                      CUARCH_CLI_PATH,
                                      "resolve",
                                      "--archs",
                                      "native",
                                      "--toolkit",
                                      "13.0"};
  const auto r = cuarch::run_process(argv, cuarch::process_limits{});
  REQUIRE(r);
  INFO("stdout: " << r->out << "\nstderr: " << r->err);
  CHECK(r->exit_status == 0);
  CHECK(r->out == "-gencode=arch=compute_90a,code=sm_90a\n");
  CHECK(r->err.find("cuarch resolve: note:") != std::string::npos);
  CHECK(r->err.find("a process forked after this cannot use CUDA") != std::string::npos);
}
#endif
