// detect() started by many threads at the same instant gives every thread the same answer.
//
// The hazard: "already loaded by the application" was decided by looking at what is mapped now, so
// a library that another thread's detection was in the middle of loading (mapped, not yet known as
// cuarch's) counted as the application's and outranked CUDA_HOME. To make that window wide and the
// test sharp, the NVRTC here is the stub NVRTC with a constructor that sleeps (dlopen runs it after
// mapping the file); every round uses a fresh copy, since a library that answered stays loaded.
// Self-contained (only detector.hpp and subprocess.hpp) so tests/scripts/tsan_detect_test.sh can
// build it alone with -fsanitize=thread.
#include <cuarch/detect/detector.hpp>
#include <cuarch/sources/posix/subprocess.hpp>

#include <catch2/catch_test_macros.hpp>

#include <dlfcn.h>
#include <stdlib.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace {

/// All threads leave wait() together (std::barrier is C++20).
class start_line {
 public:
  explicit start_line(std::size_t n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (++arrived_ == n_) {
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return arrived_ == n_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::size_t n_, arrived_ = 0;
};

struct temp_dir {
  std::string path;
  temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/cuarch-concurrency-XXXXXX";
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

/// The stub NVRTC with a constructor that sleeps 200 ms, or why there is none.
std::string build_slow_nvrtc(const std::string& dir, std::string& why_not) {
  const std::string ctor = dir + "/slow_init.c";
  std::ofstream(ctor) << "#include <time.h>\n"
                         "__attribute__((constructor)) static void cuarch_slow_init(void) {\n"
                         "  struct timespec t = {0, 200000000};\n"
                         "  nanosleep(&t, 0);\n"
                         "}\n";
  const char* cc_env = std::getenv("CC");
  const std::string cc = cc_env && *cc_env ? cc_env : "cc";
  const std::string so = dir + "/libnvrtc-slow.so.12";
  const std::string cmd = cc + " -shared -fPIC -O1 -o " + so + " " + CUARCH_SOURCE_DIR +
                          "/tests/fixtures/stub_libnvrtc.c " + ctor + " -Wl,-soname,libnvrtc-stub-slow.so.12";
  cuarch::process_limits limits;
  limits.timeout = std::chrono::seconds(120);
  const auto r = cuarch::run_process({"/bin/sh", "-c", cmd}, limits);
  if (!r) {
    why_not = "could not run the C compiler: " + r.error().message();
    return {};
  }
  if (r->exit_status != 0) {
    why_not = "no C compiler to build the stub NVRTC (" + cmd + "): " + r->err.substr(0, 300);
    return {};
  }
  return so;
}

/// What a thread saw, reduced to what must be identical.
struct answer {
  std::string jit, offline, runtime, driver;  // governing candidate per role: path + how, or the failure
  std::vector<std::string> candidates;        // kind, path, how, answered

  bool operator==(const answer& o) const {
    return jit == o.jit && offline == o.offline && runtime == o.runtime && driver == o.driver &&
           candidates == o.candidates;
  }
};

std::string role_text(const cuarch::detection& d, const cuarch::selection& s) {
  if (const auto* c = d.chosen(s)) return c->path + " [" + std::string(cuarch::to_string(c->how)) + "]";
  return s.failure ? "none: " + std::string(cuarch::to_string(s.failure->code)) : std::string("none");
}

answer summarize(const cuarch::detection& d) {
  answer a;
  a.jit = role_text(d, d.jit_compiler);
  a.offline = role_text(d, d.offline_compiler);
  a.runtime = role_text(d, d.runtime);
  a.driver = role_text(d, d.driver);
  for (const auto& c : d.candidates)
    a.candidates.push_back(std::string(cuarch::to_string(c.source)) + " " + c.path + " [" +
                           std::string(cuarch::to_string(c.how)) + "] " + (c.result ? "answered" : "failed"));
  return a;
}

}  // namespace

TEST_CASE("threads that start detect() together get one answer: a library being loaded is not 'already loaded'",
          "[detect][threads]") {
  temp_dir t;
  REQUIRE_FALSE(t.path.empty());
  std::string why_not;
  const std::string slow = build_slow_nvrtc(t.path, why_not);
  if (slow.empty()) SKIP(why_not);

  constexpr std::size_t threads = 16;
  constexpr int rounds = 3;
  for (int round = 0; round < rounds; ++round) {
    INFO("round " << round);
    const std::string home = t.path + "/cuda-" + std::to_string(round);
    fs::create_directories(home + "/lib64");
    fs::copy_file(slow, home + "/lib64/libnvrtc.so.12");  // a fresh file: a fresh dlopen each round

    cuarch::detect_options opts;
    opts.env = cuarch::environment{{"CUDA_HOME", home}};
    opts.already_loaded = true;  // the tier at stake
    opts.loader_search = false;
    opts.path_search = false;
    opts.default_locations = false;
    opts.query_devices = false;

    std::vector<answer> seen(threads);
    start_line line(threads);
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < threads; ++i)
      pool.emplace_back([&, i] {
        line.wait();
        seen[i] = summarize(cuarch::detect(opts));
      });
    for (auto& th : pool) th.join();

    // CUDA_HOME's NVRTC governs, found through CUDA_HOME: the application never loaded it.
    CHECK(seen[0].jit ==
          home + "/lib64/libnvrtc.so.12 [" + std::string(cuarch::to_string(cuarch::discovery::environment)) + "]");
    for (std::size_t i = 1; i < threads; ++i) {
      INFO("thread " << i << " jit: " << seen[i].jit << " vs thread 0: " << seen[0].jit);
      CHECK(seen[i] == seen[0]);
    }
  }
}

TEST_CASE("a library the application loads after the first detection stays the application's, call after call",
          "[detect][already_loaded]") {
  temp_dir t;
  REQUIRE_FALSE(t.path.empty());
  std::string why_not;
  const std::string stub = build_slow_nvrtc(t.path, why_not);
  if (stub.empty()) SKIP(why_not);
  fs::create_directories(t.path + "/app");
  const std::string lib = t.path + "/app/libnvrtc.so.12";
  fs::copy_file(stub, lib);

  cuarch::detect_options opts;
  opts.env = cuarch::environment{};
  opts.already_loaded = true;
  opts.loader_search = false;
  opts.path_search = false;
  opts.default_locations = false;
  opts.query_devices = false;
  (void)cuarch::detect(opts);  // the process's first detection: its snapshot does not hold the library

  void* app = dlopen(lib.c_str(), RTLD_NOW);  // the application loads it afterwards, as torch or CuPy does
  REQUIRE(app != nullptr);
  // Every later detection sees it as the application's; asking it (detection's own dlopen of the
  // same file) must not turn it into cuarch's for the next call.
  for (int call = 0; call < 3; ++call) {
    INFO("call " << call);
    const auto d = cuarch::detect(opts);
    const cuarch::candidate* c = d.chosen(d.jit_compiler);
    REQUIRE(c != nullptr);
    CHECK(c->how == cuarch::discovery::already_loaded);
  }
}
