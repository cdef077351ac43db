// Must not compile: "sm_" is not a target.
#include <cuarch/literals.hpp>
using namespace cuarch::literals;
constexpr auto t = "sm_"_arch;
int main() { return t.cc.major; }
