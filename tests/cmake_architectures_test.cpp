// cuarch's cmake dialect (parse_arch_list(..., arch_dialect::cmake), core/parse.hpp) against what the real
// CMake 3.25.1 and 4.4.5 did with every CMAKE_CUDA_ARCHITECTURES value of tests/data/cmake_architectures.tsv
// (recorded by scripts/toolkits/record-cmake-architectures.py): CMake's own validation, the flags it
// derives, and whether nvcc 13.0 (the compiler CMake identified) took them. cuarch's verdict is the
// reader, then what resolution applies after it: the 13.0 table (check_buildable: nvcc's "Unsupported
// gpu architecture"), target_set::from (nvcc's "The same GPU code ... family-specific") and the writer
// for that CMake version (cmake_architectures: `a` from 3.25.0, `f` from 4.0.2). The two must agree on
// refuse/build and on the --generate-code pairs; docs/conformance.md lists the conventions pinned here.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/format.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/target_set.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "recorded_tsv.hpp"
#include "test_paths.hpp"

using namespace cuarch;

namespace {

struct cmake_result {
  std::string version, outcome, detail;
};

struct cmake_row {
  std::string input, nvcc;
  std::vector<cmake_result> cmakes;
};

std::vector<cmake_row> recorded_rows() {
  std::ifstream in(std::string(CUARCH_TEST_DATA_DIR) + "/cmake_architectures.tsv");
  std::vector<cmake_row> rows;
  std::vector<std::string> versions;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::istringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (line.rfind("input\t", 0) == 0) {  // input, (cmake V, detail)..., nvcc V
      for (std::size_t k = 1; k + 1 < cols.size(); k += 2) versions.push_back(cols[k].substr(6));
      continue;
    }
    if (cols.size() != 2 + 2 * versions.size()) continue;  // a malformed row fails the size check below
    cmake_row r;
    r.input = unescape_tsv_field(cols[0]);
    r.nvcc = cols.back();
    for (std::size_t v = 0; v < versions.size(); ++v)
      r.cmakes.push_back({versions[v], cols[1 + 2 * v], cols[2 + 2 * v]});
    rows.push_back(r);
  }
  return rows;
}

// A verdict in one vocabulary: "build: <sorted arch,code pairs>", "keyword:<k>", "none" or "refused".
struct verdict {
  std::string what, why;
};

// CMake's side: what it derived, and whether nvcc took it.
verdict cmake_verdict(const cmake_result& c, const std::string& nvcc) {
  if (c.outcome == "devices") return {"keyword:native", c.detail};
  if (c.outcome == "none") return {"none", "CMake adds no architecture flag"};
  if (c.outcome != "flags") return {"refused", c.detail};
  if (nvcc != "accepts") return {"refused", nvcc};
  if (c.detail.rfind("-arch=", 0) == 0) return {"keyword:" + c.detail.substr(6), ""};
  // --generate-code=arch=compute_90,code=[compute_90,sm_90] ... -> "compute_90,compute_90 compute_90,sm_90"
  std::set<std::string> pairs;
  std::istringstream words(c.detail);
  for (std::string w; words >> w;) {
    const auto a = w.find("arch="), comma = w.find(','), open = w.find('['), close = w.find(']');
    REQUIRE((a != std::string::npos && comma != std::string::npos && open != std::string::npos &&
             close != std::string::npos));
    const std::string arch = w.substr(a + 5, comma - a - 5);
    std::istringstream codes(w.substr(open + 1, close - open - 1));
    for (std::string code; std::getline(codes, code, ',');) pairs.insert(arch + "," + code);
  }
  std::string out = "build:";
  for (const auto& p : pairs) out += " " + p;
  return {out, ""};
}

// cuarch's side for a CMake version: the reader, the 13.0 table, the set's rules, the writer's version gate.
verdict cuarch_verdict(const std::string& input, const std::string& cmake_version) {
  const auto list = parse_arch_list(input, arch_dialect::cmake);
  if (!list) return {"refused", list.error().message()};
  if (list->keyword() != arch_keyword::none) return {"keyword:" + std::string(to_string(list->keyword())), ""};
  const cuda_version nvcc{13, 0, -1};
  std::vector<arch_target> targets;
  for (const auto& t : *list) {
    if (const auto b = check_buildable(t.target, nvcc); !b) return {"refused", b.error().message()};
    targets.push_back(t.target);
  }
  const auto set = target_set::from(targets);
  if (!set) return {"refused", set.error().message()};
  if (const auto w = cmake_architectures(*set, cmake_version); !w) return {"refused", w.error().message()};
  std::set<std::string> pairs;
  for (const auto& t : *set) {
    const std::string flag = gencode_flag(t).str();  // -gencode=arch=compute_90,code=sm_90
    const auto a = flag.find("arch="), code = flag.find(",code=");
    pairs.insert(flag.substr(a + 5, code - a - 5) + "," + flag.substr(code + 6));
  }
  std::string out = "build:";
  for (const auto& p : pairs) out += " " + p;
  return {out, ""};
}

}  // namespace

TEST_CASE("the recorded CMake corpus is there and varied", "[cmake][conformance]") {
  const auto rows = recorded_rows();
  REQUIRE(rows.size() >= 400);
  REQUIRE(rows.front().cmakes.size() >= 2);
  std::size_t built = 0, refused = 0;
  for (const auto& r : rows) {
    const auto v = cmake_verdict(r.cmakes.back(), r.nvcc);
    (v.what == "refused" ? refused : built) += 1;
  }
  CHECK(built > 100);
  CHECK(refused > 150);
}

// The conventions (docs/conformance.md, "CMake: reading CUDA_ARCHITECTURES"), each pinned:
// 1. a false constant (OFF, 0, N, NOTFOUND, X-NOTFOUND, ...): CMake skips its check and passes no
//    architecture flag, so nvcc builds its default; cuarch refuses, since such a value names no target.
bool false_constant(const cmake_result& c) { return c.outcome == "none"; }

// 2. an empty entry after the first ("80;", "80;;90"): CMake's check allows it and its list drops it;
//    cuarch refuses it, naming its position (an empty entry is most often a variable that is not set,
//    as in "90;${EXTRA}"). Without the empty entries cuarch must read what CMake read.
std::string without_empty_entries(const std::string& input) {
  std::string out;
  std::istringstream entries(input);
  for (std::string e; std::getline(entries, e, ';');)
    if (!e.empty()) out += (out.empty() ? "" : ";") + e;
  return out;
}
bool has_empty_entry_after_first(const std::string& input) {
  return !input.empty() && input[0] != ';' && (input.find(";;") != std::string::npos || input.back() == ';');
}

TEST_CASE("the cmake dialect reads CMAKE_CUDA_ARCHITECTURES as CMake 3.25.1 and 4.4.5 do",
          "[cmake][parse][conformance]") {
  const auto rows = recorded_rows();
  REQUIRE(!rows.empty());
  for (std::size_t v = 0; v < rows.front().cmakes.size(); ++v) {
    const std::string version = rows.front().cmakes[v].version;
    std::size_t agree = 0, off = 0, empty_entries = 0;
    std::vector<std::string> disagreements;
    for (const auto& r : rows) {
      const auto& c = r.cmakes[v];
      const verdict theirs = cmake_verdict(c, r.nvcc), ours = cuarch_verdict(r.input, c.version);
      const std::string where = "'" + r.input + "': CMake " + c.version + " " + theirs.what + " (" + theirs.why +
                                "); cuarch " + ours.what + " (" + ours.why + ")";
      if (false_constant(c)) {
        ++off;
        if (ours.what != "refused") disagreements.push_back("convention 1 broken: " + where);
        continue;
      }
      if (theirs.what != "refused" && has_empty_entry_after_first(r.input)) {
        ++empty_entries;
        const verdict cleaned = cuarch_verdict(without_empty_entries(r.input), c.version);
        if (ours.what != "refused" || cleaned.what != theirs.what)
          disagreements.push_back("convention 2 broken: " + where);
        continue;
      }
      if (theirs.what == ours.what) {
        ++agree;
        continue;
      }
      disagreements.push_back(where);
    }
    for (const auto& d : disagreements) UNSCOPED_INFO(d);
    INFO("CMake " << version << ": " << agree << " of " << rows.size() << " agree, " << off << " false constants and "
                  << empty_entries << " lists with empty entries refused by convention");
    CHECK(disagreements.empty());
    CHECK(off >= 10);
    CHECK(empty_entries >= 10);
    CHECK(agree + off + empty_entries == rows.size());
  }
}
