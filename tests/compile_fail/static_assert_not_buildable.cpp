// Must not compile: CUDA 12.4 cannot build sm_120a, and the static_assert says so.
// cuarch-std: 17
// cuarch-expect-error: sm_120a needs CUDA 12.8
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/literals.hpp>
static_assert(cuarch::is_buildable(CUARCH_ARCH("sm_120a"), cuarch::cuda_version{12, 4}), "sm_120a needs CUDA 12.8");
int main() {}
