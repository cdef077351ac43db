// The -O2 compile-cost pair (benchmarks/compile_cost.sh --o2): a program that resolves a list
// against CUDA 13.0 and prints the nvcc flags with cuarch; resolve_and_print_by_hand.cpp does the
// same by hand, without validation beyond a range check, diagnostics or provenance.
#include <cuarch/cuarch.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  cuarch::arch_request request{argc > 1 ? argv[1] : "8.0;9.0a;12.0+PTX"};
  const auto r = cuarch::resolve_target_archs(request, cuarch::fixed_compiler(cuarch::cuda_version{13, 0}));
  if (!r) {
    std::fprintf(stderr, "%s\n", r.error().message().c_str());
    return 1;
  }
  std::puts(cuarch::nvcc_flags(r->targets).c_str());
  return 0;
}
