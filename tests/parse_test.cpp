// Parsing every spelling of docs/design.md's input grammar, each case checked at compile time and at run time.
#include <cuarch/core/parse.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"

using namespace cuarch;

namespace {

constexpr arch_target sm(int maj, int min, arch_variant v = arch_variant::baseline) {
  return {{maj, min}, v, arch_form::sass};
}
constexpr arch_target ptx(int maj, int min, arch_variant v = arch_variant::baseline) {
  return {{maj, min}, v, arch_form::ptx};
}
constexpr arch_target lto(int maj, int min, arch_variant v = arch_variant::baseline) {
  return {{maj, min}, v, arch_form::lto};
}
constexpr auto A = arch_variant::arch_specific;
constexpr auto F = arch_variant::family_specific;

struct good_case {
  std::string_view input;
  arch_dialect dialect;
  arch_target expected[4];
  std::size_t count;
};

// clang-format off
constexpr good_case good_cases[] = {
  {"sm_120a", arch_dialect::generic, {sm(12, 0, A)}, 1},
  {"compute_90", arch_dialect::generic, {ptx(9, 0)}, 1},
  {"compute_90a", arch_dialect::generic, {ptx(9, 0, A)}, 1},
  {"sm_100f", arch_dialect::generic, {sm(10, 0, F)}, 1},
  {"lto_90", arch_dialect::generic, {lto(9, 0)}, 1},
  {"sm90", arch_dialect::generic, {sm(9, 0)}, 1},
  {"12.0", arch_dialect::generic, {sm(12, 0)}, 1},
  {"12.0a", arch_dialect::generic, {sm(12, 0, A)}, 1},
  {"10.0f", arch_dialect::generic, {sm(10, 0, F)}, 1},
  {"9.0+PTX", arch_dialect::generic, {sm(9, 0), ptx(9, 0)}, 2},
  {"120", arch_dialect::generic, {sm(12, 0)}, 1},
  {"90a", arch_dialect::generic, {sm(9, 0, A)}, 1},
  {"120a-real", arch_dialect::generic, {sm(12, 0, A)}, 1},
  {"90-virtual", arch_dialect::generic, {ptx(9, 0)}, 1},
  {" 8.0, 9.0a;sm_100f  compute_120 ", arch_dialect::generic, {sm(8, 0), sm(9, 0, A), sm(10, 0, F), ptx(12, 0)}, 4},
  {"8.0 8.0 sm_80", arch_dialect::generic, {sm(8, 0)}, 1},  // duplicates collapse, first kept
  // CMake: a bare number is SASS + PTX
  {"90", arch_dialect::cmake, {sm(9, 0), ptx(9, 0)}, 2},
  {"120a-real;90-virtual", arch_dialect::cmake, {sm(12, 0, A), ptx(9, 0)}, 2},
  {"100f", arch_dialect::cmake, {sm(10, 0, F), ptx(10, 0, F)}, 2},
  // PyTorch
  {"8.0 8.6+PTX", arch_dialect::torch, {sm(8, 0), sm(8, 6), ptx(8, 6)}, 3},
  {"9.0a;12.0", arch_dialect::torch, {sm(9, 0, A), sm(12, 0)}, 2},
  {"Ampere", arch_dialect::torch, {sm(8, 0), sm(8, 6), ptx(8, 6)}, 3},
  {"Ampere+Tegra+PTX", arch_dialect::torch, {sm(8, 7), ptx(8, 7)}, 2},  // PyTorch 2.15.0: "8.7+PTX"
  {"9.0a+PTX;Rubin", arch_dialect::torch, {sm(9, 0, A), ptx(9, 0, A), sm(10, 7), ptx(10, 7)}, 4},
  {"Maxwell+Tegra;6.1", arch_dialect::torch, {sm(5, 3), sm(6, 1)}, 2},
  // nvcc flags: -arch=sm_XY is SASS + PTX, -arch=compute_XY is PTX only
  // -arch=sm_90a: nvcc 13.0 also embeds the baseline PTX compute_90 (tests/data/nvcc_flags_13.0.tsv)
  {"-arch=sm_90a", arch_dialect::nvcc, {sm(9, 0, A), ptx(9, 0), ptx(9, 0, A)}, 3},
  {"--gpu-architecture=compute_90", arch_dialect::nvcc, {ptx(9, 0)}, 1},
  {"-arch sm_80", arch_dialect::nvcc, {sm(8, 0), ptx(8, 0)}, 2},
  {"-gencode=arch=compute_90a,code=sm_90a", arch_dialect::nvcc, {sm(9, 0, A)}, 1},
  {"-gencode arch=compute_100f,code=[sm_100f,compute_100f]", arch_dialect::nvcc, {sm(10, 0, F), ptx(10, 0, F)}, 2},
  {"--generate-code=arch=compute_80,code=[compute_80,sm_80]", arch_dialect::nvcc, {ptx(8, 0), sm(8, 0)}, 2},
};
// clang-format on

constexpr bool matches(const good_case& c) {
  const auto r = parse_arch_list(c.input, c.dialect);
  if (!r || r->size() != c.count || r->keyword() != arch_keyword::none) return false;
  for (std::size_t i = 0; i < c.count; ++i)
    if ((*r)[i].target != c.expected[i]) return false;
  return true;
}

constexpr bool all_good_cases_match() {
  for (const auto& c : good_cases)
    if (!matches(c)) return false;
  return true;
}

struct bad_case {
  std::string_view input;
  arch_dialect dialect;
  errc code;
  std::size_t position;
};

// clang-format off
constexpr bad_case bad_cases[] = {
  {"8.0a", arch_dialect::generic, errc::variant_not_defined, 0},       // a exists from 9.0 on
  {"9.0f", arch_dialect::generic, errc::variant_not_defined, 0},       // f exists from 10.0 on
  {"sm_88a", arch_dialect::generic, errc::variant_not_defined, 0},
  {"sm_", arch_dialect::generic, errc::malformed_token, 0},
  {"compute_90b", arch_dialect::generic, errc::unknown_suffix, 0},
  {"12.0a+PTX", arch_dialect::generic, errc::ptx_of_specific_variant, 0},
  {"9.0.a", arch_dialect::generic, errc::malformed_token, 0},
  {"", arch_dialect::generic, errc::empty_input, 0},
  {"   ", arch_dialect::torch, errc::empty_input, 0},
  {"8.0;;9.0", arch_dialect::generic, errc::empty_input, 4},
  {"8.0;9.0;", arch_dialect::cmake, errc::malformed_token, 0},          // cmake has no dotted form
  {"80;90;", arch_dialect::cmake, errc::empty_input, 6},
  // CMake keeps whitespace in a list's entries: set(CMAKE_CUDA_ARCHITECTURES " 80;90") and "80;90 "
  // fail enable_language(CUDA) under CMake 3.25.1 (checked by hand, 2026-12-01), as "80; 90" does.
  {" 80;90", arch_dialect::cmake, errc::malformed_token, 0},
  {"80;90 ", arch_dialect::cmake, errc::malformed_token, 3},
  {"8.0 sm_12x", arch_dialect::generic, errc::unknown_suffix, 4},
  {"sm_9", arch_dialect::generic, errc::malformed_token, 0},
  {"sm_075", arch_dialect::generic, errc::malformed_token, 0},
  {"12.10", arch_dialect::generic, errc::malformed_token, 0},
  {"native;90", arch_dialect::cmake, errc::keyword_not_alone, 7},
  {"90;all", arch_dialect::cmake, errc::keyword_not_alone, 3},
  {"90", arch_dialect::torch, errc::malformed_token, 0},                // torch is dotted only
  {"sm_90", arch_dialect::torch, errc::malformed_token, 0},
  // As PyTorch 2.15.0 reads TORCH_CUDA_ARCH_LIST (tests/data/torch_arch_list_2.15.0.tsv):
  {"8.0 ", arch_dialect::torch, errc::empty_input, 4},                 // "Unknown CUDA arch ()"
  {"8.0  8.6", arch_dialect::torch, errc::empty_input, 4},
  {"Hopper+PTX", arch_dialect::torch, errc::malformed_token, 0},       // 9.0+PTX+PTX
  {"8.6 8.8", arch_dialect::torch, errc::not_expressible, 4},          // not in supported_arches
  {"10.0f", arch_dialect::torch, errc::not_expressible, 0},
  {"8.0+ptx", arch_dialect::torch, errc::not_expressible, 0},
  {"8.0\t8.6", arch_dialect::torch, errc::malformed_token, 0},
};
// clang-format on

}  // namespace

TEST_CASE("every spelling of the input grammar parses to the exact targets", "[parse]") {
  for (const auto& c : good_cases) {
    INFO(c.input);
    REQUIRE(matches(c));
  }
  STATIC_REQUIRE(all_good_cases_match());
}

TEST_CASE("invalid spellings are errors naming the token and position, never dropped", "[parse]") {
  for (const auto& c : bad_cases) {
    INFO(c.input);
    const auto r = parse_arch_list(c.input, c.dialect);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == c.code);
    CHECK(r.error().position == c.position);
    CHECK(r.error().source == source_kind::user_input);
  }
  CUARCH_CHECK_BOTH(parse_arch_list("8.0a").error().code == errc::variant_not_defined);
  CUARCH_CHECK_BOTH(parse_arch_list("12.0a+PTX").error().code == errc::ptx_of_specific_variant);
  CUARCH_CHECK_BOTH(parse_arch_list("compute_90b").error().code == errc::unknown_suffix);
}

TEST_CASE("a malformed token's fix suggests only spellings its own dialect reads", "[parse]") {
  // generic reads every spelling; CMake reads none of sm_90a, 9.0a, 9.0+PTX.
  CHECK(parse_arch_list("abc").error().message().find("sm_90a") != std::string::npos);
  const std::string cmake = parse_arch_list("x90", arch_dialect::cmake).error().message();
  INFO(cmake);
  CHECK(cmake.find("90a-real") != std::string::npos);
  for (const char* other_dialect : {"sm_", "9.0", "+PTX", "compute_"})
    CHECK(cmake.find(other_dialect) == std::string::npos);
  const std::string torch = parse_arch_list("x9.0", arch_dialect::torch).error().message();
  INFO(torch);
  CHECK(torch.find("Hopper") != std::string::npos);
  for (const char* other_dialect : {"sm_", "90a", "-real", "compute_"})
    CHECK(torch.find(other_dialect) == std::string::npos);
  const std::string nvcc = parse_arch_list("x9.0", arch_dialect::nvcc).error().message();
  INFO(nvcc);
  CHECK(nvcc.find("-gencode") != std::string::npos);
}

TEST_CASE("the error names the offending token, not the whole list", "[parse]") {
  const auto r = parse_arch_list("8.0;9.0a;sm_12x;10.0", arch_dialect::generic);
  REQUIRE_FALSE(r);
  CHECK(r.error().subject.view() == "sm_12x");
  CHECK(r.error().position == 9);
  CHECK(r.error().message().find("'sm_12x' at position 9") != std::string::npos);
}

TEST_CASE("f suffix is kept verbatim, never downgraded to a", "[parse]") {
  CUARCH_CHECK_BOTH(parse_arch("10.0f")->variant == arch_variant::family_specific);
  CUARCH_CHECK_BOTH(parse_arch("12.0a")->variant == arch_variant::arch_specific);
  CUARCH_CHECK_BOTH(parse_arch("12.0")->variant == arch_variant::baseline);
}

TEST_CASE("keywords native, all and all-major stand alone", "[parse]") {
  CUARCH_CHECK_BOTH(parse_arch_list("native", arch_dialect::cmake)->keyword() == arch_keyword::native);
  CUARCH_CHECK_BOTH(parse_arch_list("all", arch_dialect::cmake)->keyword() == arch_keyword::all);
  CUARCH_CHECK_BOTH(parse_arch_list("all-major")->keyword() == arch_keyword::all_major);
  CUARCH_CHECK_BOTH(parse_arch_list("-arch=native", arch_dialect::nvcc)->keyword() == arch_keyword::native);
  CUARCH_CHECK_BOTH(parse_arch_list("native", arch_dialect::torch)->keyword() == arch_keyword::native);
  CUARCH_CHECK_BOTH(parse_arch_list("native")->empty());
}

TEST_CASE("the nvcc dialect reads one token as nvcc does: no Triton spelling", "[parse][nvcc]") {
  // nvcc 13.0: "nvcc fatal : Unsupported gpu architecture 'sm90'" (tests/data/nvcc_flags_13.0.tsv)
  CUARCH_CHECK_BOTH(parse_arch_token("sm90", arch_dialect::nvcc).error().code == errc::malformed_token);
  CUARCH_CHECK_BOTH(parse_arch_token("compute90", arch_dialect::nvcc).error().code == errc::malformed_token);
  CUARCH_CHECK_BOTH(parse_arch_token("sm90").has_value());  // the generic dialect keeps Triton's spelling
  CUARCH_CHECK_BOTH(parse_arch_token("sm_90a", arch_dialect::nvcc)->items[0] == sm(9, 0, A));
}

TEST_CASE("parse_arch takes exactly one target", "[parse]") {
  CUARCH_CHECK_BOTH(parse_arch("sm_120a")->cc == compute_capability{12, 0});
  CUARCH_CHECK_BOTH(parse_arch(" 9.0a ")->cc == compute_capability{9, 0});
  CUARCH_CHECK_BOTH(parse_arch("9.0+PTX").error().code == errc::malformed_token);  // two targets
  CUARCH_CHECK_BOTH(parse_arch("0.5").error().code == errc::malformed_token);
}

TEST_CASE("nvcc flags: unknown flags and inconsistent gencode are errors", "[parse]") {
  CUARCH_CHECK_BOTH(parse_arch_list("-O3", arch_dialect::nvcc).error().code == errc::malformed_token);
  CUARCH_CHECK_BOTH(parse_arch_list("-gencode=arch=sm_90,code=sm_90", arch_dialect::nvcc).error().code ==
                    errc::malformed_token);
  CUARCH_CHECK_BOTH(parse_arch_list("-gencode=arch=compute_90,code=sm_80", arch_dialect::nvcc).error().code ==
                    errc::malformed_token);
  CUARCH_CHECK_BOTH(parse_arch_list("-arch", arch_dialect::nvcc).error().code == errc::malformed_token);
  // nvcc keeps only the last -arch ("-arch=sm_90 -arch=native" is native); a keyword with -code is refused
  CUARCH_CHECK_BOTH(parse_arch_list("-arch=sm_90 -arch=native", arch_dialect::nvcc)->keyword() == arch_keyword::native);
  CUARCH_CHECK_BOTH(parse_arch_list("-arch=native -code=sm_90", arch_dialect::nvcc).error().code ==
                    errc::keyword_not_alone);
}

TEST_CASE("a list longer than the set capacity is an error, not a truncation", "[parse]") {
  std::string many;
  int added = 0;
  for (int major = 1; major <= 20 && added <= static_cast<int>(parsed_arch_list::capacity); ++major)
    for (int minor = 0; minor <= 9; ++minor, ++added)
      many += std::to_string(major) + "." + std::to_string(minor) + "+PTX ";
  const auto r = parse_arch_list(many);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == errc::too_many_targets);
}

namespace {

// sm_75 and lto_89 share a bit of the list's duplicate filter (75*9 and 89*9+2 are 128 apart), so a
// filter hit must still compare targets: a distinct target is kept, a repeated one collapses.
constexpr bool filter_collision_keeps_distinct_targets() {
  const auto r = parse_arch_list("sm_75 lto_89 lto_89 sm_75 compute_75");
  return r && r->size() == 3 && (*r)[0].target == sm(7, 5) && (*r)[1].target == lto(8, 9) &&
         (*r)[2].target == ptx(7, 5) && (*r)[1].position == 6 && r->contains(lto(8, 9)) && !r->contains(sm(8, 9)) &&
         !r->contains(lto(7, 5));
}

constexpr bool iterators_walk_the_targets_in_order() {
  const auto r = parse_arch_list("8.6+PTX;9.0a;100f-real");
  if (!r || r->size() != 4) return false;
  const arch_target want[] = {sm(8, 6), ptx(8, 6), sm(9, 0, A), sm(10, 0, F)};
  std::size_t i = 0;
  for (const parsed_target& p : *r)
    if (p.target != want[i++] || (*r)[i - 1].target != p.target) return false;
  auto it = r->begin();
  const auto first = it++;
  const parsed_arch_list none;
  return i == 4 && first->target == want[0] && (*it).target == want[1] && (++it)->target == want[2] &&
         ++it != r->end() && ++it == r->end() && none.begin() == none.end() && none.empty();
}

}  // namespace

TEST_CASE("duplicates collapse even where the duplicate filter collides; distinct targets are never dropped", "[parse]") {
  CUARCH_CHECK_BOTH(filter_collision_keeps_distinct_targets());
  // contains() takes any cc, even one far outside the grammar.
  const auto r = parse_arch_list("9.0");
  REQUIRE(r);
  CHECK_FALSE(r->contains(arch_target{{2000000000, 9}, arch_variant::family_specific, arch_form::lto}));
  CHECK_FALSE(r->contains(arch_target{{-1, -1}, arch_variant::baseline, arch_form::sass}));
  CHECK(r->contains(sm(9, 0)));
}

TEST_CASE("a parsed list is iterated in input order, at compile time and at run time", "[parse]") {
  CUARCH_CHECK_BOTH(iterators_walk_the_targets_in_order());
}

TEST_CASE("a list of exactly capacity distinct targets parses whole", "[parse]") {
  std::string list;
  for (int sm_number = 10; sm_number < 10 + static_cast<int>(parsed_arch_list::capacity); ++sm_number)
    list += "sm_" + std::to_string(sm_number) + (sm_number % 2 ? ";" : ",");
  list.pop_back();
  const auto r = parse_arch_list(list);
  REQUIRE(r);
  REQUIRE(r->size() == parsed_arch_list::capacity);
  for (std::size_t i = 0; i < r->size(); ++i) {
    const int n = 10 + static_cast<int>(i);
    CHECK((*r)[i].target == sm(n / 10, n % 10));
    CHECK(r->contains(sm(n / 10, n % 10)));
  }
  CHECK(parse_arch_list(list + ";sm_106").error().code == errc::too_many_targets);
  CHECK(parse_arch_list(list + ";sm_10").has_value());  // a duplicate of a full list is no overflow
}

TEST_CASE("nvcc: machine code built from a lower virtual architecture is refused, never rewritten", "[parse][nvcc]") {
  // nvcc builds sm_86 from compute_80's PTX (__CUDA_ARCH__ 800); cuarch's sm_86 is built from compute_86.
  for (const char* flags :
       {"-gencode=arch=compute_80,code=sm_86", "-arch=compute_80 -code=sm_80,sm_86",
        "-gencode=arch=compute_100f,code=[sm_100f,sm_103f]", "-gencode=arch=compute_80,code=lto_86 -rdc=true"}) {
    INFO(flags);
    const auto r = parse_arch_list(flags, arch_dialect::nvcc);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::not_expressible);
    CHECK(r.error().message().find("lower virtual architecture") != std::string::npos);
  }
  CHECK(parse_arch_list("-gencode=arch=compute_100f,code=sm_100", arch_dialect::nvcc));  // the same cc: sm_100f
}

// The quick readers (core/parse.hpp, "The usual spellings, in one pass") stand in for the full ones on
// the hot path: whatever they read, the full readers must read the same, and every short target the
// full readers accept, the quick ones must read (else the hot path is slow, not wrong).
namespace {

std::vector<std::string> short_tokens(std::string_view prefix) {
  std::vector<std::string> out;
  std::vector<std::string> numbers;
  for (int n = 0; n <= 1300; ++n) numbers.push_back(std::to_string(n));
  for (const char* odd : {"", "0", "00", "075", "090", "0120", "1000", "12000", "9.0", "x"}) numbers.emplace_back(odd);
  for (const auto& n : numbers)
    for (const char* suffix : {"", "a", "f", "b", "A", "F", "1", ".", "a1", "af", "-real", " "})
      out.push_back(std::string(prefix) + n + suffix);
  return out;
}

std::vector<std::string> dotted_tokens() {
  std::vector<std::string> out;
  for (const char* major : {"", "0", "1", "3", "5", "6", "7", "8", "9", "10", "11", "12", "13", "09", "010", "100", "x"})
    for (const char* minor : {"", "0", "1", "2", "3", "5", "6", "7", "9", "00", "10", "x"})
      for (const char* suffix : {"", "a", "f", "b", "A", "1", "."})
        for (const char* dot : {".", ",", ""}) out.push_back(std::string(major) + dot + minor + suffix);
  std::sort(out.begin(), out.end());  // "6" "." "1" "" and "6" "." "" "1" are one token
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

TEST_CASE("the quick readers read exactly what the full readers read", "[parse]") {
  using namespace cuarch::detail;
  std::size_t accepted = 0;
  for (const char* prefix : {"", "sm_", "sm", "compute_", "lto_", "s", "c", "compute", "lto", "SM_"})
    for (const std::string& tok : short_tokens(prefix)) {
      INFO(tok);
      const auto full = parse_prefixed(tok, 0);
      const auto quick = quick_prefixed(tok, true);
      REQUIRE(quick.has_value() == full.has_value());
      if (quick) CHECK(*quick == *full);
      const bool nvcc_prefix = starts_with(tok, "sm_") || starts_with(tok, "compute_") || starts_with(tok, "lto_");
      const auto quick_nvcc = quick_prefixed(tok, false);
      REQUIRE(quick_nvcc.has_value() == (full.has_value() && nvcc_prefix));
      if (!quick_nvcc && nvcc_prefix) CHECK(nvcc_target_error(tok, 0, tok).code == full.error().code);
      accepted += quick.has_value();
    }
  CHECK(accepted > 1000);  // the token set reaches the accepting path, not only refusals
  for (const std::string& tok : dotted_tokens()) {
    INFO(tok);
    const auto full = read_dotted(tok, tok, 0);
    const auto quick = quick_dotted(tok);
    REQUIRE(quick.has_value() == full.has_value());
    if (quick) CHECK(*quick == *full);
  }
}

TEST_CASE("a plain torch entry is read in one pass as PyTorch's list reads it", "[parse][torch]") {
  using namespace cuarch::detail;
  for (const std::string_view listed : torch_supported_arches) CHECK(quick_dotted(listed).has_value());
  std::size_t listed_seen = 0;
  for (const std::string& dotted : dotted_tokens())
    for (const char* ptx : {"", "+PTX", "+ptx"}) {
      const std::string tok = dotted + ptx;
      INFO(tok);
      const std::string_view entry = std::string_view(tok).substr(
          0, tok.size() - (std::string_view(ptx) == "+PTX" ? 4 : 0));
      bool listed = false;
      for (const std::string_view s : torch_supported_arches) listed = listed || s == entry;
      listed_seen += listed;
      CHECK(torch_supports(tok) == listed);
      const auto quick = quick_torch_entry(tok);
      REQUIRE(quick.has_value() == listed);
      if (!quick) continue;
      const auto full = cuarch::parse_arch_token(tok, cuarch::arch_dialect::torch);  // the full reader
      REQUIRE(full);
      REQUIRE(quick->count == full->count);
      for (std::size_t i = 0; i < quick->count; ++i) CHECK(quick->items[i] == full->items[i]);
    }
  CHECK(listed_seen == 2 * std::size(torch_supported_arches));  // each listed entry, with and without +PTX
}
