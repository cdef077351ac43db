// libFuzzer target over the CUDA code reader (core/fatbin.hpp). Build and run: scripts/fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fatbin_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuarch_fuzz::check_code_reader(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
