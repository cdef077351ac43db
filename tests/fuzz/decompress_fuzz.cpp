// libFuzzer target over the decompressor of compressed fatbin images (core/decompress.hpp): the input
// is {u8 format, u24 declared size, compressed bytes}. Build and run: scripts/fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fatbin_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuarch_fuzz::check_decompressor(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
