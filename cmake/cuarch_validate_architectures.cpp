// Configure-time checker behind cuarch_validate_cuda_architectures() (cmake/cuarchCudaArchitectures.cmake):
//   cuarch_validate_architectures <CUDA version> <CUDA_ARCHITECTURES entry>...
// Prints one line per target; exit 0 all buildable, 1 some not, 2 malformed input.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/core/parse.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <CUDA version> <CUDA_ARCHITECTURES entry>...\n", argv[0]);
    return 2;
  }
  std::string entries;  // CMake passes one argument per list entry; rejoin them as the CMake list
  for (int i = 2; i < argc; ++i) entries += (i > 2 ? ";" : "") + std::string(argv[i]);
  const auto version = cuarch::parse_cuda_version(argv[1]);
  if (!version) {
    std::printf("%s\n", version.error().message().c_str());
    return 2;
  }
  const auto list = cuarch::parse_arch_list(entries, cuarch::arch_dialect::cmake);
  if (!list) {
    std::printf("CUDA_ARCHITECTURES: %s\n", list.error().message().c_str());
    return 2;
  }
  if (list->keyword() != cuarch::arch_keyword::none) {
    std::printf("%s: resolved by CMake itself\n", entries.c_str());
    return 0;
  }
  int failed = 0;
  for (const auto& p : *list) {
    const auto ok = cuarch::check_buildable(p.target, *version);
    if (ok) continue;
    ++failed;
    std::printf("%s\n", ok.error().message().c_str());
  }
  return failed == 0 ? 0 : 1;
}
