// NVRTC as a version source: real libraries (the local toolkit's, older releases from PyPI wheels
// and Debian), stub libraries for the faults reality cannot show, and the loading rules (no
// relative paths, one mapping per file, no leak on error paths).
#include <cuarch/sources/posix/dynamic_library.hpp>
#include <cuarch/sources/nvrtc_source.hpp>

#include <catch2/catch_test_macros.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch::errc;
using cuarch_test::scoped_env;

namespace {

std::string stub(const char* rel) {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/" + rel;
}

bool mapped(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

// Stand-ins for an NVRTC the program links (the function types of the real nvrtc.h).
enum fake_nvrtc_result { fake_success = 0, fake_error = 7 };
fake_nvrtc_result fake_version(int* major, int* minor) {
  *major = 12;
  *minor = 9;
  return fake_success;
}
fake_nvrtc_result fake_count(int* n) {
  *n = 2;
  return fake_success;
}
fake_nvrtc_result fake_archs(int* a) {
  a[0] = 90;
  a[1] = 120;
  return fake_success;
}
fake_nvrtc_result fake_failing_version(int*, int*) { return fake_error; }

}  // namespace

TEST_CASE("the local toolkit's NVRTC reports its version, supported archs and real path", "[nvrtc][real]") {
  const std::string lib = cuarch_test::local_nvrtc();
  if (lib.empty()) SKIP("no local CUDA toolkit with NVRTC (set CUARCH_LOCAL_CUDA)");
  const auto p = cuarch::nvrtc_library_source(lib).probe();
  REQUIRE(p);
  CHECK(p->info.kind == cuarch::source_kind::nvrtc);
  CHECK(p->info.version.major >= 11);
  CHECK(p->info.location == std::filesystem::canonical(lib).string());
  REQUIRE(p->info.supported_sm_numbers);
  CHECK_FALSE(p->info.supported_sm_numbers->empty());
  CHECK(p->seen.location == lib);  // as found; the real path is in compiler_info
  CHECK(p->seen.how == cuarch::discovery::explicit_argument);
  CHECK(p->seen.raw.find("nvrtcGetSupportedArchs:") != std::string::npos);
  if (p->info.version.major == 13 && p->info.version.minor == 0)  // as recorded in tests/data/nvrtc_releases.tsv
    CHECK(*p->info.supported_sm_numbers == std::vector<int>{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121});
}

TEST_CASE("the loader's NVRTC is found by SONAME, newest major first", "[nvrtc][real]") {
  const auto c = cuarch::nvrtc_library_source::from_loader().compiler();
  if (!c) {
    CHECK(c.error().code == errc::library_not_found);
    CHECK(c.error().subject.view() == "libnvrtc.so (any version)");
    SKIP("the dynamic loader finds no NVRTC here: " + c.error().message());
  }
  CHECK(c->location.front() == '/');
  CHECK(c->supported_sm_numbers);
}

TEST_CASE("older real NVRTC releases: PyPI wheel 12.4 and Debian 11.8", "[nvrtc][real]") {
  SECTION("nvidia-cuda-nvrtc-cu12 12.4.127") {
    const auto dir = cuarch_test::fetch("nvrtc", "12.4.127");
    if (!dir) SKIP(dir.why_not);
    const auto c = cuarch::nvrtc_library_source(dir.path + "/libnvrtc.so.12").compiler();
    REQUIRE(c);
    CHECK(c->version == cuarch::cuda_version{12, 4, -1});
    CHECK(*c->supported_sm_numbers == std::vector<int>{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90});
  }
  SECTION("Debian libnvrtc11.2 11.8.89 (SONAME libnvrtc.so.11.2)") {
    const auto dir = cuarch_test::fetch("nvrtc", "debian:libnvrtc11.2=11.8.89~11.8.0-5~deb12u1");
    if (!dir) SKIP(dir.why_not);
    const auto c = cuarch::nvrtc_library_source(dir.path + "/libnvrtc.so.11.2").compiler();
    REQUIRE(c);
    // nvrtcVersion says 11.8; the real file (libnvrtc.so.11.2 -> libnvrtc.so.11.8.89) gives the full release.
    CHECK(c->version == cuarch::cuda_version{11, 8, 89});
    CHECK(*c->supported_sm_numbers == std::vector<int>{35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90});
  }
}

TEST_CASE("a library missing nvrtcVersion is symbol_not_found, naming the symbol and the library", "[nvrtc][fault]") {
  SECTION("a real library that is not NVRTC (the toolkit's libcudart)") {
    const std::string cudart = cuarch_test::local_file("lib64/libcudart.so." + std::to_string(13));
    std::string lib = cudart;
    if (lib.empty()) {
      const std::string root = cuarch_test::local_cuda();
      if (root.empty()) SKIP("no local toolkit");
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(root + "/lib64", ec))
        if (e.path().filename().string().rfind("libcudart.so.", 0) == 0) lib = e.path().string();
    }
    if (lib.empty()) SKIP("no local libcudart");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::symbol_not_found);
    CHECK(c.error().source == cuarch::source_kind::nvrtc);
    CHECK(c.error().subject.view() == "nvrtcVersion");
    CHECK(c.error().location.view() == std::filesystem::canonical(lib).string());
  }
  SECTION("a stub without the symbol, released afterwards (no leak on the error path)") {
    const std::string lib = stub("nvrtc-nosym/libnvrtc.so.12");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::symbol_not_found);
    CHECK(c.error().message().find(lib) != std::string::npos);
    CHECK_FALSE(mapped(lib));
  }
}

TEST_CASE("stub NVRTC libraries whose calls fail end in typed errors", "[nvrtc][fault]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  const std::string lib = stub("nvrtc/libnvrtc.so.12");
  SECTION("nvrtcVersion returns an error status") {
    env.set("CUARCH_STUB_NVRTC_STATUS", "5");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::library_call_failed);
    CHECK(c.error().subject.view() == "nvrtcVersion");
    CHECK(c.error().native_status == 5);
    CHECK(c.error().raw.view() == "NVRTC_ERROR_INVALID_OPTION");
    CHECK(c.error().location.view() == lib);
  }
  SECTION("nvrtcGetNumSupportedArchs fails") {
    env.set("CUARCH_STUB_NVRTC_ARCHS_STATUS", "1");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::library_call_failed);
    CHECK(c.error().subject.view() == "nvrtcGetNumSupportedArchs");
  }
  SECTION("nvrtcVersion reports nonsense") {
    env.set("CUARCH_STUB_NVRTC_VERSION", "0.0");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::invalid_version);
    CHECK(c.error().location.view() == lib);
  }
  SECTION("a supported arch that is no sm number") {
    env.set("CUARCH_STUB_NVRTC_ARCHS", "75,5");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::malformed_output);
  }
  SECTION("a healthy stub answers") {
    env.set("CUARCH_STUB_NVRTC_VERSION", "12.8");
    const auto c = cuarch::nvrtc_library_source(lib).compiler();
    REQUIRE(c);
    CHECK(c->version == cuarch::cuda_version{12, 8, -1});
    CHECK(*c->supported_sm_numbers == std::vector<int>{75, 80, 86, 89, 90, 100, 120});
  }
}

TEST_CASE("an NVRTC before 11.2 has no nvrtcGetSupportedArchs: no list, and the observation says so", "[nvrtc]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  env.set("CUARCH_STUB_NVRTC_VERSION", "11.1");
  const auto p = cuarch::nvrtc_library_source(stub("nvrtc-noarchs/libnvrtc.so.11.1")).probe();
  REQUIRE(p);
  CHECK(p->info.version == cuarch::cuda_version{11, 1, -1});
  CHECK_FALSE(p->info.supported_sm_numbers);
  CHECK(p->seen.raw.find("not in this library") != std::string::npos);
}

TEST_CASE("loading rules: absolute paths, relative only when the caller passes them, real-path identity",
          "[nvrtc][loading]") {
  const std::string lib = stub("nvrtc/libnvrtc.so.12");
  SECTION("missing file: library_not_found with the errno text and the path") {
    const auto l = cuarch::load_library_file("/nonexistent/libnvrtc.so.12", cuarch::source_kind::nvrtc);
    REQUIRE_FALSE(l);
    CHECK(l.error().code == errc::library_not_found);
    CHECK(l.error().location.view() == "/nonexistent/libnvrtc.so.12");
    CHECK(l.error().raw.view() == "No such file or directory");
  }
  SECTION("a file that is no library: the loader's words in raw") {
    const std::string dir = cuarch_test::make_temp_dir("notlib");
    cuarch_test::write_file(dir + "/libnvrtc.so.12", "not an ELF file\n");
    const auto c = cuarch::nvrtc_library_source(dir + "/libnvrtc.so.12").compiler();
    REQUIRE_FALSE(c);
    CHECK(c.error().code == errc::library_not_found);
    CHECK_FALSE(c.error().raw.empty());
  }
  SECTION("a relative path is refused unless the caller allows it") {
    const std::string rel = std::filesystem::relative(lib, std::filesystem::current_path()).string();
    REQUIRE(rel.front() != '/');
    const auto refused = cuarch::load_library_file(rel, cuarch::source_kind::nvrtc);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == errc::library_not_found);
    CHECK(refused.error().raw.view().find("relative") != std::string_view::npos);
    const auto allowed = cuarch::load_library_file(rel, cuarch::source_kind::nvrtc,
                                                   cuarch::library_path_policy::allow_relative);
    REQUIRE(allowed);
    CHECK(allowed->path() == std::filesystem::canonical(lib).string());
  }
  SECTION("a symlink and its target are one library, mapped once") {
    const std::string dir = cuarch_test::make_temp_dir("symlink");
    std::filesystem::create_symlink(lib, dir + "/libnvrtc.so.12");
    const auto a = cuarch::load_library_file(lib, cuarch::source_kind::nvrtc);
    const auto b = cuarch::load_library_file(dir + "/libnvrtc.so.12", cuarch::source_kind::nvrtc);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->path() == b->path());
    CHECK(a->raw_symbol("nvrtcVersion") == b->raw_symbol("nvrtcVersion"));
  }
  SECTION("released when the last handle goes, unless it answered (then it stays, loaded once)") {
    const std::string dir = cuarch_test::make_temp_dir("release");
    const std::string copy = dir + "/libnvrtc.so.12";
    std::filesystem::copy_file(lib, copy);
    {
      const auto a = cuarch::load_library_file(copy, cuarch::source_kind::nvrtc);
      REQUIRE(a);
      CHECK(mapped(copy));
      CHECK(cuarch::held_by_cuarch(copy));
    }
    CHECK_FALSE(mapped(copy));
    CHECK_FALSE(cuarch::held_by_cuarch(copy));
    REQUIRE(cuarch::nvrtc_library_source(copy).compiler());
    CHECK(mapped(copy));
    CHECK(cuarch::held_by_cuarch(copy));
  }
  SECTION("a relative LD_LIBRARY_PATH entry holding the library is refused before loading") {
    const std::string rel_dir =
        std::filesystem::relative(std::filesystem::path(lib).parent_path(), std::filesystem::current_path()).string();
    scoped_env env;
    env.set("LD_LIBRARY_PATH", rel_dir + ":/nonexistent");
    const auto l = cuarch::load_library_by_name("libnvrtc.so.12", cuarch::source_kind::nvrtc);
    REQUIRE_FALSE(l);
    CHECK(l.error().code == errc::invalid_environment);
    CHECK(l.error().location.view() == "LD_LIBRARY_PATH");
  }
  SECTION("a path is not a SONAME") {
    const auto l = cuarch::load_library_by_name("./libnvrtc.so.12", cuarch::source_kind::nvrtc);
    REQUIRE_FALSE(l);
    CHECK(l.error().code == errc::library_not_found);
  }
}

TEST_CASE("a linked NVRTC is asked through its functions; the library is named by the loader", "[nvrtc]") {
  const auto ok = cuarch::linked_nvrtc_source(&fake_version, &fake_count, &fake_archs).probe();
  REQUIRE(ok);
  CHECK(ok->info.version == cuarch::cuda_version{12, 9, -1});
  CHECK(*ok->info.supported_sm_numbers == std::vector<int>{90, 120});
  CHECK(ok->seen.how == cuarch::discovery::linked);
  CHECK_FALSE(ok->info.location.empty());  // this test executable, found by dladdr
  const auto bad = cuarch::linked_nvrtc_source(&fake_failing_version).compiler();
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == errc::library_call_failed);
  CHECK(bad.error().native_status == 7);
}

TEST_CASE("several threads asking NVRTC at once get the same answer", "[nvrtc][threads]") {
  std::string lib = cuarch_test::local_nvrtc();
  if (lib.empty()) lib = stub("nvrtc/libnvrtc.so.12");
  std::vector<cuarch::expected<cuarch::compiler_info, cuarch::error>> results(8, cuarch::compiler_info{});
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = cuarch::nvrtc_library_source(lib).compiler(); });
  for (auto& t : threads) t.join();
  REQUIRE(results[0]);
  for (const auto& r : results) {
    REQUIRE(r);
    CHECK(r->version == results[0]->version);
    CHECK(r->location == results[0]->location);
    CHECK(r->supported_sm_numbers == results[0]->supported_sm_numbers);
  }
}
