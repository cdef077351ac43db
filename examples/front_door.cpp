// The front door: one call resolves CUDA targets against this machine, the way `cuarch resolve`,
// Python's cuarch.resolve() and the CMake helper do. This is a JIT program's whole use of cuarch:
// the README shows these lines verbatim (tests/scripts/front_door_example_test.sh checks that, and
// runs this program in CI).
//
//   front_door                 native: the devices of this machine, judged by the NVRTC found here
//   front_door "9.0a;12.0"     a list (any spelling cuarch parses); no GPU needed
//
// Prints one line per NVRTC compile ("nvrtc --gpu-architecture=sm_90a"); exits 0, 1 (refused: the
// reason is on stderr) or 2 (malformed request), as `cuarch resolve` does.
#include <cuarch/detect.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  cuarch::resolve_options o;                 // every option with the CLI's default
  o.archs = argc > 1 ? argv[1] : "native";   // or "9.0a;12.0", "all"
  o.compiler = cuarch::compile_path::nvrtc;  // JIT: judged by the NVRTC that will compile
  // o.devices = std::vector<cuarch::compute_capability>{{12, 0}};  // a build machine without GPUs
  const cuarch::resolve_outcome r = cuarch::resolve_here(o);
  for (const auto& n : r.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s: %s\n", w.what.c_str(), w.meaning.c_str());
  if (!r.result) {
    std::fprintf(stderr, "%s\n", r.result.error().message().c_str());
    return r.exit_status();
  }
  for (const auto& c : cuarch::nvrtc_compiles(r.result->targets)) {  // one NVRTC compile per target
    std::printf("nvrtc");
    for (const auto& option : c.options) std::printf(" %s", option.c_str());
    std::printf("\n");
  }
  return r.exit_status();
}
