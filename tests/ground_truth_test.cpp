// The knowledge table against what real NVRTC libraries said (tests/data/nvrtc_releases.tsv,
// recorded by scripts/toolkits/record-nvrtc.sh). For every recorded release and every candidate
// spelling the probe tried, the table's answer must equal the library's. Offline and fast.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/core/parse.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "test_paths.hpp"

using namespace cuarch;

namespace {

struct recorded_release {
  std::string release, origin, nvrtc_version, ptx_isa, default_target, supported, accepted;
};

/// A real library that disagrees with the table, and why the table is right about the release. The
/// table test below accepts exactly these differences and no others.
struct recorded_deviation {
  std::string_view release;        // full NVRTC release as recorded
  std::string_view origin_prefix;  // which build of it ("debian:")
  std::string_view spellings;      // comma-separated targets, or "supported:N" for nvrtcGetSupportedArchs
  std::string_view reason;
};

constexpr recorded_deviation recorded_deviations[] = {
    {"11.2.152", "debian:", "compute_53,sm_53,compute_62,sm_62,compute_72,sm_72",
     "Debian 11's libnvrtc-builtins11.2 lacks these Tegra builtins (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE "
     "\"failed to load builtins\"); NVIDIA's 11.7 and 11.8 libraries build them"},
    {"11.2.152", "debian:", "supported:69",
     "NVRTC 11.2 lists 69 in nvrtcGetSupportedArchs, a compute capability no GPU has; compiling for it fails"},
};

std::string data_path() {
#ifdef CUARCH_TEST_DATA_DIR
  return std::string(CUARCH_TEST_DATA_DIR) + "/nvrtc_releases.tsv";
#else
  const std::string here = __FILE__;
  const auto slash = here.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : here.substr(0, slash)) + "/data/nvrtc_releases.tsv";
#endif
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

std::vector<recorded_release> load() {
  std::ifstream in(data_path());
  std::vector<recorded_release> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("release\t", 0) == 0) continue;  // comments, header
    const auto f = split(line, '\t');
    if (f.size() != 7) FAIL("malformed row in " << data_path() << ": " << line);
    rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
  if (rows.empty()) FAIL("no recorded releases in " << data_path());  // a missing file must not pass vacuously
  return rows;
}

/// Every spelling the probe tried: {sm_, compute_} x sm numbers 10..159 x {"", a, f}.
std::vector<std::string> candidates() {
  std::vector<std::string> out;
  for (int n = 10; n <= 159; ++n)
    for (const char* prefix : {"compute_", "sm_"})
      for (const char* sfx : {"", "a", "f"}) out.push_back(prefix + std::to_string(n) + sfx);
  return out;
}

}  // namespace

TEST_CASE("the recorded data covers at least 12 real NVRTC releases", "[ground-truth]") {
  const auto rows = load();
  std::set<std::string> releases;
  for (const auto& r : rows) releases.insert(r.nvrtc_version);
  CHECK(releases.size() >= 12);
  CHECK(rows.size() >= releases.size());
  for (const char* must : {"11.8", "12.0", "12.4", "12.8", "12.9", "13.0"}) {
    INFO(must);
    CHECK(releases.count(must) == 1);
  }
}

TEST_CASE("the table agrees with every recorded NVRTC release on every candidate target", "[ground-truth]") {
  const auto all = candidates();
  for (const auto& r : load()) {
    INFO("release " << r.release << " from " << r.origin);
    const auto version = parse_cuda_version(r.release, source_kind::nvrtc);
    REQUIRE(version);
    REQUIRE(parse_cuda_version(r.nvrtc_version)->release() == version->release());

    const toolkit_row* row = find_toolkit_row(*version);
    REQUIRE(row != nullptr);  // every real release is in the table
    CHECK(std::string(to_text(row->ptx_isa).view()) == r.ptx_isa);

    // Differences recorded_deviations explains are excused, nothing else.
    std::set<std::string> excused;
    for (const auto& d : recorded_deviations)
      if (d.release == r.release && r.origin.rfind(std::string(d.origin_prefix), 0) == 0)
        for (const auto& sp : split(std::string(d.spellings), ',')) excused.insert(sp);

    std::set<std::string> accepted;
    for (const auto& a : split(r.accepted, ',')) accepted.insert(a);
    std::vector<std::string> disagreements;
    for (const auto& spelling : all) {
      const auto t = parse_arch(spelling);
      const bool table_says = t && is_buildable(*t, *version);
      const bool library_says = accepted.count(spelling) == 1;
      if (table_says != library_says && excused.count(spelling) == 0)
        disagreements.push_back(
            spelling + (library_says ? " (library builds it, table says no)" : " (table says yes, library refuses)"));
    }
    CHECK(disagreements == std::vector<std::string>{});

    // nvrtcGetSupportedArchs lists baseline archs only: exactly the table's baseline sm_ targets.
    if (r.supported != "-") {
      std::string live;
      for (const auto& n : split(r.supported, ','))
        if (excused.count("supported:" + n) == 0) live += (live.empty() ? "" : ",") + n;
      std::string from_table;
      for_each_buildable(*version, [&](const arch_target& t) {
        if (t.form == arch_form::sass && t.variant == arch_variant::baseline)
          from_table.append(from_table.empty() ? "" : ",")
              .append(std::to_string(t.cc.sm_number()));  // g++ 12 -O3: -Wrestrict
      });
      CHECK(from_table == live);
    }
  }
}
