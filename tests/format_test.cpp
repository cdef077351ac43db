// Spellings of one target for each consumer, round-trips through the parser, and fmt support.
#include <cuarch/core/arch_table.hpp>
#include <cuarch/fmt.hpp>
#include <cuarch/core/format.hpp>
#include <cuarch/core/literals.hpp>
#include <cuarch/core/parse.hpp>

#include <fmt/format.h>

#include "test_support.hpp"

using namespace cuarch;

TEST_CASE("compiler spellings", "[format]") {
  CUARCH_CHECK_BOTH(to_text(CUARCH_ARCH("12.0a")).view() == "sm_120a");
  CUARCH_CHECK_BOTH(to_text(CUARCH_ARCH("compute_90a")).view() == "compute_90a");
  CUARCH_CHECK_BOTH(to_text(CUARCH_ARCH("lto_100f")).view() == "lto_100f");
  CUARCH_CHECK_BOTH(gencode_flag(CUARCH_ARCH("sm_90a")).view() == "-gencode=arch=compute_90a,code=sm_90a");
  CUARCH_CHECK_BOTH(gencode_flag(CUARCH_ARCH("compute_90")).view() == "-gencode=arch=compute_90,code=compute_90");
  CUARCH_CHECK_BOTH(nvrtc_arch_option(CUARCH_ARCH("sm_120a")).view() == "--gpu-architecture=sm_120a");
  CUARCH_CHECK_BOTH(nvrtc_arch_option(CUARCH_ARCH("lto_90")).view() == "--gpu-architecture=compute_90");
  CUARCH_CHECK_BOTH(dotted(CUARCH_ARCH("sm_100f")).view() == "10.0f");
  CUARCH_CHECK_BOTH(cmake_spelling(CUARCH_ARCH("sm_120a"))->view() == "120a-real");
  CUARCH_CHECK_BOTH(cmake_spelling(CUARCH_ARCH("compute_90"))->view() == "90-virtual");
  CUARCH_CHECK_BOTH(!cmake_spelling(CUARCH_ARCH("lto_90")));
}

namespace {
// Every spelling of every target of every known compute capability parses back to itself.
constexpr bool round_trips() {
  constexpr arch_variant variants[] = {arch_variant::baseline, arch_variant::arch_specific,
                                       arch_variant::family_specific};
  constexpr arch_form forms[] = {arch_form::sass, arch_form::ptx, arch_form::lto};
  for (const auto& row : arch_table)
    for (auto v : variants) {
      if (!variant_exists(row.cc, v)) continue;
      for (auto f : forms) {
        const arch_target t{row.cc, v, f};
        const auto back = parse_arch(to_text(t).view());
        if (!back || *back != t) return false;
        if (f == arch_form::lto) continue;
        const auto cm = parse_arch_list(cmake_spelling(t)->view(), arch_dialect::cmake);
        if (!cm || cm->size() != 1 || (*cm)[0].target != t) return false;
        const auto gc = parse_arch_list(gencode_flag(t).view(), arch_dialect::nvcc);
        if (!gc || gc->size() != 1 || (*gc)[0].target != t) return false;
        if (f == arch_form::sass && detail::torch_supports(dotted(t).view())) {  // PyTorch's own list
          const auto dt = parse_arch_list(dotted(t).view(), arch_dialect::torch);
          if (!dt || dt->size() != 1 || (*dt)[0].target != t) return false;
        }
      }
    }
  return true;
}
}  // namespace

TEST_CASE("every spelling round-trips through the parser", "[format]") { CUARCH_CHECK_BOTH(round_trips()); }

TEST_CASE("fmt::format works for every public value type", "[format][fmt]") {
  CHECK(fmt::format("{}", CUARCH_ARCH("sm_120a")) == "sm_120a");
  CHECK(fmt::format("{}", compute_capability{12, 1}) == "12.1");
  CHECK(fmt::format("{}", cuda_version{12, 4, 127}) == "12.4.127");
  CHECK(fmt::format("{}", ptx_isa_version{9, 0}) == "9.0");
  CHECK(fmt::format("{}", driver_version{580, 65, 6}) == "580.65.06");
  CHECK(fmt::format("{}", source_kind::nvrtc) == "NVRTC");
  CHECK(fmt::format("{}", errc::needs_newer_toolkit) == "needs a newer toolkit");
  CHECK(fmt::format("{:>9}", CUARCH_ARCH("sm_90")) == "    sm_90");  // format specs pass through
  const error e = parse_arch("compute_90b").error();
  CHECK(fmt::format("{}", e) == e.message());
}
