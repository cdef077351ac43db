// Must not compile: the policy is a value passed to the resolver, not a template argument (as it was
// before issue 34); code written the old way is told so, not left with a message about driver sources.
// cuarch-std: 17
// cuarch-expect-error: cuarch: the policy is a value, not a template argument
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>

int main() {
  const cuarch::resolver<cuarch::fixed_compiler, cuarch::fixed_devices, cuarch::jit_policy> r(
      cuarch::fixed_compiler({13, 0}), cuarch::fixed_devices{{9, 0}});
  return r.resolve(cuarch::arch_request{}) ? 0 : 1;
}
