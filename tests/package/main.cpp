// Package consumer test: the umbrella header compiles in a plain C++17 consumer that links only
// cuarch::cuarch (no fmt, no CUDA), and the header's version agrees with the package's.
#include <cuarch/cuarch.hpp>

#include <cstdio>

int main() {
  std::printf("cuarch %d.%d.%d\n", CUARCH_VERSION_MAJOR, CUARCH_VERSION_MINOR, CUARCH_VERSION_PATCH);
#if defined(CUARCH_PACKAGE_VERSION_MAJOR)
  if (CUARCH_VERSION_MAJOR != CUARCH_PACKAGE_VERSION_MAJOR || CUARCH_VERSION_MINOR != CUARCH_PACKAGE_VERSION_MINOR ||
      CUARCH_VERSION_PATCH != CUARCH_PACKAGE_VERSION_PATCH) {
    std::printf("version.hpp and the package version disagree\n");
    return 1;
  }
#endif
  return 0;
}
