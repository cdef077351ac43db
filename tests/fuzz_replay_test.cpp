// Deterministic replay of the fuzz properties (tests/fuzz/parser_invariants.hpp): the seed corpus
// plus 200,000 pseudo-random inputs built from the characters the grammar cares about. CI runs this
// on every build; scripts/fuzz.sh runs the coverage-guided libFuzzer target for longer.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "fuzz/parser_invariants.hpp"
#include "test_paths.hpp"

namespace {
// xorshift64*: a fixed sequence, so a failure reproduces exactly.
struct rng {
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};
}  // namespace

TEST_CASE("seed corpus keeps the parser invariants", "[fuzz]") {
  const std::filesystem::path corpus = std::filesystem::path(CUARCH_SOURCE_DIR) / "tests/fuzz/corpus";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    cuarch_fuzz::check_all_parsers(input);
    ++files;
  }
  REQUIRE(files >= 10);
}

TEST_CASE("200,000 generated inputs keep the parser invariants", "[fuzz]") {
  static constexpr char alphabet[] = "0123456789.;, -=+_[]afbsmcomputeltoPTXrealvirtualnativellgencodearch\t\r\nV";
  static constexpr const char* words[] = {
      "sm_",       "compute_", "lto_",     "+PTX",  "-real",  "-virtual", "native", "all",
      "all-major", "-arch",    "-gencode", "arch=", ",code=", "release ", "Ampere", "9.0"};
  rng r;
  for (int i = 0; i < 200000; ++i) {
    std::string input;
    const auto len = r.next() % 24;
    for (std::uint64_t k = 0; k < len; ++k) {
      if (r.next() % 4 == 0) input += words[r.next() % std::size(words)];
      else input += alphabet[r.next() % (sizeof(alphabet) - 1)];
    }
    cuarch_fuzz::check_all_parsers(input);
  }
  SUCCEED("no invariant violated");
}
