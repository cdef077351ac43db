// Deterministic replay of the toolkit-file parser properties (tests/fuzz/file_parser_invariants.hpp):
// real-looking files with their fields cut, doubled, swapped and corrupted, and random bytes. CI runs
// this on every build; scripts/fuzz.sh runs the coverage-guided target (tests/fuzz/file_fuzz.cpp).
#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "fuzz/file_parser_invariants.hpp"
#include "test_paths.hpp"

namespace {
struct rng {  // xorshift64*: a fixed sequence, so a failure reproduces exactly
  std::uint64_t s = 0xD1B54A32D192ED03ULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};

const char* const seeds[] = {
    R"({"cuda": {"name": "CUDA SDK", "version": "13.0.2"}, "cuda_nvcc": {"version": "13.0.88"}})",
    "CUDA Version 11.0.228\n",
    "#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION 13000\n#define CUDA_VERSION_MAJOR 13\n",
    "nvidia_cuda_nvrtc_cu12-12.4.127",
    "cuda-nvcc-12.8.93-0",
    "nvcc: NVIDIA (R) Cuda compiler driver\r\nCuda compilation tools, release 13.0, V13.0.88\r\nBuild cuda_13.0\r\n",
    "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 12.8, V12.8.93\n",
    R"({"kind":"List","items":[{"metadata":{"name":"g","labels":{"nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0",)"
    R"("nvidia.com/cuda.runtime-version.major":"13","nvidia.com/cuda.runtime-version.minor":"0"}},"status":{"capacity":{"nvidia.com/gpu":"8"}}}]})",
    "host, name, compute_cap, driver_version\ng, NVIDIA H200, 9.0, 580.159.04\nc, , , \n",
};
}  // namespace

TEST_CASE("the toolkit-file parsers keep their properties on mutated and random inputs", "[fuzz]") {
  const std::string scratch = "/tmp/cuarch-file-replay-" + std::to_string(getpid());
  rng r;
  int runs = 0;
  for (const char* seed : seeds) {
    cuarch_fuzz::check_file_parsers(seed, scratch);
    ++runs;
  }
  static constexpr char alphabet[] = "0123456789.\"{}:, \n\r\t#-_abcdefinorstuvwxyzCDVAUN\x80\xff";
  for (int i = 0; i < 3000; ++i) {
    std::string input = seeds[r.next() % std::size(seeds)];
    const auto edits = 1 + r.next() % 6;
    for (std::uint64_t k = 0; k < edits && !input.empty(); ++k) {
      const std::size_t at = r.next() % input.size();
      switch (r.next() % 4) {
        case 0: input.erase(at, 1 + r.next() % 8); break;                                  // cut
        case 1: input.insert(at, input.substr(at, r.next() % 12)); break;                  // double
        case 2: input[at] = alphabet[r.next() % (sizeof(alphabet) - 1)]; break;            // corrupt
        default: input.insert(at, 1, alphabet[r.next() % (sizeof(alphabet) - 1)]); break;  // insert
      }
    }
    cuarch_fuzz::check_file_parsers(input, scratch);
    ++runs;
  }
  ::unlink(scratch.c_str());
  CHECK(runs == 3000 + static_cast<int>(std::size(seeds)));
}

TEST_CASE("the seeds parse to what they say", "[fuzz]") {
  const std::string scratch = "/tmp/cuarch-file-seed-" + std::to_string(getpid());
  cuarch_fuzz::check_file_parsers(seeds[0], scratch);
  const auto v = cuarch::read_version_json(scratch);
  REQUIRE(v);
  CHECK(v->seen.version == cuarch::cuda_version{13, 0, 2});
  ::unlink(scratch.c_str());
}

TEST_CASE("the file_fuzz seed corpus (real files, cut) keeps the properties, and the ELF seeds are read", "[fuzz]") {
  // tests/fuzz/file-corpus (make-file-corpus.sh): every seed, and each cut in half, as file_fuzz starts.
  const std::filesystem::path corpus = std::filesystem::path(CUARCH_SOURCE_DIR) / "tests/fuzz/file-corpus";
  const std::string scratch = "/tmp/cuarch-file-corpus-" + std::to_string(getpid());
  int seeds_read = 0, elf_with_build_id = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string input = bytes.str();
    cuarch_fuzz::check_file_parsers(input, scratch);
    cuarch_fuzz::check_file_parsers(input.substr(0, input.size() / 2), scratch);
    ++seeds_read;
    if (entry.path().filename().string().rfind("elf-lib", 0) == 0) {
      cuarch_fuzz::check_file_parsers(input, scratch);
      if (cuarch::read_elf_build_id(scratch)) ++elf_with_build_id;
    }
  }
  ::unlink(scratch.c_str());
  CHECK(seeds_read >= 10);
  CHECK(elf_with_build_id >= 1);  // a real library's first page holds its build-id note: the reader gets past the header
}
