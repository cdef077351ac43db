// One deadline bounds a detection, calls into libraries that hang included (issue 18, item 2):
// `cuarch resolve --timeout 2` against a library whose constructor, init function or version call
// blocks for 30 s returns in under 3 s, names the library and the call (deadline_exceeded), and the
// detection says its deadline passed. Reality cannot hang on demand: the stubs of tests/fixtures
// are rebuilt with one entry point (or a constructor) that sleeps. Staged away from its trees, it
// takes them from CUARCH_SOURCE_DIR (tests/fixtures) and CUARCH_CLI (tests/scripts/staged_deadline_test.sh).
#include <cuarch/detect.hpp>
#include <cuarch/sources/posix/subprocess.hpp>

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "fixtures/fixture_support.hpp"
#include "test_support.hpp"
#include "test_paths.hpp"
#include "timing_bound.hpp"

namespace fs = std::filesystem;

namespace {

/// tests/fixtures/<source> built as `so`, with `hang` ("constructor" or an entry point) sleeping 30 s
/// (or running `body` instead), and `extra` C code.
std::string build_hanging(const std::string& dir, const std::string& source, const std::string& so,
                          const std::string& hang, const std::string& body = "sleep(30); return 0;",
                          const std::string& extra = "") {
  const std::string c = dir + "/hang_" + hang + ".c";
  const bool ctor = hang == "constructor";
  cuarch_test::write_file(c, std::string("#include <unistd.h>\n") + extra +
                                 (ctor ? "__attribute__((constructor)) static void hang(void) { sleep(30); }\n"
                                       : "int " + hang + "() { " + body + " }\n"));
  const char* cc_env = std::getenv("CC");
  const std::string cc = cc_env && *cc_env ? cc_env : "cc";
  const std::string rename = ctor ? std::string() : " -D" + hang + "=" + hang + "_not_called";
  const std::string cmd = cc + " -c -fPIC -O1 -o " + so + ".o " + cuarch_test::source_dir() + "/tests/fixtures/" +
                          source + rename + " && " + cc + " -shared -fPIC -o " + so + " " + so + ".o " + c +
                          " -Wl,-soname,lib-hang-" + hang + ".so";
  cuarch::process_limits limits;
  limits.timeout = std::chrono::seconds(120);
  const auto r = cuarch::run_process({"/bin/sh", "-c", cmd}, limits);
  return r && r->exit_status == 0 ? so : std::string();
}

struct timed_run {
  std::string err;
  int status = -1;
  double seconds = 0;
};

timed_run run_cli(const std::vector<std::string>& args) {
  const char* staged = std::getenv("CUARCH_CLI");  // a staged copy, as the script tests name it
  std::vector<std::string> argv{staged && *staged ? staged : CUARCH_CLI_PATH, "resolve"};
  argv.insert(argv.end(), args.begin(), args.end());
  cuarch::process_limits limits;
  limits.timeout = std::chrono::seconds(40);
  const auto start = std::chrono::steady_clock::now();
  const auto r = cuarch::run_process(argv, limits);
  timed_run t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r) {
    t.err = r->err;
    t.status = r->exit_status;
  }
  return t;
}

/// Detection of the JIT role from the NVRTC at `so` alone, bounded by `deadline`.
cuarch::detect_options only_nvrtc(const std::string& so, std::chrono::milliseconds deadline) {
  cuarch::detect_options o;
  o.env = cuarch::environment{};
  o.nvrtc_path = so;
  o.already_loaded = o.loader_search = o.path_search = o.default_locations = false;
  o.query_devices = false;
  o.roles = cuarch::role_set{} | cuarch::detect_role::jit_compiler;
  o.deadline = o.tool_timeout = deadline;
  return o;
}

}  // namespace

#ifdef CUARCH_CLI_PATH
TEST_CASE("--timeout 2 bounds a resolve whatever a library does: each hang returns in under 3 s, named",
          "[deadline][cli]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  const std::string dir = cuarch_test::make_temp_dir("hang");
  struct scenario {
    std::string what, source, file, hang;
    std::vector<std::string> args;  // {} = the built library's path is appended to these
    std::string expect;             // in stderr
  };
  const std::string good_nvrtc = stubs.path + "/nvrtc/libnvrtc.so.12";
  const std::vector<scenario> cases{
      {"NVRTC's constructor",
       "stub_libnvrtc.c",
       "nvrtc-ctor/libnvrtc.so.12",
       "constructor",
       {"--isolated", "--compiler", "nvrtc", "--archs", "sm_90", "--timeout", "2", "--nvrtc"},
       "dlopen"},
      {"nvrtcVersion",
       "stub_libnvrtc.c",
       "nvrtc-version/libnvrtc.so.12",
       "nvrtcVersion",
       {"--isolated", "--compiler", "nvrtc", "--archs", "sm_90", "--timeout", "2", "--nvrtc"},
       "nvrtcVersion"},
      {"libcuda's constructor",
       "stub_libcuda.c",
       "cuda-ctor/libcuda.so.1",
       "constructor",
       {"--isolated", "--nvrtc", good_nvrtc, "--archs", "compute_90", "--driver", "detected", "--timeout", "2",
        "--libcuda"},
       "dlopen"},
      {"cuDriverGetVersion",
       "stub_libcuda.c",
       "cuda-version/libcuda.so.1",
       "cuDriverGetVersion",
       {"--isolated", "--nvrtc", good_nvrtc, "--archs", "compute_90", "--driver", "detected", "--timeout", "2",
        "--libcuda"},
       "cuDriverGetVersion"},
      {"nvmlInit_v2",
       "stub_libnvidia_ml.c",
       "nvml-init/libnvidia-ml.so.1",
       "nvmlInit_v2",
       {"--isolated", "--nvrtc", good_nvrtc, "--archs", "native", "--timeout", "2", "--libcuda"},
       "nvmlInit_v2"},
      {"nvmlDeviceGetCount_v2",
       "stub_libnvidia_ml.c",
       "nvml-count/libnvidia-ml.so.1",
       "nvmlDeviceGetCount_v2",
       {"--isolated", "--nvrtc", good_nvrtc, "--archs", "native", "--timeout", "2", "--libcuda"},
       "nvml"},
      {"NVML's constructor",
       "stub_libnvidia_ml.c",
       "nvml-ctor/libnvidia-ml.so.1",
       "constructor",
       {"--isolated", "--nvrtc", good_nvrtc, "--archs", "native", "--timeout", "2", "--libcuda"},
       "nvml"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const std::string so = dir + "/" + c.file;
    fs::create_directories(fs::path(so).parent_path());
    if (build_hanging(dir, c.source, so, c.hang).empty()) SKIP("no C compiler for the hanging stubs");
    std::string lib = so;
    if (c.source == "stub_libnvidia_ml.c") {  // NVML is the one beside the driver: a good stub libcuda there
      fs::copy_file(stubs.path + "/lib/libcuda.so.1", fs::path(so).parent_path() / "libcuda.so.1");
      lib = (fs::path(so).parent_path() / "libcuda.so.1").string();
    }
    auto args = c.args;
    args.push_back(lib);
    const timed_run r = run_cli(args);
    INFO("exit " << r.status << " after " << r.seconds << " s; stderr: " << r.err);
    CHECK(r.seconds <
          cuarch_test::prompt_bound(std::chrono::seconds(2), std::chrono::seconds(1)).count());  // the stub hangs 30 s
    CHECK(r.status != 0);
    CHECK(r.err.find("deadline") != std::string::npos);
    CHECK(r.err.find(c.expect) != std::string::npos);
  }
}

// A constructor that ends the process (_exit(0)) ended the CLI with exit 0 and no output: a resolve
// that printed nothing and "succeeded". The library is tried in a child first, which it ends instead.
TEST_CASE("a library whose constructor ends the process is refused, named; the CLI does not exit 0", "[deadline][cli]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  const std::string lib = stubs.path + "/nvrtc-exitctor/libnvrtc.so.12";
  const timed_run r = run_cli(
      {"--isolated", "--compiler", "nvrtc", "--archs", "sm_90", "--timeout", "5", "--nvrtc", lib});
  INFO("exit " << r.status << "; stderr: " << r.err);
  CHECK(r.status != 0);
  CHECK(r.err.find(lib) != std::string::npos);
  CHECK(r.err.find("ended") != std::string::npos);
}
#endif

TEST_CASE(
    "a detection whose library call was abandoned says its deadline passed; the stuck library is then refused at once",
    "[deadline]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  const std::string dir = cuarch_test::make_temp_dir("hang-lib");
  const std::string so = dir + "/libnvrtc.so.12";
  if (build_hanging(dir, "stub_libnvrtc.c", so, "nvrtcVersion").empty()) SKIP("no C compiler for the hanging stub");
  const cuarch::detect_options o = only_nvrtc(so, std::chrono::milliseconds(500));
  auto start = std::chrono::steady_clock::now();
  const auto d = cuarch::detect(o);
  const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(first < cuarch_test::prompt_bound(std::chrono::milliseconds(500), std::chrono::seconds(1))
                    .count());  // the call hangs 30 s
  CHECK(d.deadline_passed);
  REQUIRE(d.jit_compiler.failure);
  CHECK(d.jit_compiler.failure->code == cuarch::errc::deadline_exceeded);
  CHECK(d.jit_compiler.failure->message().find("nvrtcVersion") != std::string::npos);
  // Asked again while that call is still stuck: refused at once, saying why.
  start = std::chrono::steady_clock::now();
  const auto again = cuarch::detect(o);
  const double second = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(second < cuarch_test::prompt_bound(std::chrono::seconds(0), std::chrono::milliseconds(300)).count());
  REQUIRE(again.jit_compiler.failure);
  CHECK(again.jit_compiler.failure->message().find("has not returned") != std::string::npos);
}

TEST_CASE("a library whose abandoned call returns later is not closed on the worker thread, after its caller has gone",
          "[deadline]") {
  // nvrtcVersion returns an error after 0.6 s, past a 0.2 s deadline: the library never answered,
  // so nothing retains it, and the worker's copy is the last. Its destructor writes the thread it
  // ran on: a dlclose() there would run after detect() returned (while the process may be exiting).
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  const std::string dir = cuarch_test::make_temp_dir("late-lib");
  const std::string so = dir + "/libnvrtc.so.12", mark = dir + "/closed-on-thread";
  const std::string extra =
      "#include <stdio.h>\n#include <sys/syscall.h>\n__attribute__((destructor)) static void closed(void) {\n"
      "  FILE* f = fopen(\"" +
      mark + "\", \"w\"); if (f) { fprintf(f, \"%ld\", (long)syscall(SYS_gettid)); fclose(f); } }\n";
  if (build_hanging(dir, "stub_libnvrtc.c", so, "nvrtcVersion", "usleep(600000); return 1;", extra).empty())
    SKIP("no C compiler for the stub");
  const cuarch::detect_options o = only_nvrtc(so, std::chrono::milliseconds(200));
  {
    const auto d = cuarch::detect(o);
    REQUIRE(d.jit_compiler.failure);
    REQUIRE(d.jit_compiler.failure->code == cuarch::errc::deadline_exceeded);
  }
  // The call returns (other tests' calls may stay stuck); the worker then drops what it held.
  const std::string real = fs::canonical(so).string();
  const auto stuck = [&] {
    cuarch::detail::process_lock lock;
    for (const auto& s : cuarch::detail::stuck_calls())
      if (s.library == real) return true;
    return false;
  };
  for (int i = 0; i < 100 && stuck(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE_FALSE(stuck());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string tid;
  std::ifstream(mark) >> tid;
  INFO("the library's destructor ran on thread " << tid << "; this (the caller's) thread is " << ::getpid());
  CHECK(tid.empty());  // still loaded: never closed by a worker whose caller has gone
}

namespace {
/// Runs `body` in a forked child (whose exit status it returns) and waits for it at most `bound`;
/// -1 when it did not end by then (it is killed). A wedged loader stays in the child.
int in_child_within(std::chrono::duration<double> bound, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  const auto until = std::chrono::steady_clock::now() + bound;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The stub NVRTC of `variant` ("nvrtc", "nvrtc-slowctor") copied to a new directory: a path never
/// mapped in this process, so a detection loads it through a trial child. "" without the stubs.
std::string fresh_stub_copy(const std::string& variant) {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) return {};
  const std::string lib = cuarch_test::make_temp_dir(variant + "-copy") + "/libnvrtc.so.12";
  fs::copy_file(stubs.path + "/" + variant + "/libnvrtc.so.12", lib);
  return lib;
}
}  // namespace

// Issue 33 item 1: a load abandoned at its deadline must not hold the host hostage. The stub's
// constructor sleeps 10 minutes. Before, the abandoned dlopen() kept glibc's loader lock: the host's
// own dlopen() then blocked, every later cuarch question about any library was refused, and exit()
// waited for the constructor.
TEST_CASE("after a load abandoned at its deadline, the process still loads libraries, asks cuarch and exits",
          "[deadline][host]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  const std::string slow = stubs.path + "/nvrtc-slowctor/libnvrtc.so.12", good = stubs.path + "/nvrtc/libnvrtc.so.12",
                    other = stubs.path + "/lib/libcuda.so.1";
  const auto bound = cuarch_test::prompt_bound(std::chrono::milliseconds(500), std::chrono::seconds(2));
  const int status = in_child_within(bound, [&] {
    ::setenv("CUARCH_STUB_CTOR_SLEEP_MS", "600000", 1);
    const auto d = cuarch::detect(only_nvrtc(slow, std::chrono::milliseconds(500)));
    if (!d.jit_compiler.failure || d.jit_compiler.failure->code != cuarch::errc::deadline_exceeded) return 10;
    if (!::dlopen(other.c_str(), RTLD_NOW | RTLD_LOCAL)) return 11;  // the host's own load
    const auto again = cuarch::detect(only_nvrtc(good, std::chrono::seconds(5)));
    if (!again.chosen(again.jit_compiler)) return 12;  // another library, asked again
    std::exit(0);                                      // exit(), not _exit(): the loader's finalisers run
  });
  INFO("the child's status: " << status << " (-1: still running after " << bound.count()
                              << " s; 10: no deadline_exceeded; 11: dlopen failed; 12: the second detection had no NVRTC)");
  CHECK(status == 0);
}

// The trial child must not see the host's descriptors. Before, it kept them all: in a host with
// stdout and stderr closed its pipe landed on 1 and 2, its /dev/null replaced the write end, and a
// good library was refused ("ended before dlopen() returned"); and while a constructor ran, the child
// held the host's pipes open (a reader waiting for end-of-file waited for the deadline) and could
// write into the host's files.
TEST_CASE("a trial load works in a host whose stdout and stderr are closed", "[deadline][host]") {
  const std::string lib = fresh_stub_copy("nvrtc");
  if (lib.empty()) SKIP(cuarch_test::stubs().why_not);
  const int status = in_child_within(std::chrono::seconds(30), [&] {
    ::close(STDOUT_FILENO);
    ::close(STDERR_FILENO);
    const auto d = cuarch::detect(only_nvrtc(lib, std::chrono::seconds(10)));
    return d.chosen(d.jit_compiler) ? 0 : 10;
  });
  INFO("the child's status: " << status << " (10: the NVRTC was refused)");
  CHECK(status == 0);
}

TEST_CASE("a trial child holds none of the host's descriptors while a constructor runs", "[deadline][host]") {
  const std::string lib = fresh_stub_copy("nvrtc-slowctor");
  if (lib.empty()) SKIP(cuarch_test::stubs().why_not);
  const int status = in_child_within(std::chrono::seconds(30), [&] {
    ::setenv("CUARCH_STUB_CTOR_SLEEP_MS", "600000", 1);
    int host_pipe[2];
    if (::pipe(host_pipe) != 0) return 10;
    std::thread asker([&] { cuarch::detect(only_nvrtc(lib, std::chrono::seconds(8))); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the trial child is inside its constructor
    ::close(host_pipe[1]);                                        // the last writer, unless the child holds one
    pollfd p{host_pipe[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 2000);
    char c;
    const bool end_of_file = ready == 1 && ::read(host_pipe[0], &c, 1) == 0;
    asker.join();
    return end_of_file ? 0 : 11;
  });
  INFO("the child's status: " << status << " (11: the host's pipe stayed open while the trial ran)");
  CHECK(status == 0);
}

// Ctrl-C (detect_options::cancel) stops a trial load at once; before, it waited for the deadline.
TEST_CASE("a cancelled detection stops waiting for a trial load, and tries it again next time", "[deadline][host]") {
  const std::string lib = fresh_stub_copy("nvrtc-slowctor");
  if (lib.empty()) SKIP(cuarch_test::stubs().why_not);
  const auto bound = cuarch_test::prompt_bound(std::chrono::milliseconds(300), std::chrono::seconds(2));
  const int status = in_child_within(std::chrono::seconds(60), [&] {
    ::setenv("CUARCH_STUB_CTOR_SLEEP_MS", "600000", 1);
    std::atomic<bool> stop{false};
    cuarch::detect_options o = only_nvrtc(lib, std::chrono::seconds(20));
    o.cancel = &stop;
    std::thread ctrl_c([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      stop = true;
    });
    const auto start = std::chrono::steady_clock::now();
    const auto d = cuarch::detect(o);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    ctrl_c.join();
    if (took > bound) return 10;
    if (!d.jit_compiler.failure || d.jit_compiler.failure->message().find("cancelled") == std::string::npos) return 11;
    // Not remembered as hung: asked again (constructor now quick), it loads.
    ::setenv("CUARCH_STUB_CTOR_SLEEP_MS", "0", 1);
    const auto again = cuarch::detect(only_nvrtc(lib, std::chrono::seconds(10)));
    return again.chosen(again.jit_compiler) ? 0 : 12;
  });
  INFO("the child's status: " << status << " (10: it waited past " << bound.count()
                              << " s; 11: no failure saying it was cancelled; 12: not loaded when asked again)");
  CHECK(status == 0);
}
