// CUARCH_DEVICE_REQUIRE under the real NVRTC: a kernel that requires sm_90a or sm_100f compiles for
// targets that provide one of them and fails, with cuarch's message, for those that do not.
// Built and run by tests/scripts/device_require_test.sh (no GPU needed: NVRTC only compiles).
//   nvrtc_device_require <cuarch include dir>
#include <nvrtc.h>

#include <cstdio>
#include <string>

namespace {

const char* const kernel = R"(#include <cuarch/device.hpp>
CUARCH_DEVICE_REQUIRE("sm_90a", "sm_100f");
extern "C" __global__ void k(int* p) {
  CUARCH_DEVICE_REQUIRE("9.0a", "10.0f");
  *p = 1;
})";

const char* const typo = R"(#include <cuarch/device.hpp>
CUARCH_DEVICE_REQUIRE("sm_9x");
)";

/// Compiles `source` for `arch`; returns whether it compiled, and the log.
bool compile(const char* source, const std::string& arch, const std::string& include, std::string& log) {
  nvrtcProgram prog{};
  if (nvrtcCreateProgram(&prog, source, "kernel.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) return false;
  const std::string a = "--gpu-architecture=" + arch, i = "--include-path=" + include;
  const char* options[] = {a.c_str(), i.c_str()};
  const bool ok = nvrtcCompileProgram(prog, 2, options) == NVRTC_SUCCESS;
  std::size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  log.assign(size, '\0');
  if (size > 0) nvrtcGetProgramLog(prog, log.data());
  nvrtcDestroyProgram(&prog);
  return ok;
}

int failures = 0;

void expect(const char* source, const std::string& arch, const std::string& include, bool compiles,
            const std::string& message) {
  std::string log;
  const bool ok = compile(source, arch, include, log);
  const bool message_ok = message.empty() || log.find(message) != std::string::npos;
  if (ok == compiles && message_ok) {
    std::printf("ok: %s %s\n", arch.c_str(), compiles ? "compiles" : "refused with cuarch's message");
    return;
  }
  std::printf("FAIL: %s: expected %s%s%s; got %s, log:\n%s\n", arch.c_str(), compiles ? "success" : "failure",
              message.empty() ? "" : " with ", message.c_str(), ok ? "success" : "failure", log.c_str());
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nvrtc_device_require <cuarch include dir>\n");
    return 2;
  }
  const std::string include = argv[1];
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::printf("NVRTC %d.%d\n", major, minor);
  expect(kernel, "sm_90a", include, true, "");
  expect(kernel, "compute_90a", include, true, "");
  expect(kernel, "sm_100f", include, true, "");
  expect(kernel, "sm_103a", include, true, "");
  expect(kernel, "sm_90", include, false, "is not met by the target being built: __CUDA_ARCH__=900, baseline");
  expect(kernel, "sm_120f", include, false, "is not met by the target being built: __CUDA_ARCH__=1200, family-specific");
  expect(typo, "sm_90a", include, false, "CUARCH_DEVICE_REQUIRE(\"sm_9x\"): a spelling cannot be read");
  return failures == 0 ? 0 : 1;
}
