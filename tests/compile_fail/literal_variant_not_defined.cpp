// Must not compile: no 'a' variant exists for 8.0.
#include <cuarch/literals.hpp>
using namespace cuarch::literals;
constexpr auto t = "8.0a"_arch;
int main() { return t.cc.major; }
