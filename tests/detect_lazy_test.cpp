// detect() looks only for the roles a request needs, stops a role at its answer when asked to,
// and finishes within one deadline however many tools hang — recording what it did not ask.
// The hanging programs here write a marker file when started, so "never started" is checked
// directly, not inferred from timing alone.
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"
#include "timing_bound.hpp"

using cuarch::detect_mode;
using cuarch::detect_role;
using cuarch::errc;
using cuarch::source_kind;
namespace fs = std::filesystem;
using std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

const std::string& stub_dir() {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path;
}

/// A program that records that it was started, then hangs.
void write_hanging_tool(const std::string& path, const std::string& marker) {
  // sleep by its absolute path: the snapshot's PATH, all its programs get, holds only the search dirs.
  cuarch_test::write_file(path, "#!/bin/sh\n: > '" + marker + "'\nexec /bin/sleep 1000\n", true);
}

bool started(const std::string& marker) { return ::access(marker.c_str(), F_OK) == 0; }

std::size_t count(const cuarch::detection& d, source_kind kind) {
  std::size_t n = 0;
  for (const auto& c : d.candidates)
    if (c.source == kind) ++n;
  return n;
}

double seconds_since(steady_clock::time_point t) {
  return std::chrono::duration<double>(steady_clock::now() - t).count();
}

struct clean_stub_env {
  cuarch_test::scoped_env env;
  clean_stub_env() {
    for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  }
};

}  // namespace

TEST_CASE("the defaults are the doctor's: every role, every candidate, a 10 s deadline", "[detect][lazy]") {
  const cuarch::detect_options o;
  CHECK(o.roles == cuarch::role_set::all());
  for (auto r : {detect_role::jit_compiler, detect_role::offline_compiler, detect_role::runtime, detect_role::driver,
                 detect_role::devices, detect_role::toolkit_files})
    CHECK(o.roles.has(r));
  CHECK(o.mode == detect_mode::enumerate_all);
  CHECK(o.deadline == std::chrono::seconds(10));
  CHECK(cuarch::default_detection_deadline == std::chrono::seconds(10));
  const cuarch::role_set jit = detect_role::jit_compiler;
  CHECK(jit.has(detect_role::jit_compiler));
  CHECK_FALSE(jit.has(detect_role::offline_compiler));
  CHECK((detect_role::jit_compiler | detect_role::devices).has(detect_role::devices));
}

TEST_CASE("with only the NVRTC role nothing else is loaded, run or read", "[detect][lazy]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("lazy-nvrtc");
  fs::create_directories(t + "/home/lib64");
  fs::copy_file(stub_dir() + "/nvrtc/libnvrtc.so.12", t + "/home/lib64/libnvrtc.so.12");
  cuarch_test::write_file(t + "/home/version.json", "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.8.1\"}}\n");
  write_hanging_tool(t + "/home/bin/nvcc", t + "/home-nvcc-started");
  write_hanging_tool(t + "/path/nvcc", t + "/path-nvcc-started");
  fs::create_directories(t + "/driver");
  fs::copy_file(stub_dir() + "/lib/libcuda.so.1",
                t + "/driver/libcuda.so.1");  // a fresh file: mapped only if loaded here
  auto opts = cuarch_test::hermetic(
      {{"CUDA_HOME", t + "/home"}, {"PATH", t + "/path"}, {"CUARCH_LIBCUDA", t + "/driver/libcuda.so.1"}});
  opts.path_search = true;
  opts.roles = detect_role::jit_compiler;
  opts.tool_timeout = std::chrono::seconds(30);
  opts.deadline = std::chrono::seconds(60);

  const auto start = steady_clock::now();
  const auto d = cuarch::detect(opts);
  CHECK(seconds_since(start) < cuarch_test::prompt_bound(0s, 5s).count());  // a hanging nvcc would take 20-30 s
  REQUIRE(d.jit_compiler.index);
  CHECK(d.chosen(d.jit_compiler)->path == t + "/home/lib64/libnvrtc.so.12");
  CHECK_FALSE(started(t + "/home-nvcc-started"));
  CHECK_FALSE(started(t + "/path-nvcc-started"));
  CHECK(count(d, source_kind::nvcc) == 0);
  CHECK(count(d, source_kind::driver) == 0);
  CHECK(count(d, source_kind::toolkit_files) == 0);
  for (const auto& p : cuarch::loaded_library_paths("libcuda.so.")) CHECK(p != t + "/driver/libcuda.so.1");
  for (const cuarch::selection* s : {&d.offline_compiler, &d.runtime, &d.driver}) {
    CHECK_FALSE(s->asked);
    CHECK_FALSE(s->index);
    CHECK_FALSE(s->failure);
    CHECK(s->why.find("not asked") == 0);
  }
  CHECK(d.jit_compiler.asked);
  CHECK_FALSE(d.driver_devices.has_value());
}

TEST_CASE("first_answer: the candidate that governs ends the walk; five hanging nvcc below it are never started",
          "[detect][lazy]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("lazy-first");
  std::string path = t + "/good";
  fs::create_directories(t + "/good");
  fs::copy_file(stub_dir() + "/bin/nvcc-12.8", t + "/good/nvcc");
  std::vector<std::string> markers;
  for (int i = 0; i < 5; ++i) {
    const std::string dir = t + "/hang" + std::to_string(i);
    markers.push_back(dir + "-started");
    write_hanging_tool(dir + "/nvcc", markers.back());
    path += ":" + dir;
  }
  auto opts = cuarch_test::hermetic({{"PATH", path}});
  opts.path_search = true;
  opts.roles = detect_role::offline_compiler;
  opts.mode = detect_mode::first_answer;
  opts.tool_timeout = std::chrono::seconds(20);

  const auto start = steady_clock::now();
  const auto d = cuarch::detect(opts);
  CHECK(seconds_since(start) < cuarch_test::prompt_bound(0s, 5s).count());  // a hanging nvcc would take 20-30 s
  REQUIRE(d.offline_compiler.index);
  CHECK(d.chosen(d.offline_compiler)->path == t + "/good/nvcc");
  CHECK(count(d, source_kind::nvcc) == 1);  // the lower ones are not even listed
  for (const auto& m : markers) CHECK_FALSE(started(m));
  REQUIRE(d.nvcc_on_path);
  CHECK(d.candidates[*d.nvcc_on_path].path == t + "/good/nvcc");
  CHECK_FALSE(d.deadline_passed);
}

TEST_CASE("one deadline bounds the whole detection; what it leaves is recorded as not probed, never skipped",
          "[detect][deadline]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("deadline");
  std::string path;
  std::vector<std::string> markers;
  for (int i = 0; i < 5; ++i) {
    const std::string dir = t + "/hang" + std::to_string(i);
    markers.push_back(dir + "-started");
    write_hanging_tool(dir + "/nvcc", markers.back());
    path += (path.empty() ? "" : ":") + dir;
  }
  fs::create_directories(t + "/good");
  fs::copy_file(stub_dir() + "/bin/nvcc-12.8", t + "/good/nvcc");
  path += ":" + t + "/good";  // an nvcc that would answer, below the hanging ones
  auto opts = cuarch_test::hermetic({{"PATH", path}});
  opts.path_search = true;
  opts.tool_timeout = std::chrono::seconds(10);  // each alone would wait 10 s: 50 s in all without the deadline
  opts.deadline = std::chrono::milliseconds(1500);

  const auto start = steady_clock::now();
  const auto d = cuarch::detect(opts);
  const double took = seconds_since(start);
  CHECK(took >= 1.4);
  // The deadline, plus reaping one killed probe and the rest of the walk (timing_bound.hpp).
  const double bound = cuarch_test::prompt_bound(1500ms, 2500ms).count();
  INFO("took " << took << " s; bound " << bound << " s");
  CHECK(took < bound);
  CHECK(d.deadline_passed);

  std::vector<const cuarch::candidate*> nvcc;
  for (const auto& c : d.candidates)
    if (c.source == source_kind::nvcc) nvcc.push_back(&c);
  REQUIRE(nvcc.size() == 6);  // every nvcc on PATH is recorded
  REQUIRE_FALSE(nvcc[0]->result);
  CHECK(nvcc[0]->probed);
  CHECK(nvcc[0]->result.error().code == errc::process_timed_out);  // killed when the time left ran out
  CHECK(started(markers[0]));
  for (std::size_t i = 1; i < nvcc.size(); ++i) {
    INFO(nvcc[i]->path);
    CHECK_FALSE(nvcc[i]->probed);
    REQUIRE_FALSE(nvcc[i]->result);
    CHECK(nvcc[i]->result.error().code == errc::deadline_exceeded);
    CHECK(nvcc[i]->result.error().location.view() == nvcc[i]->path);
    CHECK(nvcc[i]->result.error().message().find("deadline") != std::string::npos);
    if (i < markers.size()) CHECK_FALSE(started(markers[i]));
  }
  REQUIRE(d.offline_compiler.failure);
  CHECK_FALSE(d.offline_compiler.given_and_failed);
  CHECK(d.offline_compiler.why.find("deadline") != std::string::npos);
  REQUIRE(d.nvcc_on_path);
  CHECK(d.candidates[*d.nvcc_on_path].path == t + "/hang0/nvcc");
}

TEST_CASE("a deadline already passed asks nothing and says so for every role", "[detect][deadline]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("deadline0");
  fs::create_directories(t + "/home/lib64");
  fs::copy_file(stub_dir() + "/nvrtc/libnvrtc.so.12", t + "/home/lib64/libnvrtc.so.12");
  auto opts = cuarch_test::hermetic({{"CUDA_HOME", t + "/home"}});
  opts.deadline = std::chrono::milliseconds(0);
  const auto d = cuarch::detect(opts);
  CHECK(d.deadline_passed);
  std::size_t nvrtc = 0;
  for (const auto& c : d.candidates) {
    if (c.source != source_kind::nvrtc) continue;
    ++nvrtc;
    CHECK_FALSE(c.probed);
    CHECK(c.result.error().code == errc::deadline_exceeded);
  }
  CHECK(nvrtc == 1);
  for (const auto& p : cuarch::loaded_library_paths("libnvrtc")) CHECK(p != t + "/home/lib64/libnvrtc.so.12");
  REQUIRE(d.jit_compiler.failure);
  CHECK(d.jit_compiler.failure->code == errc::deadline_exceeded);
  CHECK(d.jit_compiler.why.find("deadline") != std::string::npos);
}
