// Must not compile (C++17 form): 12.0a+PTX is not one valid target.
// cuarch-std: 17
// cuarch-expect-error: invalid CUDA architecture: 12.0a\+PTX
#include <cuarch/core/literals.hpp>
constexpr auto t = CUARCH_ARCH("12.0a+PTX");
int main() { return t.cc.major; }
