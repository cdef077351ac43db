// A probe (nvcc --version) runs in its resolution's environment snapshot, never in the live
// `environ` (issue 33, item 2): another thread's setenv reallocates and frees the array `environ`
// points to, and a child that execve'd with it failed with "status 14 ... Bad address" or got another
// environment than the one the resolution read. Here one thread rewrites the environment in a loop
// while others detect through the library; every probe must answer. Run time: CUARCH_STRESS_SECONDS
// (default 2 s; docs/testing.md records a 10-minute run).
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixture_support.hpp"

namespace {

// A fake nvcc that answers only in the environment it was meant to get: the snapshot's PATH and
// the rest of the environment as the snapshot copied it (CUARCH_TEST_PROBE_MARK).
std::string marked_nvcc() {
  const std::string dir = cuarch_test::make_temp_dir("probe-env");
  const std::string nvcc = dir + "/nvcc";
  cuarch_test::write_file(nvcc,
                          "#!/bin/sh\n"
                          "if [ \"$CUARCH_TEST_PROBE_MARK\" != snapshot ] || [ \"$PATH\" != /usr/bin:/bin ]; then\n"
                          "  echo \"wrong environment: mark '$CUARCH_TEST_PROBE_MARK' PATH '$PATH'\" >&2; exit 3\n"
                          "fi\n"
                          "echo 'Cuda compilation tools, release 12.8, V12.8.93'\n",
                          true);
  return nvcc;
}

cuarch::detect_options nvcc_only(const std::string& nvcc, const cuarch::environment& env) {
  cuarch::detect_options o = cuarch_test::hermetic(env);
  o.roles = cuarch::role_set{cuarch::detect_role::offline_compiler};
  o.nvcc_path = nvcc;
  o.mode = cuarch::detect_mode::first_answer;
  return o;
}

/// The probe's answer, or its failure in words.
std::string probe_once(const cuarch::detect_options& o) {
  const cuarch::detection d = cuarch::detect(o);
  const auto& sel = d.offline_compiler;
  if (!sel.index) return sel.failure ? sel.failure->message() : "no nvcc chosen";
  const auto& r = d.candidates[*sel.index].result;
  return r ? "ok" : r.error().message();
}

}  // namespace

TEST_CASE("a probe gets the snapshot's environment, not the live one", "[subprocess][environment]") {
  const std::string nvcc = marked_nvcc();
  cuarch_test::scoped_env guard;
  guard.set("CUARCH_TEST_PROBE_MARK", "snapshot").set("PATH", "/usr/bin:/bin");
  const cuarch::environment snap = cuarch::environment::from_process();
  guard.set("CUARCH_TEST_PROBE_MARK", "changed after the snapshot").set("PATH", "/nonexistent");
  CHECK(probe_once(nvcc_only(nvcc, snap)) == "ok");
  // The snapshot keeps the variable cuarch does not read for its programs only: not in vars(), so
  // the report never shows it.
  CHECK_FALSE(snap.find("CUARCH_TEST_PROBE_MARK"));
  const auto program = snap.program_environment();
  CHECK(std::count(program.begin(), program.end(), "CUARCH_TEST_PROBE_MARK=snapshot") == 1);
  CHECK(std::count(program.begin(), program.end(), "PATH=/usr/bin:/bin") == 1);
}

TEST_CASE("a hand-built environment is all its programs get", "[subprocess][environment]") {
  const cuarch::environment env{{"PATH", "/usr/bin:/bin"}, {"CUDA_HOME", "/opt/cuda"}};
  const auto program = env.program_environment();
  CHECK(program == std::vector<std::string>{"CUDA_HOME=/opt/cuda", "PATH=/usr/bin:/bin"});
  cuarch::environment with_rest = env;
  // A detection variable the snapshot lacks stays unset for its programs; one it has wins.
  with_rest.inherit("HOME=/home/u").inherit("CUDACXX=/elsewhere/nvcc").inherit("PATH=/elsewhere");
  CHECK(with_rest.program_environment() ==
        std::vector<std::string>{"CUDA_HOME=/opt/cuda", "PATH=/usr/bin:/bin", "HOME=/home/u"});
}

TEST_CASE("probes while another thread rewrites the environment: no spurious failure",
          "[subprocess][environment][stress]") {
  const std::string nvcc = marked_nvcc();
  cuarch_test::scoped_env guard;  // restores PATH and the mark; the fillers are removed below
  guard.set("CUARCH_TEST_PROBE_MARK", "snapshot").set("PATH", "/usr/bin:/bin");
  const cuarch::environment snap = cuarch::environment::from_process();  // before any writer runs
  const char* wanted = std::getenv("CUARCH_STRESS_SECONDS");
  const auto run_for = std::chrono::seconds(wanted && std::atoi(wanted) > 0 ? std::atoi(wanted) : 2);

  std::atomic<bool> stop{false};
  std::atomic<long> rewrites{0};
  // Each new name makes glibc's setenv realloc the array `environ` points to (freeing the old one);
  // the values, malloc'd by setenv, then reuse the freed memory with non-pointer bytes.
  std::thread writer([&] {
    const std::string filler(200, 'x');
    for (long i = 0; !stop.load(); ++i) {
      for (int k = 0; k < 64; ++k) ::setenv(("CUARCH_TEST_FILLER_" + std::to_string(k)).c_str(), filler.c_str(), 1);
      for (int k = 0; k < 64; ++k) ::unsetenv(("CUARCH_TEST_FILLER_" + std::to_string(k)).c_str());
      ::setenv("CUARCH_TEST_PROBE_MARK", (i % 2) ? "rewritten" : "snapshot", 1);
      rewrites.fetch_add(1);
    }
  });
  const unsigned n = std::max(4u, std::thread::hardware_concurrency() * 2);
  std::vector<std::thread> probers;
  std::vector<std::vector<std::string>> failures(n);
  std::atomic<long> probes{0};
  const auto until = std::chrono::steady_clock::now() + run_for;
  for (unsigned t = 0; t < n; ++t)
    probers.emplace_back([&, t] {
      const cuarch::detect_options o = nvcc_only(nvcc, snap);
      while (std::chrono::steady_clock::now() < until) {
        if (std::string got = probe_once(o); got != "ok") failures[t].push_back(std::move(got));
        probes.fetch_add(1);
      }
    });
  for (auto& p : probers) p.join();
  stop = true;
  writer.join();
  for (int k = 0; k < 64; ++k) ::unsetenv(("CUARCH_TEST_FILLER_" + std::to_string(k)).c_str());

  std::vector<std::string> all;
  for (const auto& f : failures) all.insert(all.end(), f.begin(), f.end());
  const auto bad_address = std::count_if(
      all.begin(), all.end(), [](const std::string& m) { return m.find("Bad address") != std::string::npos; });
  INFO(probes.load() << " probes in " << run_for.count() << " s by " << n << " threads, " << rewrites.load()
                     << " rewrites of the environment; " << all.size() << " failed (" << bad_address
                     << " with Bad address)" << (all.empty() ? std::string() : ", first: " + all.front()));
  CHECK(probes.load() > 0);
  CHECK(rewrites.load() > 0);
  CHECK(all.empty());
}
