// libFuzzer target for cuarch's JSON writer: whatever bytes it is given (keys and string values,
// nested in objects and arrays), the document is valid UTF-8, well-formed, and every string is
// recoverable (tests/fuzz/json_invariants.hpp). Build and run: scripts/fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "json_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string doc;
  if (const char* what = cuarch_fuzz::json_writer_violation(std::string_view(reinterpret_cast<const char*>(data), size),
                                                            doc)) {
    std::fprintf(stderr, "json invariant violated: %s\ndocument: ", what);
    std::fwrite(doc.data(), 1, doc.size(), stderr);
    std::abort();
  }
  return 0;
}
