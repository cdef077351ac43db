// libFuzzer target over the toolkit-file parsers. Build and run: scripts/fuzz.sh [seconds]
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "file_parser_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string scratch = "/tmp/cuarch-file-fuzz-" + std::to_string(getpid());
  cuarch_fuzz::check_file_parsers(std::string_view(reinterpret_cast<const char*>(data), size), scratch);
  return 0;
}
