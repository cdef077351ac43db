// resolve_options::progress / detect_options::progress (issue 35): a front end is told each step that
// may take long before it starts, on the calling thread, in words that name it: a probe of nvcc, a
// directory walk and how far it is. `cuarch`'s progress line (tests/scripts/cli_progress_test.sh)
// shows them on a terminal.
#include <cuarch/detect.hpp>
#include <cuarch/front_door/inspect_here.hpp>

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "test_paths.hpp"

namespace {

struct heard {
  std::vector<std::string> steps;
  bool other_thread = false;
  std::thread::id caller = std::this_thread::get_id();

  cuarch::progress_hook hook() {
    return {[](void* self, std::string_view what) noexcept {
              auto& me = *static_cast<heard*>(self);
              me.steps.emplace_back(what);
              me.other_thread = me.other_thread || std::this_thread::get_id() != me.caller;
            },
            this};
  }
  bool has(const std::string& step) const { return std::find(steps.begin(), steps.end(), step) != steps.end(); }
};

}  // namespace

TEST_CASE("a probe of nvcc is announced before it runs, naming the program", "[progress]") {
  const std::string nvcc = std::string(CUARCH_SOURCE_DIR) + "/tests/fixtures/fake-nvcc/nvcc-12.8";
  heard h;
  cuarch::resolve_options o;
  o.isolated = true;
  o.nvcc = nvcc;
  o.devices = std::vector<cuarch::compute_capability>{{9, 0}};
  o.env_snapshot = cuarch::environment{};
  o.progress = h.hook();
  const auto done = cuarch::resolve_here(o);
  REQUIRE(done.result);
  CHECK(h.has("probing " + nvcc + " (--version)"));
  CHECK_FALSE(h.other_thread);
}

TEST_CASE("a directory walk says how far it is, file by file", "[progress]") {
  char dir_template[] = "/tmp/cuarch-progress-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("no CUDA here\n", f);
    std::fclose(f);
  }
  heard h;
  cuarch::resolve_options o;
  o.devices = std::vector<cuarch::compute_capability>{{9, 0}};
  o.progress = h.hook();
  const auto done = cuarch::inspect_here({dir}, o);
  CHECK(done.report.files.size() == 3);
  CHECK(h.steps == std::vector<std::string>{"reading " + dir, "reading " + dir + ": 1 of 3 files",
                                            "reading " + dir + ": 2 of 3 files", "reading " + dir + ": 3 of 3 files"});
  CHECK_FALSE(h.other_thread);
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) ::unlink((dir + "/" + name).c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("no hook: the same answer, nothing called", "[progress]") {
  cuarch::resolve_options o;
  o.toolkit = cuarch::cuda_version{13, 0};
  o.devices = std::vector<cuarch::compute_capability>{{9, 0}};
  CHECK_FALSE(o.progress);
  CHECK(cuarch::resolve_here(o).result);
}
