// Package consumer test of the compiled mode: a C++17 consumer linking cuarch::compiled includes
// <cuarch/detect.hpp>, sees only declarations of detect() and the doctor, and links them from the
// package's archive (src/cuarch.cpp). It looks nowhere but at a path that does not exist, so the
// answer is the same on every machine: the JIT role fails, naming that path.
#include <cuarch/detect.hpp>

#include <cstdio>
#include <string>

#if CUARCH_DEFINITIONS
#  error "cuarch::compiled did not put this consumer in compiled mode (CUARCH_COMPILED)"
#endif

int main() {
  cuarch::detect_options o;
  o.env = cuarch::environment{};
  o.already_loaded = o.loader_search = o.path_search = o.default_locations = false;
  o.nvrtc_path = "/nonexistent/cuarch-package-test/libnvrtc.so.13";
  o.roles = cuarch::detect_role::jit_compiler;
  const cuarch::detection d = cuarch::detect(o);
  const std::string text = cuarch::render_text(d, cuarch::find_disagreements(d));
  if (!d.jit_compiler.given_and_failed || text.find(o.nvrtc_path) == std::string::npos) {
    std::printf("compiled mode: unexpected detection:\n%s\n", text.c_str());
    return 1;
  }
  std::printf("cuarch %d.%d.%d compiled mode: detect() and the doctor linked from the archive\n", CUARCH_VERSION_MAJOR,
              CUARCH_VERSION_MINOR, CUARCH_VERSION_PATCH);
  return 0;
}
