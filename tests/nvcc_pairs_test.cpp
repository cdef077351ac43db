// Which targets can share one nvcc compilation: check_same_compilation (core/compatibility.hpp)
// against what the real nvcc 13.0 said about every pair of the targets it builds
// (tests/data/nvcc_pairs_13.0.tsv, recorded by scripts/toolkits/record-nvcc-pairs.sh), and the
// rule's users: target_set::from, the resolver, and cuarch check (check_targets).
#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/json_documents.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/policy.hpp>
#include <cuarch/resolve/resolver.hpp>
#include <cuarch/resolve/target_set.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.hpp"

using namespace cuarch;

namespace {

struct nvcc_pair {
  std::string first, second;
  bool accepted = false;
};

std::vector<nvcc_pair> recorded_pairs() {
  std::ifstream in(std::string(CUARCH_TEST_DATA_DIR) + "/nvcc_pairs_13.0.tsv");
  std::vector<nvcc_pair> pairs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("first\t", 0) == 0) continue;
    std::istringstream cols(line);
    nvcc_pair p;
    std::string verdict;
    std::getline(cols, p.first, '\t');
    std::getline(cols, p.second, '\t');
    std::getline(cols, verdict, '\t');
    p.accepted = verdict == "accepted";
    pairs.push_back(p);
  }
  return pairs;
}

arch_request request_of(std::string_view list) {
  arch_request r;
  r.list = list;
  r.overrides = env_override::none;
  return r;
}

constexpr arch_target sm(int major, int minor, arch_variant v = arch_variant::baseline) {
  return arch_target{compute_capability{major, minor}, v, arch_form::sass};
}
constexpr arch_variant F = arch_variant::family_specific, A = arch_variant::arch_specific;

}  // namespace

TEST_CASE("the rule: sm_XY and sm_XYf cannot share one nvcc compilation", "[nvcc][compatibility]") {
  static_assert(!check_same_compilation(sm(10, 0), sm(10, 0, F)).has_value());
  static_assert(!check_same_compilation(sm(12, 1, F), sm(12, 1)).has_value());
  static_assert(check_same_compilation(sm(10, 0), sm(10, 0, A)).has_value());
  static_assert(check_same_compilation(sm(10, 0, A), sm(10, 0, F)).has_value());
  static_assert(check_same_compilation(sm(10, 0), with_form(sm(10, 0, F), arch_form::ptx)).has_value());
  static_assert(check_same_compilation(sm(10, 0), sm(10, 3, F)).has_value());
  const auto e = check_same_compilation(sm(12, 0, F), sm(12, 0));
  REQUIRE_FALSE(e);
  CHECK(e.error().code == errc::targets_conflict);
  CHECK(e.error().target == sm(12, 0));
  CHECK(e.error().replacement == sm(12, 0, F));
  const std::string m = e.error().message();
  CHECK(m.find("sm_120 and sm_120f cannot be built in one nvcc compilation") != std::string::npos);
  CHECK(m.find("The same GPU code (`sm_120f`)") != std::string::npos);
  CHECK(m.find("fix: keep sm_120f alone") != std::string::npos);
}

TEST_CASE("cuarch agrees with the real nvcc 13.0 on every pair of targets it builds", "[nvcc][conformance]") {
  const auto pairs = recorded_pairs();
  REQUIRE(pairs.size() == 1035);  // 46 targets (cuarch list --toolkit 13.0), every unordered pair
  std::size_t refused = 0;
  for (const auto& p : pairs) {
    INFO(p.first << " + " << p.second << " (nvcc " << (p.accepted ? "accepted" : "refused") << ")");
    const auto a = parse_arch(p.first), b = parse_arch(p.second);
    REQUIRE(a);
    REQUIRE(b);
    refused += p.accepted ? 0 : 1;
    CHECK(check_same_compilation(*a, *b).has_value() == p.accepted);
    CHECK(target_set::from({*a, *b}).has_value() == p.accepted);
    const std::string list = p.first + ";" + p.second;
    const auto r = resolve_target_archs(request_of(list), compiler_info{source_kind::nvcc, {13, 0}, "", std::nullopt});
    CHECK(r.has_value() == p.accepted);
    if (r) CHECK(nvcc_gencode_flags(r->targets).size() == 2);
    CHECK(check_targets({*a, *b}, cuda_version{13, 0}).ok() == p.accepted);
  }
  CHECK(refused == 5);
}

TEST_CASE("resolution refuses the pair, naming both; best-effort keeps sm_XYf and says why", "[nvcc][resolve]") {
  const compiler_info nvcc13{source_kind::nvcc, {13, 0}, "", std::nullopt};
  const auto strict = resolve_target_archs(request_of("sm_100;sm_100f;sm_90"), nvcc13);
  REQUIRE_FALSE(strict);
  REQUIRE(strict.error().diagnostics.size() == 3);
  const auto& d = strict.error().diagnostics[0];
  CHECK(d.outcome == resolution_outcome::rejected);
  REQUIRE(d.reason);
  CHECK(d.reason->code == errc::targets_conflict);
  CHECK(d.message().find("sm_100 and sm_100f") != std::string::npos);

  const auto lenient = resolve_target_archs(request_of("sm_100;sm_100f;sm_90"), nvcc13, no_devices{},
                                            best_effort_policy{});
  REQUIRE(lenient);
  CHECK(nvcc_flags(lenient->targets) == "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100f,code=sm_100f");
  CHECK(lenient->diagnostics[0].outcome == resolution_outcome::rejected);

  const auto from = target_set::from({sm(11, 0), sm(11, 0, F)});
  REQUIRE_FALSE(from);
  CHECK(from.error().code == errc::targets_conflict);

  const auto report = check_targets({sm(10, 3), sm(10, 3, F)}, cuda_version{13, 0});
  REQUIRE_FALSE(report.ok());
  REQUIRE(report.items[0].reason);
  CHECK(report.items[0].reason->code == errc::targets_conflict);
  CHECK_FALSE(report.items[1].reason);
}

TEST_CASE("TORCH_CUDA_ARCH_LIST: a target PyTorch cannot spell is refused, never dropped", "[torch][outputs]") {
  // PyTorch's supported_arches has no 8.8: "8.8" and "8.8+PTX" raise "Unknown CUDA arch".
  const auto s88 = target_set::from({sm(8, 8), sm(9, 0)});
  REQUIRE(s88);
  const auto t = torch_cuda_arch_list(*s88);
  REQUIRE_FALSE(t);
  CHECK(t.error().code == errc::not_expressible);
  CHECK(t.error().target == sm(8, 8));
  CHECK(t.error().message().find("PyTorch") != std::string::npos);
  const auto p88 = target_set::from({sm(8, 8), with_form(sm(8, 8), arch_form::ptx)});
  REQUIRE(p88);
  CHECK_FALSE(torch_cuda_arch_list(*p88));
  // Every spelling PyTorch lists still works.
  const auto ok = target_set::from(
      {sm(9, 0, A), sm(10, 3, A), sm(11, 0), sm(12, 1), with_form(sm(12, 1), arch_form::ptx)});
  REQUIRE(ok);
  CHECK(torch_cuda_arch_list(*ok).value_or("") == "9.0a;10.3a;11.0;12.1+PTX");
}
