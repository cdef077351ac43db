// A process that asks again pays no discovery when nothing its answer rests on changed, and is
// answered afresh when something did: a new nvcc earlier on PATH, a compiler replaced in place, another
// environment (front_door/warm_detection.hpp). "No discovery" is seen through the progress hook,
// which announces every probe a fresh detection makes.
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <ctime>

#include <string>
#include <string_view>
#include <vector>

#include "fixtures/fixture_support.hpp"

namespace {

void fake_nvcc(const std::string& path, const std::string& version) {
  cuarch_test::write_file(path,
                          "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                          "echo 'Cuda compilation tools, release " +
                              version.substr(0, version.rfind('.')) + ", V" + version + "'\n",
                          true);
}

/// Sets `path`'s modification time 10 s back, so that a change made right after cannot share its
/// clock tick (file systems keep coarse timestamps): the test is about what changed, not about when.
void age(const std::string& path) {
  const struct timespec back[2] = {{::time(nullptr) - 10, 0}, {::time(nullptr) - 10, 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), back, 0) == 0);
}

struct probes {
  int count = 0;
  cuarch::progress_hook hook() {
    return {[](void* self, std::string_view) noexcept { ++static_cast<probes*>(self)->count; }, this};
  }
};

/// A toolkit with nvcc 13.0 at a default location, and an empty directory first on PATH.
struct layout {
  std::string dir = cuarch_test::make_temp_dir("warm");
  std::string bin = dir + "/bin";
  std::string toolkit = dir + "/cuda-13.0";
  probes heard;
  layout() {
    fake_nvcc(toolkit + "/bin/nvcc", "13.0.88");
    cuarch_test::write_file(bin + "/.keep", "");
    for (const auto& p : {toolkit + "/bin/nvcc", toolkit + "/bin", toolkit, bin, dir}) age(p);
  }
  cuarch::detect_options options(const std::string& cuda_home = {}) {
    cuarch::environment env{{"PATH", bin}};
    if (!cuda_home.empty()) env.set("CUDA_HOME", cuda_home);
    auto o = cuarch_test::hermetic(env);
    o.path_search = o.default_locations = true;
    o.default_roots = {toolkit};
    o.roles = cuarch::detect_role::offline_compiler;
    o.mode = cuarch::detect_mode::first_answer;
    o.progress = heard.hook();
    return o;
  }
  /// The nvcc that decides, asked through the memo; `fresh` says whether it probed anything.
  std::string decider(const cuarch::detect_options& o, bool& fresh) {
    const int before = heard.count;
    const auto d = cuarch::detail::detect_or_recall(o);
    fresh = heard.count != before;
    const auto* c = d.chosen(d.offline_compiler);
    return c ? c->path + " " + cuarch::to_text(c->result->version).str() : "none";
  }
};

}  // namespace

TEST_CASE("asked again, the same question is answered without discovery", "[warm][detect]") {
  layout l;
  bool fresh = false;
  const std::string first = l.decider(l.options(), fresh);
  CHECK(first == l.toolkit + "/bin/nvcc 13.0.88");
  CHECK(fresh);
  CHECK(l.decider(l.options(), fresh) == first);
  CHECK_FALSE(fresh);
}

TEST_CASE("a new nvcc earlier on PATH is seen at the next call", "[warm][detect]") {
  layout l;
  bool fresh = false;
  l.decider(l.options(), fresh);
  fake_nvcc(l.bin + "/nvcc", "12.8.93");  // its directory gains an entry
  CHECK(l.decider(l.options(), fresh) == l.bin + "/nvcc 12.8.93");
  CHECK(fresh);
  SECTION("and the compiler replaced in place, the same size, is asked again") {
    age(l.bin + "/nvcc");
    l.decider(l.options(), fresh);
    fake_nvcc(l.bin + "/nvcc", "12.9.41");
    CHECK(l.decider(l.options(), fresh) == l.bin + "/nvcc 12.9.41");
    CHECK(fresh);
  }
}

TEST_CASE("another environment is another question; both are kept", "[warm][detect]") {
  layout l;
  bool fresh = false;
  l.decider(l.options(), fresh);
  l.decider(l.options(l.toolkit), fresh);
  CHECK(fresh);
  l.decider(l.options(), fresh);
  CHECK_FALSE(fresh);
  l.decider(l.options(l.toolkit), fresh);
  CHECK_FALSE(fresh);
}

TEST_CASE("options without a snapshot read the live environment, so they are asked afresh", "[warm][detect]") {
  layout l;
  const std::string other = l.dir + "/other";
  fake_nvcc(other + "/nvcc", "12.8.93");
  auto o = l.options();
  o.env.reset();                 // the process's own environment, read at each call
  o.environment_places = false;  // not the machine's CUDA_HOME: only PATH changes here
  const char* const saved = std::getenv("PATH");
  const std::string old_path = saved ? saved : "";
  REQUIRE(::setenv("PATH", l.bin.c_str(), 1) == 0);
  bool fresh = false;
  const std::string first = l.decider(o, fresh);
  REQUIRE(::setenv("PATH", other.c_str(), 1) == 0);  // another PATH, no directory on the old one changed
  const std::string second = l.decider(o, fresh);
  REQUIRE(::setenv("PATH", old_path.c_str(), 1) == 0);
  CHECK(first == l.toolkit + "/bin/nvcc 13.0.88");
  CHECK(second == other + "/nvcc 12.8.93");
  CHECK(fresh);
}

TEST_CASE("the front door asked twice probes once and answers the same", "[warm][front_door]") {
  layout l;
  cuarch::resolve_options o;
  o.isolated = true;
  o.nvcc = l.toolkit + "/bin/nvcc";
  o.archs = "9.0a;12.0";
  o.env_snapshot = cuarch::environment{};
  o.progress = l.heard.hook();
  const auto a = cuarch::resolve_here(o);
  const int after_first = l.heard.count;
  const auto b = cuarch::resolve_here(o);
  REQUIRE(a.result);
  REQUIRE(b.result);
  CHECK(after_first > 0);
  CHECK(l.heard.count == after_first);
  CHECK(cuarch::to_text(a.result->targets.front()).str() == cuarch::to_text(b.result->targets.front()).str());
  REQUIRE(b.compiler);
  CHECK(b.compiler->compiler.version == cuarch::cuda_version{13, 0, 88});
}
