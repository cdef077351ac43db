// Must not compile: a policy that hides resolve_policy::native_variant_for() would be ignored by
// resolution (it asks policy_traits), so it is refused with the fix instead.
// cuarch-std: 17
// cuarch-expect-error: cuarch: Policy hides native_variant_for\(\), which resolution never calls: specialise cuarch::policy_traits
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>

struct my_policy : cuarch::resolve_policy {
  constexpr cuarch::arch_variant native_variant_for(const cuarch::compute_capability&, const cuarch::compiler_info&) const noexcept {
    return cuarch::arch_variant::baseline;
  }
};

int main() {
  const auto r = cuarch::resolve_target_archs(cuarch::arch_request{}, cuarch::fixed_compiler({13, 0}), cuarch::no_devices{},
                                              my_policy{});
  return r ? 0 : 1;
}
