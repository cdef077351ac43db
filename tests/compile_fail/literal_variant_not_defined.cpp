// Must not compile: no 'a' variant exists for 8.0.
// cuarch-std: 20
// cuarch-expect-error: invalid_arch_literal_suffix_does_not_exist_for_this_compute_capability
#include <cuarch/core/literals.hpp>
using namespace cuarch::literals;
constexpr auto t = "8.0a"_arch;
int main() { return t.cc.major; }
