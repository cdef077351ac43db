// cuarch's torch dialect (parse_arch_list(..., arch_dialect::torch), core/parse.hpp) against what
// PyTorch's own _get_cuda_arch_flags (torch/utils/cpp_extension.py) did with every string of
// tests/data/torch_arch_list_2.15.0.tsv (recorded by scripts/toolkits/record-torch-arch-list.py):
// the same accept/refuse, the same -gencode set, and native where PyTorch asks the GPUs.
// docs/conformance.md lists the one convention (an empty list).
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/format.hpp>
#include <cuarch/core/parse.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "recorded_tsv.hpp"
#include "test_paths.hpp"

using namespace cuarch;

namespace {

struct torch_row {
  std::string input, outcome, detail;
};

std::vector<torch_row> recorded_rows() {
  std::ifstream in(std::string(CUARCH_TEST_DATA_DIR) + "/torch_arch_list_2.15.0.tsv");
  std::vector<torch_row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("input\t", 0) == 0) continue;
    std::istringstream cols(line);
    torch_row r;
    std::getline(cols, r.input, '\t');
    std::getline(cols, r.outcome, '\t');
    std::getline(cols, r.detail, '\t');
    r.input = unescape_tsv_field(r.input);
    rows.push_back(r);
  }
  return rows;
}

// What cuarch's torch reader makes of the input, in the recording's words: "flags" with PyTorch's
// sorted, de-duplicated -gencode flags, "devices" for native, or "error" with cuarch's message.
torch_row read_like_torch(const std::string& input) {
  const auto list = parse_arch_list(input, arch_dialect::torch);
  if (!list) return {input, "error", list.error().message()};
  if (list->keyword() == arch_keyword::native) return {input, "devices", "-"};
  if (list->keyword() != arch_keyword::none) return {input, "keyword", std::string(to_string(list->keyword()))};
  std::vector<std::string> flags;
  for (const auto& t : *list) flags.push_back(gencode_flag(t.target).str());
  std::sort(flags.begin(), flags.end());
  flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
  std::string joined;
  for (const auto& f : flags) joined += (joined.empty() ? "" : " ") + f;
  return {input, "flags", joined};
}

}  // namespace

TEST_CASE("torch dialect reads TORCH_CUDA_ARCH_LIST as PyTorch 2.15.0 does", "[parse][torch][conformance]") {
  const auto rows = recorded_rows();
  REQUIRE(rows.size() >= 400);
  std::size_t agree = 0, convention = 0;
  for (const auto& row : rows) {
    const torch_row got = read_like_torch(row.input);
    INFO("TORCH_CUDA_ARCH_LIST='" << row.input << "': PyTorch " << row.outcome << " " << row.detail << "; cuarch "
                                  << got.outcome << " " << got.detail);
    // The one convention: PyTorch reads an empty list as unset (it asks the GPUs); cuarch's reader
    // refuses it and its environment layer skips an empty TORCH_CUDA_ARCH_LIST, as PyTorch does.
    if (row.input.empty()) {
      CHECK(row.outcome == "devices");
      CHECK(got.outcome == "error");
      CHECK(got.detail.find("PyTorch reads an empty one as unset and builds for the visible GPUs") != std::string::npos);
      ++convention;
      continue;
    }
    CHECK(got.outcome == row.outcome);
    if (row.outcome == "flags") CHECK(got.detail == row.detail);
    // A target cuarch knows but PyTorch does not list (8.8, 10.0f) is refused in PyTorch's words.
    if (got.outcome == "error" && got.detail.find("cannot be written in TORCH_CUDA_ARCH_LIST") != std::string::npos)
      CHECK(got.detail.find("PyTorch 2.15.0 raises ValueError \"Unknown CUDA arch (") != std::string::npos);
    if (got.outcome == row.outcome && (row.outcome != "flags" || got.detail == row.detail)) ++agree;
  }
  CHECK(agree + convention == rows.size());
  UNSCOPED_INFO("agree " << agree << " of " << rows.size() << " (+" << convention << " convention)");
}
