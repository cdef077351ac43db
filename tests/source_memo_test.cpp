// What a source remembers between calls (docs/performance.md): a loaded NVRTC's answer is kept for
// the source and its copies and re-validated by which file the path names; failures are never kept;
// from_loader() remembers the loader's library per process. The stub NVRTC answers what its
// environment says on every call, so a kept answer and a fresh one can be told apart.
#include <cuarch/sources/nvrtc_source.hpp>
#include <cuarch/sources/runtime_source.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch_test::scoped_env;

namespace {

std::string stub(const char* rel) {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/" + rel;
}

/// A private copy of the stub NVRTC under `name` in a fresh directory (its own real path, so no
/// other test's mapping of the stub is shared).
std::string private_stub(const std::string& tag, const std::string& name) {
  const std::string dir = cuarch_test::make_temp_dir(tag);
  const std::string to = dir + "/" + name;
  std::filesystem::copy_file(stub("nvrtc/libnvrtc.so.12"), to);
  return to;
}

cuarch::cuda_version version_of(const cuarch::expected<cuarch::compiler_info, cuarch::error>& c) {
  REQUIRE(c);
  return c->version;
}

}  // namespace

TEST_CASE("a source asks its NVRTC once, and again when the path names another file", "[nvrtc][memo]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  const std::string lib = private_stub("memo-path", "libnvrtc.so.12");
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.4");
  const cuarch::nvrtc_library_source source(lib);
  CHECK(version_of(source.compiler()) == cuarch::cuda_version{12, 4, -1});

  env.set("CUARCH_STUB_NVRTC_VERSION", "12.8");  // a real NVRTC never changes its answer: this one may
  CHECK(version_of(source.compiler()) == cuarch::cuda_version{12, 4, -1});
  const cuarch::nvrtc_library_source copy = source;  // copies share what the source learnt
  CHECK(version_of(copy.compiler()) == cuarch::cuda_version{12, 4, -1});
  CHECK(version_of(cuarch::nvrtc_library_source(lib).compiler()) ==
        cuarch::cuda_version{12, 8, -1});  // a new source asks

  // Replace the file under the same path (new inode, as a package upgrade does): asked afresh.
  const std::string next = lib + ".new";
  std::filesystem::copy_file(lib, next);
  REQUIRE(std::rename(next.c_str(), lib.c_str()) == 0);
  CHECK(version_of(source.compiler()) == cuarch::cuda_version{12, 8, -1});
}

TEST_CASE("a failed answer is never kept: the next call asks again", "[nvrtc][memo]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  const std::string lib = private_stub("memo-fail", "libnvrtc.so.12");
  const cuarch::nvrtc_library_source source(lib);
  env.set("CUARCH_STUB_NVRTC_STATUS", "5");
  const auto failed = source.compiler();
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code == cuarch::errc::library_call_failed);
  env.unset("CUARCH_STUB_NVRTC_STATUS");
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.6");
  CHECK(version_of(source.compiler()) == cuarch::cuda_version{12, 6, -1});
}

TEST_CASE("from_loader() remembers the loader's library per process and LD_LIBRARY_PATH", "[nvrtc][memo]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  // libnvrtc.so.20 is the first name searched, so the stub wins over any installed NVRTC.
  const std::string lib = private_stub("memo-loader", "libnvrtc.so.20");
  env.set("LD_LIBRARY_PATH", std::filesystem::path(lib).parent_path().string());
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.4");
  const auto first = cuarch::nvrtc_library_source::from_loader().compiler();
  REQUIRE(first);
  CHECK(first->location == std::filesystem::canonical(lib).string());
  CHECK(first->version == cuarch::cuda_version{12, 4, -1});
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.8");
  CHECK(version_of(cuarch::nvrtc_library_source::from_loader().compiler()) == cuarch::cuda_version{12, 4, -1});

  // Another LD_LIBRARY_PATH is another search: the stub's directory is no longer on it.
  env.set("LD_LIBRARY_PATH", "/nonexistent");
  const auto other = cuarch::nvrtc_library_source::from_loader().compiler();
  if (other) CHECK(other->location != first->location);
}

TEST_CASE("threads asking one source concurrently all get the same answer", "[nvrtc][memo]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  const std::string lib = private_stub("memo-threads", "libnvrtc.so.12");
  env.set("CUARCH_STUB_NVRTC_VERSION", "12.5");
  const cuarch::nvrtc_library_source source(lib);
  std::vector<cuarch::cuda_version> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 50; ++k) {
        const auto c = source.compiler();
        if (c) seen[i] = c->version;
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& v : seen) CHECK(v == cuarch::cuda_version{12, 5, -1});
}

TEST_CASE("a runtime source keeps its answer while the path names the same file", "[cudart][memo]") {
  const std::string cudart = cuarch_test::local_file("lib64/libcudart.so.13");
  if (cudart.empty()) SKIP("no local libcudart.so.13");
  const cuarch::cuda_runtime_source source(cudart);
  const auto a = source.observe();
  REQUIRE(a);
  const auto b = source.observe();
  REQUIRE(b);
  CHECK(a->version == b->version);
  CHECK(b->location == cudart);
  CHECK(b->raw == a->raw);
}
