// Deterministic replay of the CUDA code reader's fuzz properties (tests/fuzz/fatbin_invariants.hpp):
// the seed corpus of real nvcc 13.0 fatbins, cubins, PTX and an executable (tests/fuzz/fatbin-corpus),
// and 60,000 mutants of them: cut at any length, bytes flipped, and the length fields that matter
// (fatbin size, entry header size, payload size, ELF section table) overwritten with hostile values.
// CI runs this on every build; scripts/fuzz.sh runs the coverage-guided libFuzzer target for longer.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fatbin_invariants.hpp"
#include "test_paths.hpp"

namespace {
struct rng {  // xorshift64*: a fixed sequence, so a failure reproduces exactly
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(CUARCH_SOURCE_DIR) / "tests/fuzz/fatbin-corpus")) {
    std::ifstream in(e.path(), std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}
}  // namespace

TEST_CASE("the seed corpus keeps the reader's invariants and lists code", "[fuzz][inspect]") {
  const auto all = seeds();
  REQUIRE(all.size() >= 8);
  for (const auto& s : all) {
    cuarch_fuzz::check_code_reader(s);
    const auto l = cuarch::list_code(s);
    REQUIRE(l.has_value());
    CHECK(l->image_count() >= 1);
  }
}

TEST_CASE("60,000 mutants of real CUDA code keep the reader's invariants", "[fuzz][inspect]") {
  const auto all = seeds();
  REQUIRE(!all.empty());
  static constexpr std::uint64_t hostile[] = {
      0, 1, 7, 63, 64, 0x7fffffffULL, 0xffffffffULL, 0xffffffffffffffffULL, 0x8000000000000000ULL};
  rng r;
  for (int i = 0; i < 60000; ++i) {
    std::string m = all[r.next() % all.size()];
    switch (r.next() % 4) {
      case 0: m.resize(r.next() % (m.size() + 1)); break;  // cut
      case 1:                                              // flip bytes
        for (int k = 0; k < 8; ++k) m[r.next() % m.size()] = static_cast<char>(r.next());
        break;
      default: {  // a hostile value in an 8-byte-aligned field (where the sizes live)
        const std::size_t at = (r.next() % (m.size() / 4)) * 4;
        const std::uint64_t v = hostile[r.next() % std::size(hostile)];
        const unsigned width = (r.next() % 2) ? 8 : 4;
        for (unsigned b = 0; b < width && at + b < m.size(); ++b) m[at + b] = static_cast<char>((v >> (8 * b)) & 0xff);
      }
    }
    cuarch_fuzz::check_code_reader(m);
  }
  SUCCEED("no invariant violated");
}

TEST_CASE("40,000 mutants of real compressed images keep the decompressor's invariants", "[fuzz][inspect][compressed]") {
  std::vector<std::string> all;  // {u8 format, u24 size, bytes}: nvcc's zstd and LZ4 images, zstd -19 text
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(CUARCH_SOURCE_DIR) / "tests/fuzz/decompress-corpus")) {
    std::ifstream in(e.path(), std::ios::binary);
    all.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REQUIRE(all.size() >= 5);
  for (const auto& s : all) {  // the seeds themselves decompress
    std::string out;
    const auto size = static_cast<std::uint64_t>(static_cast<unsigned char>(s[1])) |
                      static_cast<std::uint64_t>(static_cast<unsigned char>(s[2])) << 8 |
                      static_cast<std::uint64_t>(static_cast<unsigned char>(s[3])) << 16;
    CHECK_FALSE(cuarch::decompress(s[0] & 1 ? cuarch::compression::zstd : cuarch::compression::lz4,
                                   std::string_view(s).substr(4), size, out));
    cuarch_fuzz::check_decompressor(s);
  }
  rng r;
  for (int i = 0; i < 40000; ++i) {
    std::string m = all[r.next() % all.size()];
    switch (r.next() % 3) {
      case 0: m.resize(4 + r.next() % (m.size() - 3)); break;  // cut
      case 1:                                                  // flip bytes (not the format)
        for (int k = 0; k < 1 + static_cast<int>(r.next() % 4); ++k)
          m[1 + r.next() % (m.size() - 1)] = static_cast<char>(r.next());
        break;
      default:  // flip one bit
        m[4 + r.next() % (m.size() - 4)] ^= static_cast<char>(1 << (r.next() % 8));
    }
    cuarch_fuzz::check_decompressor(m);
  }
  SUCCEED("no invariant violated");
}
