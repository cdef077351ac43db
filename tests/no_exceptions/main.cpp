// Every public header compiles with -fno-exceptions (tests/CMakeLists.txt builds this TU so, once
// per standard, with all headers included through the generated all_headers.hpp), and cuarch works
// there: parsing answers and reports errors, and value() on an error aborts (the documented behaviour of
// the bundled expected without exceptions) instead of failing to compile.
#include "all_headers.hpp"

#include <cstdio>
#include <cstring>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#  error "this file must be compiled with -fno-exceptions"
#endif

int main(int argc, char** argv) {
  const auto list = cuarch::parse_arch_list("sm_90a;10.0f;8.0+PTX");
  if (!list) {
    std::fprintf(stderr, "parse failed: %s\n", list.error().message().c_str());
    return 1;
  }
  const auto bad = cuarch::parse_arch_list("compute_90b");
  if (bad) {
    std::fprintf(stderr, "compute_90b parsed\n");
    return 1;
  }
  if (argc > 1 && std::strcmp(argv[1], "value-on-error") == 0) {
    (void)bad.value();  // must abort
    std::fprintf(stderr, "value() on an error returned\n");
    return 1;
  }
  return 0;
}
