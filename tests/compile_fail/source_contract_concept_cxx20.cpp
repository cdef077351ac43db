// Must not compile: in C++20 the contract is also a concept, so a user's own template constrained
// with cuarch::compiler_source rejects a type that lacks compiler().
// cuarch-std: 20
// cuarch-expect-error: (satisfaction of .+compiler_source<S>.+with S = not_a_compiler|not_a_compiler. does not satisfy .compiler_source)
#include <cuarch/resolve/source_contract.hpp>

template <cuarch::compiler_source S>
int use(const S&) {
  return 0;
}

struct not_a_compiler {
  int version() const { return 13; }
};

int main() { return use(not_a_compiler{}); }
