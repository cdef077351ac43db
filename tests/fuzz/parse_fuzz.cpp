// libFuzzer target over every cuarch parser. Build and run: scripts/fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>

#include "parser_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuarch_fuzz::check_all_parsers(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
