// One path of docs/performance.md, N times, for callgrind to count (instruction_counts.sh): counts
// are the same run after run on any load, where this machine's timings drift by a quarter. Built
// against two trees' headers, so the API used here is the one both have.
#include <cuarch/cuarch.hpp>
#include <cuarch/detect.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using namespace cuarch;

static volatile std::size_t sink;  // keeps each answer alive

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string path = argv[1];
  const int n = std::atoi(argv[2]);
  const std::vector<int> nvrtc_13_0 = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  const compiler_info table{source_kind::knowledge_table, {13, 0, -1}, "", std::nullopt};
  const compiler_info live{source_kind::nvrtc, {13, 0, 88}, "/usr/local/cuda/lib64/libnvrtc.so.13", nvrtc_13_0};
  const auto sm_90a = target_set::from({arch_target{{9, 0}, arch_variant::arch_specific, arch_form::sass}});
  arch_request r;
  r.list = "9.0a;10.0";
  r.overrides = env_override::none;
  detect_options jit;  // as a JIT library asks: its compiler, the first answer
  jit.roles = detect_role::jit_compiler;
  jit.mode = detect_mode::first_answer;
  for (int i = 0; i < n; ++i) {
    if (path == "resolve_table") sink = resolve_target_archs(r, table).has_value();
    else if (path == "resolve_live") sink = resolve_target_archs(r, live).has_value();
    else if (path == "cache_key") sink = jit_cache_key(live, *sm_90a).size();
    else if (path == "parse_torch")
      sink = parse_arch_list("7.5 8.0 8.6 9.0a 10.0 12.0+PTX", arch_dialect::torch).has_value();
    else if (path == "parse_generic")
      sink = parse_arch_list("7.5;8.0;8.6;9.0a;10.0;12.0;sm_90a", arch_dialect::generic).has_value();
    else if (path == "parse_nvcc")
      sink = parse_arch_list(
                 "-gencode=arch=compute_90a,code=sm_90a -arch=sm_100 -gencode arch=compute_120,code=[sm_120,compute_120]",
                 arch_dialect::nvcc)
                 .has_value();
    else if (path == "detect_every_role") sink = detect({}).candidates.size();
    else if (path == "detect_jit_role") sink = detect(jit).candidates.size();
    else return 2;
  }
  return 0;
}
