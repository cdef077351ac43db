// Must not compile: 'b' is not a suffix. Expected diagnostic names invalid_arch_literal_unknown_suffix.
// cuarch-std: 20
// cuarch-expect-error: invalid_arch_literal_unknown_suffix
#include <cuarch/core/literals.hpp>
using namespace cuarch::literals;
constexpr auto t = "compute_90b"_arch;
int main() { return t.cc.major; }
