// nvcc and ptxas as version sources, and the subprocess runner under them: real compilers (the
// local toolkit's nvcc, Debian's nvcc 12.4, the ptxas of PyPI's nvcc wheels) and fake programs for
// the faults (hang, non-zero exit, nonsense, endless output, a signal), each a typed error naming
// the program within its timeout.
#include <cuarch/sources/nvcc_source.hpp>
#include <cuarch/sources/posix/subprocess.hpp>

#include <catch2/catch_test_macros.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixture_support.hpp"
#include "timing_bound.hpp"

using cuarch::errc;
using namespace std::chrono_literals;

namespace {

std::string fake(const char* name) {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/bin/" + name;
}

}  // namespace

TEST_CASE("run_process: no shell, both streams, stdin closed, exit status", "[subprocess]") {
  const auto r = cuarch::run_process({"/bin/sh", "-c", "echo out; echo err >&2; cat; exit 4"});
  REQUIRE(r);
  CHECK(r->out == "out\n");
  CHECK(r->err == "err\n");
  CHECK(r->exit_status == 4);  // a non-zero status is for the caller to judge
  CHECK_FALSE(r->truncated);
  const auto no_shell = cuarch::run_process({"/bin/echo", "$HOME", "a;b"});
  REQUIRE(no_shell);
  CHECK(no_shell->out == "$HOME a;b\n");  // arguments reach the program verbatim
}

TEST_CASE("run_process: bounded output, deadline, signals, bad paths", "[subprocess][fault]") {
  SECTION("output beyond the limit is dropped and flagged") {
    cuarch::process_limits limits;
    limits.max_output = 1000;
    const auto r = cuarch::run_process({"/bin/sh", "-c", "head -c 100000 /dev/zero"}, limits);
    REQUIRE(r);
    CHECK(r->out.size() == 1000);
    CHECK(r->truncated);
  }
  SECTION("a child that outlives the deadline is killed with its process group") {
    cuarch::process_limits limits;
    limits.timeout = 300ms;
    const auto start = std::chrono::steady_clock::now();
    const auto r = cuarch::run_process({"/bin/sh", "-c", "sleep 30 & sleep 30; wait"}, limits,
                                       cuarch::source_kind::nvcc);
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::process_timed_out);
    CHECK(r.error().source == cuarch::source_kind::nvcc);
    CHECK(r.error().location.view() == "/bin/sh");
    const auto bound = cuarch_test::prompt_bound(300ms, 2700ms);  // the children sleep 30 s
    INFO("took " << cuarch_test::seconds_d(took).count() << " s; bound " << bound.count() << " s");
    CHECK(took >= 300ms);
    CHECK(took < bound);
  }
  SECTION("a child that closes its output but keeps running is still bounded") {
    cuarch::process_limits limits;
    limits.timeout = 300ms;
    const auto r = cuarch::run_process({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"}, limits);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::process_timed_out);
  }
  SECTION("killed by a signal") {
    const auto r = cuarch::run_process({"/bin/sh", "-c", "kill -KILL $$"});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::process_failed);
    CHECK(r.error().native_status == 128 + 9);
  }
  SECTION("no such program; a relative path") {
    const auto missing = cuarch::run_process({"/nonexistent/nvcc", "--version"});
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == errc::process_failed);
    const auto relative = cuarch::run_process({"nvcc", "--version"});
    REQUIRE_FALSE(relative);
    CHECK(relative.error().raw.view().find("absolute") != std::string_view::npos);
  }
}

TEST_CASE("the local toolkit's nvcc and ptxas", "[nvcc][real]") {
  const std::string nvcc = cuarch_test::local_file("bin/nvcc");
  if (nvcc.empty()) SKIP("no local CUDA toolkit with bin/nvcc");
  const auto p = cuarch::nvcc_compiler_source(nvcc).probe();
  REQUIRE(p);
  CHECK(p->info.kind == cuarch::source_kind::nvcc);
  CHECK(p->info.version.has_patch());  // nvcc says V13.0.88
  CHECK(p->info.location == std::filesystem::canonical(nvcc).string());
  CHECK_FALSE(p->info.supported_sm_numbers);  // the table decides for nvcc
  CHECK(p->seen.raw.find("Cuda compilation tools, release") == 0);
  const std::string ptxas = cuarch_test::local_file("bin/ptxas");
  if (ptxas.empty()) return;
  const auto q = cuarch::ptxas_source(ptxas).compiler();
  REQUIRE(q);
  CHECK(q->kind == cuarch::source_kind::ptxas);
  CHECK(q->version == p->info.version);
}

TEST_CASE("older real compilers: Debian nvcc 12.4, ptxas of the nvcc 12.8 wheel", "[nvcc][real]") {
  SECTION("nvcc 12.4.131 (Debian nvidia-cuda-toolkit)") {
    const auto root = cuarch_test::debian_nvcc("12.4");
    if (!root) SKIP(root.why_not);
    const auto c = cuarch::nvcc_compiler_source(root.path + "/bin/nvcc").compiler();
    REQUIRE(c);
    CHECK(c->version == cuarch::cuda_version{12, 4, 131});
  }
  SECTION("ptxas 12.8.93 (nvidia-cuda-nvcc-cu12: what a Triton-style install runs)") {
    const auto root = cuarch_test::fetch("nvcc", "12.8.93");
    if (!root) SKIP(root.why_not);
    const auto c = cuarch::ptxas_source(root.path + "/bin/ptxas").compiler();
    REQUIRE(c);
    CHECK(c->version == cuarch::cuda_version{12, 8, 93});
  }
}

TEST_CASE("fake nvcc output shapes: verbatim banner, CRLF with extra banner lines", "[nvcc]") {
  const auto a = cuarch::nvcc_compiler_source(fake("nvcc-12.8")).observe();
  REQUIRE(a);
  CHECK(a->version == cuarch::cuda_version{12, 8, 93});
  CHECK(a->raw == "Cuda compilation tools, release 12.8, V12.8.93");
  const auto b = cuarch::nvcc_compiler_source(fake("nvcc-crlf")).observe();
  REQUIRE(b);
  CHECK(b->version == cuarch::cuda_version{12, 9, 86});
  CHECK(b->raw == "Cuda compilation tools, release 12.9, V12.9.86");  // no CR kept
}

TEST_CASE("every nvcc fault is a typed error naming nvcc and its path, within the timeout", "[nvcc][fault]") {
  const auto check_named = [](const cuarch::error& e, const std::string& path) {
    CHECK(e.source == cuarch::source_kind::nvcc);
    CHECK(e.location.view() == path);
    CHECK(e.message().find(path) != std::string::npos);
  };
  SECTION("hangs: killed at the timeout") {
    const std::string path = fake("nvcc-hang");
    const auto start = std::chrono::steady_clock::now();
    const auto c = cuarch::nvcc_compiler_source(path, cuarch::discovery::explicit_argument, 500ms).compiler();
    const auto took = std::chrono::steady_clock::now() - start;
    const auto bound = cuarch_test::prompt_bound(500ms, 2500ms);  // it would hang for ever
    INFO("took " << cuarch_test::seconds_d(took).count() << " s; bound " << bound.count() << " s");
    CHECK(took >= 500ms);
    CHECK(took < bound);
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::process_timed_out);
    check_named(c.error(), path);
  }
  SECTION("never stops printing: still killed at the timeout, memory bounded") {
    const std::string path = fake("nvcc-flood");
    const auto c = cuarch::nvcc_compiler_source(path, cuarch::discovery::explicit_argument, 500ms).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::process_timed_out);
  }
  SECTION("exits non-zero (even after printing a release line)") {
    const std::string path = fake("nvcc-fail");
    const auto c = cuarch::nvcc_compiler_source(path).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::process_failed);
    CHECK(c.error().native_status == 3);
    CHECK(c.error().raw.view().find("Could not open input file") != std::string_view::npos);
    check_named(c.error(), path);
  }
  SECTION("prints nonsense") {
    const std::string path = fake("nvcc-nonsense");
    const auto c = cuarch::nvcc_compiler_source(path).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::malformed_output);
    CHECK(c.error().raw.view().find("Hello!") != std::string_view::npos);
    check_named(c.error(), path);
  }
  SECTION("dies of a signal") {
    const auto c = cuarch::nvcc_compiler_source(fake("nvcc-crash")).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::process_failed);
    CHECK(c.error().native_status == 128 + 11);
  }
  SECTION("missing, a directory, not executable") {
    const std::string dir = cuarch_test::make_temp_dir("nvccfault");
    cuarch_test::write_file(dir + "/nvcc", "#!/bin/sh\necho hi\n");  // no execute bit
    for (const auto& [path, words] : std::vector<std::pair<std::string, std::string>>{
             {"/nonexistent/bin/nvcc", "No such file"}, {dir, "directory"}, {dir + "/nvcc", "not executable"}}) {
      const auto c = cuarch::nvcc_compiler_source(path).compiler();
      REQUIRE_FALSE(c);
      CHECK(c.error().code == errc::file_unreadable);
      CHECK(c.error().raw.view().find(words) != std::string_view::npos);
      check_named(c.error(), path);
    }
  }
  SECTION("a FIFO or a device named nvcc: refused by type, never run") {
    const std::string dir = cuarch_test::make_temp_dir("nvccfifo");
    REQUIRE(::mkfifo((dir + "/nvcc").c_str(), 0700) == 0);
    for (const std::string& path : {dir + "/nvcc", std::string("/dev/zero")}) {
      const auto c = cuarch::nvcc_compiler_source(path).compiler();
      REQUIRE_FALSE(c);
      CHECK(c.error().code == errc::file_unreadable);
      CHECK(c.error().raw.view().find("not a regular file") != std::string_view::npos);
      check_named(c.error(), path);
    }
  }
  SECTION("a relative path is refused where the caller did not pass it") {
    const auto c = cuarch::probe_tool_version("bin/nvcc", cuarch::source_kind::nvcc, cuarch::discovery::path_search, 1s,
                                              cuarch::library_path_policy::absolute_only);
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::file_unreadable);
  }
}

TEST_CASE("several threads running nvcc at once", "[nvcc][threads]") {
  const std::string path = fake("nvcc-12.8");
  std::vector<cuarch::expected<cuarch::compiler_info, cuarch::error>> results(8, cuarch::compiler_info{});
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = cuarch::nvcc_compiler_source(path).compiler(); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) {
    REQUIRE(r);
    CHECK(r->version == cuarch::cuda_version{12, 8, 93});
  }
}

TEST_CASE("SIGCHLD ignored by the host: nvcc still answers, and the observation says the exit status was lost",
          "[nvcc][fault]") {
  const std::string path = fake("nvcc-12.8");
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGCHLD, &ignore, &saved);
  const auto p = cuarch::nvcc_compiler_source(path).probe();
  const auto missing = cuarch::nvcc_compiler_source("/nonexistent/bin/nvcc").probe();
  ::sigaction(SIGCHLD, &saved, nullptr);
  REQUIRE(p);
  CHECK(p->info.version == cuarch::cuda_version{12, 8, 93});
  CHECK(p->seen.raw.find("exit status lost") != std::string::npos);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == errc::file_unreadable);
}
