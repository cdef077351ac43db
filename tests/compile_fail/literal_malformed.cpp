// Must not compile: "sm_" is not a target.
// cuarch-std: 20
// cuarch-expect-error: invalid_arch_literal_malformed_spelling
#include <cuarch/core/literals.hpp>
using namespace cuarch::literals;
constexpr auto t = "sm_"_arch;
int main() { return t.cc.major; }
