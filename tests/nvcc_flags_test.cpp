// cuarch's nvcc dialect (parse_arch_list(..., arch_dialect::nvcc), core/parse.hpp) against what the
// real nvcc 13.0 did with every flag string of tests/data/nvcc_flags_13.0.tsv (recorded by
// scripts/toolkits/record-nvcc-flags.sh): the same accept/reject, and the same images (cuobjdump's
// view of what nvcc embedded). docs/conformance.md lists the deliberate differences.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "test_paths.hpp"

using namespace cuarch;

namespace {

struct nvcc_row {
  std::string flags, images, message;
  bool accepted = false;
};

std::vector<nvcc_row> recorded_rows() {
  std::ifstream in(std::string(CUARCH_TEST_DATA_DIR) + "/nvcc_flags_13.0.tsv");
  std::vector<nvcc_row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("flags\t", 0) == 0) continue;
    std::istringstream cols(line);
    nvcc_row r;
    std::string verdict;
    std::getline(cols, r.flags, '\t');
    std::getline(cols, verdict, '\t');
    std::getline(cols, r.images, '\t');
    std::getline(cols, r.message, '\t');
    r.accepted = verdict == "accepted";
    rows.push_back(r);
  }
  return rows;
}

// cuobjdump's spelling of one image: elf:sm_90a, ptx:sm_90 (PTX is listed by its sm_ name), lto:sm_90.
std::string image_of(const arch_target& t) {
  const char* kind = t.form == arch_form::sass ? "elf:" : t.form == arch_form::ptx ? "ptx:" : "lto:";
  return kind + std::string(to_text(with_form(t, arch_form::sass)).view());
}

// What cuarch says of the row, as nvcc 13.0 would: the reader, then the 13.0 table (nvcc's
// "Unsupported gpu architecture"), then the same-compilation rule (nvcc's "The same GPU code").
struct cuarch_reading {
  bool accepted = false;
  std::string images;  // sorted, space-separated; "keyword:all" for a keyword
  std::string why;     // why refused
};

cuarch_reading read_like_nvcc(const std::string& flags) {
  cuarch_reading out;
  const auto list = parse_arch_list(flags, arch_dialect::nvcc);
  if (!list) {
    out.why = list.error().message();
    return out;
  }
  if (list->keyword() != arch_keyword::none) {
    out.accepted = true;
    out.images = "keyword:" + std::string(to_string(list->keyword()));
    return out;
  }
  const cuda_version nvcc{13, 0, -1};
  std::vector<std::string> images;
  for (const auto& t : *list) {
    if (const auto b = check_buildable(t.target, nvcc); !b) {
      out.why = b.error().message();
      return out;
    }
    for (const auto& u : *list) {
      if (const auto s = check_same_compilation(t.target, u.target); !s) {
        out.why = s.error().message();
        return out;
      }
    }
    images.push_back(image_of(t.target));
  }
  std::sort(images.begin(), images.end());
  for (const auto& i : images) out.images += (out.images.empty() ? "" : " ") + i;
  out.accepted = true;
  return out;
}

// What nvcc embeds for -arch=all / all-major is the resolver's business (the reader keeps the
// keyword): such rows agree when the keyword is the one the last -arch named.
std::string expected_keyword(const nvcc_row& r) {
  const auto a = r.flags.rfind("-arch"), g = r.flags.rfind("--gpu-architecture");
  const auto last = a == std::string::npos ? g : g == std::string::npos ? a : std::max(a, g);
  const std::string tail = last == std::string::npos ? std::string() : r.flags.substr(last);
  if (tail.find("all-major") != std::string::npos) return "keyword:all-major";
  if (tail.find("all") != std::string::npos) return "keyword:all";
  return {};
}

// nvcc accepts these; cuarch refuses them on purpose (docs/conformance.md, "nvcc 13.0: how nvcc
// reads target flags"). Each must stay refused, and nvcc must still accept it.
const char* const deliberately_refused[] = {
    "-gencode=arch=compute_80,code=sm_80 -O3",        // a word that is not a target flag
    "-arch=all -gencode=arch=compute_90,code=sm_90",  // a keyword with explicit targets
};

bool is_deliberate(const std::string& flags) {
  return std::find(std::begin(deliberately_refused), std::end(deliberately_refused), flags) !=
         std::end(deliberately_refused);
}

// Machine code (or LTO IR) nvcc builds from a lower virtual architecture (arch=compute_80,code=sm_86):
// cuarch refuses it, since its sm_86 is built from compute_86 (other code). Such a row embeds a cubin
// of a cc that the flags name as no architecture (compute_XY anywhere, or sm_/lto_XY after -arch).
bool built_from_lower_virtual(const nvcc_row& r) {
  if (r.flags.find("all") != std::string::npos) return false;  // the keywords: the resolver's test below
  std::vector<std::string> archs;
  const auto digits_at = [&](std::size_t at) {
    std::size_t end = at;
    while (end < r.flags.size() && r.flags[end] >= '0' && r.flags[end] <= '9') ++end;
    return r.flags.substr(at, end - at);
  };
  for (std::size_t at = r.flags.find("compute_"); at != std::string::npos; at = r.flags.find("compute_", at + 1))
    archs.push_back(digits_at(at + 8));
  for (const char* lead : {"arch=sm_", "arch sm_", "architecture=sm_", "architecture sm_", "arch=lto_", "arch lto_"})
    for (std::size_t at = r.flags.find(lead); at != std::string::npos; at = r.flags.find(lead, at + 1))
      archs.push_back(digits_at(at + std::string_view(lead).size()));
  std::istringstream images(r.images);
  for (std::string image; images >> image;) {
    if (image.rfind("ptx:", 0) == 0) continue;
    std::string cc = image.substr(image.find("sm_") + 3);
    while (!cc.empty() && (cc.back() < '0' || cc.back() > '9')) cc.pop_back();
    if (std::find(archs.begin(), archs.end(), cc) == archs.end()) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the recorded corpus is there and varied", "[nvcc][flags]") {
  const auto rows = recorded_rows();
  REQUIRE(rows.size() >= 150);
  const auto accepted = std::count_if(rows.begin(), rows.end(), [](const nvcc_row& r) { return r.accepted; });
  CHECK(accepted > 100);
  CHECK(static_cast<std::size_t>(accepted) < rows.size() - 50);
}

TEST_CASE("the nvcc dialect reads every recorded flag string as nvcc 13.0 did", "[nvcc][flags][parse]") {
  const auto rows = recorded_rows();
  REQUIRE(!rows.empty());
  std::size_t agree = 0, lower_virtual = 0;
  std::vector<std::string> disagreements;
  for (const auto& r : rows) {
    const auto c = read_like_nvcc(r.flags);
    if (is_deliberate(r.flags)) {
      CHECK(r.accepted);
      CHECK_FALSE(c.accepted);
      continue;
    }
    // Also two gencodes that give one image (arch=compute_80,code=sm_86 beside arch=compute_86,...).
    const bool two_virtuals = r.flags.find("compute_") != r.flags.rfind("compute_") &&
                              r.flags.substr(r.flags.find("compute_"), 10) !=
                                  r.flags.substr(r.flags.rfind("compute_"), 10);
    if (r.accepted && (built_from_lower_virtual(r) ||
                       (two_virtuals && c.why.find("lower virtual architecture") != std::string::npos))) {
      INFO(r.flags);
      CHECK_FALSE(c.accepted);
      CHECK(c.why.find("lower virtual architecture") != std::string::npos);
      ++lower_virtual;
      continue;
    }
    bool same = c.accepted == r.accepted;
    if (same && c.accepted) {
      const std::string keyword = expected_keyword(r);
      same = c.images.rfind("keyword:", 0) == 0 ? c.images == keyword : c.images == r.images;
    }
    if (same) {
      ++agree;
    } else {
      disagreements.push_back("'" + r.flags + "': nvcc " +
                              (r.accepted ? "embeds [" + r.images + "]" : "refuses (" + r.message + ")") + ", cuarch " +
                              (c.accepted ? "reads [" + c.images + "]" : "refuses (" + c.why + ")"));
    }
  }
  for (const auto& d : disagreements) UNSCOPED_INFO(d);
  INFO(agree << " of " << rows.size() - std::size(deliberately_refused) - lower_virtual << " rows agree");
  CHECK(disagreements.empty());
  CHECK(lower_virtual == 40);  // docs/conformance.md: refused on purpose
}

TEST_CASE("one nvcc token reads as the recorded -arch=<token> does", "[nvcc][flags][parse]") {
  // parse_arch_token(token, nvcc) is the reader's spelling rule: where nvcc refused -arch=X for its
  // spelling (not for the release), the token must be refused too, and accepted where the reader accepts.
  std::size_t compared = 0;
  for (const auto& r : recorded_rows()) {
    if (r.flags.rfind("-arch=", 0) != 0 || r.flags.find(' ') != std::string::npos) continue;
    const std::string token = r.flags.substr(6);
    if (token.empty() || token.find_first_of(",[") != std::string::npos || token.rfind("all", 0) == 0 ||
        token.rfind("lto_", 0) == 0)  // lto_ needs -rdc=true, a flag rule and no spelling rule
      continue;
    INFO(r.flags);
    CHECK(parse_arch_token(token, arch_dialect::nvcc).has_value() ==
          parse_arch_list(r.flags, arch_dialect::nvcc).has_value());
    if (!parse_arch_list(r.flags, arch_dialect::nvcc)) CHECK_FALSE(r.accepted);
    ++compared;
  }
  CHECK(compared > 40);
}

TEST_CASE("all and all-major resolve to the images nvcc 13.0 embeds for -arch=all|all-major", "[nvcc][flags][resolve]") {
  // The keyword rows above agree by name only; here the resolver's answer for CUDA 13.0 must be
  // cuobjdump's list of what nvcc built (machine code for every architecture, PTX of one).
  std::size_t compared = 0;
  for (const auto& r : recorded_rows()) {
    if (r.flags != "-arch=all" && r.flags != "-arch=all-major") continue;
    const auto resolved = resolve_target_archs(
        arch_request{r.flags.substr(6), arch_dialect::generic, env_override::none},
        fixed_compiler({13, 0}).compiler().value());
    REQUIRE(resolved);
    std::vector<std::string> images;
    for (const auto& t : resolved->targets) images.push_back(image_of(t));
    std::sort(images.begin(), images.end());
    std::string joined;
    for (const auto& i : images) joined += (joined.empty() ? "" : " ") + i;
    INFO(r.flags);
    CHECK(joined == r.images);
    ++compared;
  }
  CHECK(compared == 2);
}
