// The report: every planted disagreement of the make-layouts.sh scenarios is found (and nothing
// that is not there), each finding says what it means, the text and JSON renderings hold it all,
// and `cuarch doctor` (when built) reports it end to end.
#include <cuarch/doctor/report.hpp>
#include <cuarch/sources/toolkit_files.hpp>  // detail::json_strings validates the JSON

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"
#include "fuzz/json_invariants.hpp"  // a strict JSON reader, independent of the writer
#include "test_paths.hpp"

using cuarch::errc;
using cuarch::severity;
using cuarch_test::scoped_env;

namespace {

std::vector<std::string> kinds(const std::vector<cuarch::finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(std::string(cuarch::to_string(f.kind)));
  return out;
}
bool has(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

const std::string& stub_dir() {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path;
}

}  // namespace

TEST_CASE("every scenario: the planted disagreements are found, each with its meaning; nothing else is claimed",
          "[report][layouts][real]") {
  const auto& root = cuarch_test::layouts();
  if (!root) SKIP(root.why_not);
  const auto names = cuarch_test::read_lines(root.path + "/scenarios");
  REQUIRE(names.size() >= 10);
  for (const auto& line : names) {
    const std::string name = line.substr(0, line.find(' '));
    // Scenarios that need a fresh process (LD_LIBRARY_PATH) run only through the command line:
    // tests/fixtures/doctor-layouts.sh and the CLI test below.
    if (cuarch_test::load_scenario(root.path, name).cli_only) continue;
    DYNAMIC_SECTION(name) {
      const auto s = cuarch_test::load_scenario(root.path, name);
      if (!s.skip.empty()) SKIP(s.skip);
      scoped_env env;
      cuarch_test::apply_stub_env(env, s);
      const auto d = cuarch::detect(s.options);
      const auto findings = cuarch::find_disagreements(d);
      const auto k = kinds(findings);
      for (const auto& want : s.findings) {
        INFO("expected finding " << want);
        CHECK(cuarch::parse_finding_kind(want));  // a misspelt expectation would pass as "absent"
        CHECK(has(k, want));
      }
      for (const auto& not_want : s.absent) {
        INFO("unexpected finding " << not_want);
        CHECK(cuarch::parse_finding_kind(not_want));
        CHECK_FALSE(has(k, not_want));
      }
      for (const auto& f : findings) {
        CHECK_FALSE(f.what.empty());
        CHECK_FALSE(f.meaning.empty());
      }
      const std::string text = cuarch::render_text(d, findings);
      for (const auto& g : s.grep) {
        INFO("text report lacks: " << g << "\n" << text);
        CHECK(text.find(g) != std::string::npos);
      }
      CHECK(cuarch::detail::json_strings::read(cuarch::render_json(d, findings)));
    }
  }
}

TEST_CASE("the driver decides what loads: PTX newer than it, a runtime beyond minor-version compatibility", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_NVRTC_VERSION", "13.0");
  env.set("CUARCH_STUB_DEVICES", "12.0");
  auto opts = cuarch_test::hermetic(
      {{"CUARCH_NVRTC", stub_dir() + "/nvrtc/libnvrtc.so.12"}, {"CUARCH_LIBCUDA", stub_dir() + "/lib/libcuda.so.1"}});
  SECTION("driver 12.8 under NVRTC 13.0: PTX ISA 9.0 vs 8.7") {
    env.set("CUARCH_STUB_DRIVER_VERSION", "12080");
    const auto fs = cuarch::find_disagreements(cuarch::detect(opts));
    const auto it = std::find_if(fs.begin(), fs.end(), [](const cuarch::finding& f) {
      return f.kind == cuarch::finding_kind::ptx_too_new_for_driver;
    });
    REQUIRE(it != fs.end());
    CHECK(it->level == severity::problem);
    CHECK(it->what.find("PTX ISA 9.0") != std::string::npos);
    CHECK(it->what.find("up to 8.7") != std::string::npos);
    CHECK(it->meaning.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION") != std::string::npos);
  }
  SECTION("driver 13.0: nothing to say") {
    env.set("CUARCH_STUB_DRIVER_VERSION", "13000");
    const auto k = kinds(cuarch::find_disagreements(cuarch::detect(opts)));
    CHECK_FALSE(has(k, "ptx_too_new_for_driver"));
    CHECK_FALSE(has(k, "runtime_vs_driver"));
  }
  SECTION("how the devices were read is said: cuInit, because no NVML sits beside the stub driver") {
    env.set("CUARCH_STUB_DRIVER_VERSION", "13000");
    const auto d = cuarch::detect(opts);
    const auto fs = cuarch::find_disagreements(d);
    const std::string text = cuarch::render_text(d, fs);
    CHECK(text.find("read through cuInit (") != std::string::npos);
    CHECK(text.find("a process forked after this cannot use CUDA") != std::string::npos);
    const std::string json = cuarch::render_json(d, fs);
    CHECK(json.find("\"driver_via\":\"cuInit (") != std::string::npos);
    CHECK(json.find("\"driver_notes\":[\"devices read through cuInit because") != std::string::npos);
  }
}

TEST_CASE("CUDA_HOME's and CUDA_PATH's roots are told by what each root records, not by the environment read again",
          "[report]") {
  // A detection is a public value: its roots may come from one environment and its `env` from
  // another (a copy with env replaced, one built by hand). The findings read the roots themselves.
  using cuarch::discovery;
  cuarch::detection d;
  d.toolkit_roots.push_back({"/opt/cuda-12.8",
                             "/opt/cuda-12.8",
                             discovery::explicit_argument,
                             "explicit toolkit root /opt/cuda-12.8",
                             {"CUDA_HOME=/opt/cuda-12.8"}});
  d.toolkit_roots.push_back({"/opt/cuda-12.9", "/opt/cuda-12.9", discovery::environment, "CUDA_PATH=/opt/cuda-12.9"});
  cuarch::candidate nvcc{cuarch::source_kind::nvcc, cuarch::source_kind::none, discovery::path_search,
                         "PATH /opt/cuda-13.0/bin", "/opt/cuda-13.0/bin/nvcc"};
  nvcc.toolkit_root = "/opt/cuda-13.0";
  nvcc.result = cuarch::observation{
      cuarch::source_kind::nvcc, {13, 0, 48}, nvcc.path, discovery::path_search, "release 13.0"};
  d.candidates.push_back(nvcc);
  d.nvcc_on_path = 0;
  for (const auto& env :
       {cuarch::environment{}, cuarch::environment{{"CUDA_HOME", "/elsewhere"}, {"CUDA_PATH", "/elsewhere"}}}) {
    d.env = env;
    std::vector<std::string> what;
    for (const auto& f : cuarch::find_disagreements(d))
      if (f.kind == cuarch::finding_kind::cuda_home_vs_path || f.kind == cuarch::finding_kind::cuda_home_vs_cuda_path)
        what.push_back(f.what);
    REQUIRE(what.size() == 2);
    CHECK(
        what[0] ==
        "CUDA_HOME=/opt/cuda-12.8 and CUDA_PATH=/opt/cuda-12.9 are different toolkits (/opt/cuda-12.8 vs /opt/cuda-12.9)");
    CHECK(what[1] ==
          "CUDA_HOME=/opt/cuda-12.8 holds no nvcc, but the first nvcc on PATH is /opt/cuda-13.0/bin/nvcc (nvcc 13.0.48, "
          "toolkit /opt/cuda-13.0)");
  }
}

TEST_CASE("an empty device list given to detect() is no device, never the driver's devices", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_DRIVER_VERSION", "13000");
  env.set("CUARCH_STUB_DEVICES", "12.0");
  auto opts = cuarch_test::hermetic({{"CUARCH_LIBCUDA", stub_dir() + "/lib/libcuda.so.1"}});
  opts.device_ccs = std::vector<cuarch::compute_capability>{};
  const auto d = cuarch::detect(opts);
  const auto devs = d.devices();
  REQUIRE_FALSE(devs);
  CHECK(devs.error().code == errc::no_device);
  CHECK(devs.error().raw.view() == "the device list is empty");
  const auto fs = cuarch::find_disagreements(d);
  CHECK(cuarch::render_text(d, fs).find("none: ") != std::string::npos);
  CHECK(cuarch::render_json(d, fs).find("\"given\":{\"error\":{\"code\":\"no_device\"") != std::string::npos);
}

TEST_CASE("a compiler newer than cuarch's table is never called too old; the table's age is said", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_NVRTC_VERSION", "99.0");
  env.set("CUARCH_STUB_NVRTC_ARCHS", "90,120,121,150");
  auto opts = cuarch_test::hermetic({{"CUARCH_NVRTC", stub_dir() + "/nvrtc/libnvrtc.so.12"}});
  opts.device_ccs = std::vector<cuarch::compute_capability>{{12, 0}, {15, 0}};
  const auto d = cuarch::detect(opts);
  const auto k = kinds(cuarch::find_disagreements(d));
  CHECK(has(k, "table_older_than_compiler"));
  CHECK_FALSE(has(k, "device_not_buildable"));  // 15.0 is unknown to the table, but NVRTC lists 150
  CHECK(has(k, "mixed_devices"));
}

TEST_CASE("devices the governing compilers cannot build are problems, per compiler and device", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.4");
  env.set("CUARCH_STUB_NVRTC_ARCHS", "50,75,80,86,89,90");
  const std::string t = cuarch_test::make_temp_dir("build");
  cuarch_test::write_file(t + "/bin/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", true);
  auto opts = cuarch_test::hermetic(
      {{"CUARCH_NVRTC", stub_dir() + "/nvrtc/libnvrtc.so.12"}, {"CUARCH_NVCC", t + "/bin/nvcc"}});
  opts.device_ccs = std::vector<cuarch::compute_capability>{{12, 0}, {12, 1}, {9, 0}};
  const auto fs = cuarch::find_disagreements(cuarch::detect(opts));
  std::vector<std::string> lines;
  for (const auto& f : fs)
    if (f.kind == cuarch::finding_kind::device_not_buildable) lines.push_back(f.what);
  REQUIRE(lines.size() == 3);  // NVRTC 12.4: 12.0 and 12.1; nvcc 12.8: 12.1 only; 9.0 fine for both
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& w) { return w.find("JIT NVRTC 12.4") == 0; }) ==
        2);
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& w) {
          return w.find("offline nvcc 12.8.93") == 0 && w.find("sm_121 needs CUDA >= 12.9") != std::string::npos;
        }) == 1);
  CHECK(has(kinds(fs), "nvcc_vs_nvrtc"));
}

TEST_CASE("the text and JSON renderings carry every source, role, error and finding", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  auto opts = cuarch_test::hermetic({{"CUDA_HOME", "/nonexistent/cuda"}, {"CUARCH_NVCC", stub_dir() + "/bin/nvcc-fail"}});
  opts.device_ccs = std::vector<cuarch::compute_capability>{{9, 0}};
  const auto d = cuarch::detect(opts);
  const auto fs = cuarch::find_disagreements(d);
  const auto k = kinds(fs);
  CHECK(has(k, "invalid_environment"));
  CHECK(has(k, "explicit_source_failed"));
  CHECK(fs.front().level == severity::problem);  // most severe first
  const std::string text = cuarch::render_text(d, fs);
  for (const char* part : {"compile path", "load path", "devices", "sources (discovery order", "findings (",
                           "CUDA_HOME=/nonexistent/cuda", "exit status 3", "0  9.0"})
    CHECK(text.find(part) != std::string::npos);
  const std::string json = cuarch::render_json(d, fs);
  const auto parsed = cuarch::detail::json_strings::read(json);
  REQUIRE(parsed);
  CHECK(json.find("\"offline_compiler\":{\"candidate\":null") != std::string::npos);
  CHECK(json.find("\"kind\":\"invalid_environment\"") != std::string::npos);
  CHECK(json.find("\"code\":\"process_failed\"") != std::string::npos);
}

TEST_CASE("finding kinds: one name map, names unique and snake_case, read back exactly", "[report]") {
  std::vector<std::string_view> names;
  for (const auto kind : cuarch::all_finding_kinds) {
    const std::string_view name = cuarch::to_string(kind);
    INFO(name);
    CHECK(name != "unknown");
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string_view::npos);
    CHECK(std::find(names.begin(), names.end(), name) == names.end());
    names.push_back(name);
    CHECK(cuarch::parse_finding_kind(name) == kind);
  }
  CHECK(names.size() ==
        static_cast<std::size_t>(cuarch::finding_kind::table_older_than_compiler) + 1);  // every enumerator listed
  CHECK_FALSE(cuarch::parse_finding_kind("compile_time_"));
  CHECK_FALSE(cuarch::parse_finding_kind("NVCC_VS_NVRTC"));
  CHECK_FALSE(cuarch::parse_finding_kind(""));
}

TEST_CASE("hostile bytes from the machine: text escapes them, JSON stays valid UTF-8 and keeps them", "[report]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  // A CUDA_HOME with an ESC sequence (recolours a terminal) and bytes that are not UTF-8.
  const std::string hostile = "/nonexistent/\x1b[31mred\xff\xfe";
  auto opts = cuarch_test::hermetic({{"CUDA_HOME", hostile}});
  opts.device_ccs = std::vector<cuarch::compute_capability>{{9, 0}};
  const auto d = cuarch::detect(opts);
  const auto fs = cuarch::find_disagreements(d);
  REQUIRE(has(kinds(fs), "invalid_environment"));

  const std::string text = cuarch::render_text(d, fs);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(cuarch_fuzz::is_valid_utf8(text));
  CHECK(text.find("/nonexistent/\\e[31mred\\xff\\xfe") != std::string::npos);

  const std::string json = cuarch::render_json(d, fs);
  CHECK(cuarch_fuzz::is_valid_utf8(json));
  const auto doc = cuarch_fuzz::strict_json_reader::read(json);
  REQUIRE(doc);
  CHECK(json.find(cuarch_fuzz::hex_of(hostile)) != std::string::npos);  // the raw bytes, recoverable
  // The environment object keeps the variable: replaced text plus its bytes.
  const auto* environment = doc->find("environment");
  REQUIRE(environment);
  const auto* home_bytes = environment->find("CUDA_HOME_bytes");
  REQUIRE(home_bytes);
  CHECK(home_bytes->text == cuarch_fuzz::hex_of(hostile));
  // Every finding's "kind" is a finding_kind name.
  const auto* findings = doc->find("findings");
  REQUIRE(findings);
  REQUIRE(findings->elements.size() == fs.size());
  for (std::size_t i = 0; i < fs.size(); ++i) {
    const auto* kind = findings->elements[i].find("kind");
    REQUIRE(kind);
    CHECK(kind->text == cuarch::to_string(fs[i].kind));
  }
}

TEST_CASE("cuarch doctor end to end (when the command line is built)", "[report][cli]") {
#ifndef CUARCH_CLI_PATH
  SKIP("the cuarch command line is not built in this tree");
#else
  const std::string cli = CUARCH_CLI_PATH;
  cuarch::process_limits limits;
  limits.timeout = std::chrono::seconds(60);
  SECTION("--json on this machine: valid JSON, exit 0") {
    const auto r = cuarch::run_process({cli, "doctor", "--json", "--device-cc", "9.0"}, limits);
    REQUIRE(r);
    CHECK(r->exit_status == 0);
    CHECK(cuarch::detail::json_strings::read(r->out));
  }
  SECTION("--strict exits 1 on a problem; usage errors exit 2") {
    const auto strict = cuarch::run_process({cli, "doctor", "--isolated", "--strict", "--nvcc", "/nonexistent/nvcc"},
                                            limits);
    REQUIRE(strict);
    CHECK(strict->exit_status == 1);
    CHECK(strict->out.find("explicit_source_failed") != std::string::npos);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{cli, "doctor", "--device-cc", "12.0x"},
                                                std::vector<std::string>{cli, "doctor", "--timeout", "soon"},
                                                std::vector<std::string>{cli, "doctor", "--bogus"}}) {
      const auto r = cuarch::run_process(bad, limits);
      REQUIRE(r);
      CHECK(r->exit_status == 2);
    }
  }
  SECTION("the scenarios, through the command line") {
    const auto& root = cuarch_test::layouts();
    if (!root) SKIP(root.why_not);
    const auto r = cuarch::run_process({"/usr/bin/env", "CUARCH_LAYOUTS_DIR=" + root.path, "bash",
                                        cuarch_test::source_dir() + "/tests/fixtures/doctor-layouts.sh", cli},
                                       [] {
                                         cuarch::process_limits l;
                                         l.timeout = std::chrono::seconds(300);
                                         return l;
                                       }());
    REQUIRE(r);
    INFO(r->out);
    CHECK(r->exit_status == 0);
  }
#endif
}

TEST_CASE("a driver too old to drive a device it shows is a problem, with the driver to update to", "[report][driver]") {
  // The stub libcuda serves CUDA 12.4 and shows a 12.0 (Blackwell) GPU and a 9.0: NVIDIA's drivers
  // drive Blackwell from CUDA 12.8 on (core/compatibility.hpp, check_driver_drives_device).
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_DRIVER_VERSION", "12040");
  env.set("CUARCH_STUB_DEVICES", "12.0,9.0");
  const auto d = cuarch::detect(cuarch_test::hermetic({{"CUARCH_LIBCUDA", stub_dir() + "/lib/libcuda.so.1"}}));
  std::vector<cuarch::finding> found;
  for (const auto& f : cuarch::find_disagreements(d))
    if (f.kind == cuarch::finding_kind::driver_cannot_drive_device) found.push_back(f);
  REQUIRE(found.size() == 1);  // the 9.0 GPU is driven
  INFO(found[0].what << " / " << found[0].meaning);
  CHECK(found[0].level == cuarch::severity::problem);
  CHECK(found[0].what.find("compute capability 12.0") != std::string::npos);
  CHECK(found[0].meaning.find("update the driver to one that serves CUDA 12.8 or newer") != std::string::npos);
}
