// detect(): the discovery order per component, provenance, identity by real path, sticky explicit
// requests, environment mistakes, devices, threads and caching — on synthetic toolkit trees built
// from stub libraries and fake programs, and on the scenarios of make-layouts.sh (real pieces).
#include <cuarch/sources/compile_time.hpp>
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch::discovery;
using cuarch::errc;
using cuarch::source_kind;
using cuarch_test::scoped_env;
namespace fs = std::filesystem;

namespace {

const std::string& stub_dir() {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path;
}

/// A toolkit root with a copy of the stub NVRTC in lib64 and, optionally, a fake nvcc in bin.
std::string make_toolkit(const std::string& root, const char* nvcc = nullptr,
                         const char* nvrtc = "nvrtc/libnvrtc.so.12") {
  fs::create_directories(root + "/lib64");
  fs::create_directories(root + "/include");
  cuarch_test::write_file(root + "/include/cuda.h", "#define CUDA_VERSION 12080\n");
  if (nvrtc)
    fs::copy_file(stub_dir() + "/" + nvrtc, root + "/lib64/libnvrtc.so.12", fs::copy_options::overwrite_existing);
  if (nvcc) {
    fs::create_directories(root + "/bin");
    fs::copy_file(stub_dir() + "/bin/" + nvcc, root + "/bin/nvcc", fs::copy_options::overwrite_existing);
  }
  return root;
}

std::vector<const cuarch::candidate*> of(const cuarch::detection& d, source_kind kind) {
  std::vector<const cuarch::candidate*> out;
  for (const auto& c : d.candidates)
    if (c.source == kind) out.push_back(&c);
  return out;
}

std::string chosen_path(const cuarch::detection& d, const cuarch::selection& s) {
  const auto* c = d.chosen(s);
  return c ? c->path : std::string("(none)");
}

struct clean_stub_env {
  scoped_env env;
  clean_stub_env() {
    for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  }
};

}  // namespace

TEST_CASE("NVRTC discovery order: explicit, CUARCH_NVRTC, --cuda-home, python prefix, CUDA_HOME, CUDA_PATH",
          "[detect][order]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("order");
  const std::string lib = stub_dir() + "/nvrtc/libnvrtc.so.12";
  fs::create_directories(t + "/explicit");
  fs::copy_file(lib, t + "/explicit/libnvrtc.so.12");
  fs::create_directories(t + "/variable");
  fs::copy_file(lib, t + "/variable/libnvrtc.so.12");
  make_toolkit(t + "/home-arg");
  const std::string sp = t + "/venv/lib/python3.11/site-packages";
  fs::create_directories(sp + "/nvidia/cuda_nvrtc/lib");
  fs::copy_file(lib, sp + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
  make_toolkit(t + "/cuda-home");
  make_toolkit(t + "/cuda-path");

  cuarch::environment env{{"CUARCH_NVRTC", t + "/variable/libnvrtc.so.12"},
                          {"CUDA_HOME", t + "/cuda-home"},
                          {"CUDA_PATH", t + "/cuda-path"}};
  auto opts = cuarch_test::hermetic(env);
  opts.nvrtc_path = t + "/explicit/libnvrtc.so.12";
  opts.cuda_home = t + "/home-arg";
  opts.python_prefixes = {t + "/venv"};

  const std::vector<std::pair<std::string, discovery>> expected{
      {t + "/explicit/libnvrtc.so.12", discovery::explicit_argument},
      {t + "/variable/libnvrtc.so.12", discovery::environment},
      {t + "/home-arg/lib64/libnvrtc.so.12", discovery::explicit_argument},
      {sp + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", discovery::python_site_packages},
      {t + "/cuda-home/lib64/libnvrtc.so.12", discovery::environment},
      {t + "/cuda-path/lib64/libnvrtc.so.12", discovery::environment},
  };
  auto d = cuarch::detect(opts);
  const auto all = of(d, source_kind::nvrtc);
  REQUIRE(all.size() == expected.size());  // every candidate is recorded, chosen or not
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(all[i]->path == expected[i].first);
    CHECK(all[i]->how == expected[i].second);
    CHECK(all[i]->result);
  }
  CHECK(chosen_path(d, d.jit_compiler) == expected[0].first);
  CHECK(d.jit_compiler.why.find("explicit NVRTC library") == 0);
  // Remove the tiers one at a time: the next one governs.
  opts.nvrtc_path.clear();
  CHECK(chosen_path(cuarch::detect(opts), cuarch::detect(opts).jit_compiler) == expected[1].first);
  opts.env->unset("CUARCH_NVRTC");
  d = cuarch::detect(opts);
  CHECK(chosen_path(d, d.jit_compiler) == expected[2].first);
  opts.cuda_home.clear();
  d = cuarch::detect(opts);
  CHECK(chosen_path(d, d.jit_compiler) == expected[3].first);
  opts.python_prefixes.clear();
  d = cuarch::detect(opts);
  CHECK(chosen_path(d, d.jit_compiler) == expected[4].first);
  CHECK(d.jit_compiler.why.find("CUDA_HOME=" + t + "/cuda-home") == 0);
  opts.env->unset("CUDA_HOME");
  d = cuarch::detect(opts);
  CHECK(chosen_path(d, d.jit_compiler) == expected[5].first);
}

TEST_CASE("a failing explicit request is the answer: no silent fallback; a failing implicit one is passed over, and said",
          "[detect][order]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("sticky");
  make_toolkit(t + "/good");
  make_toolkit(t + "/broken", nullptr, "nvrtc-nosym/libnvrtc.so.12");
  SECTION("explicit path that does not exist") {
    auto opts = cuarch_test::hermetic({{"CUDA_HOME", t + "/good"}});
    opts.nvrtc_path = t + "/missing/libnvrtc.so.12";
    const auto d = cuarch::detect(opts);
    CHECK_FALSE(d.jit_compiler.index);
    REQUIRE(d.jit_compiler.failure);
    CHECK(d.jit_compiler.failure->code == errc::library_not_found);
    CHECK(d.jit_compiler.failure->location.view() == t + "/missing/libnvrtc.so.12");
    CHECK(d.jit_compiler.why.find("does not fall back") != std::string::npos);
    CHECK(d.jit_compiler.given_and_failed);        // a field, not a search in `why`
    CHECK(of(d, source_kind::nvrtc).size() == 2);  // the good one is still recorded, not chosen
    CHECK_FALSE(d.compiler_of(d.jit_compiler));
  }
  SECTION("CUARCH_NVRTC relative: refused as invalid_environment") {
    const auto d = cuarch::detect(
        cuarch_test::hermetic({{"CUARCH_NVRTC", "lib/libnvrtc.so.12"}, {"CUDA_HOME", t + "/good"}}));
    REQUIRE(d.jit_compiler.failure);
    CHECK(d.jit_compiler.failure->code == errc::invalid_environment);
    CHECK(d.jit_compiler.failure->location.view() == "CUARCH_NVRTC");
    CHECK(d.jit_compiler.given_and_failed);
  }
  SECTION("CUDA_HOME's NVRTC is broken: that is the answer, CUDA_PATH's is recorded but never used") {
    const auto d = cuarch::detect(cuarch_test::hermetic({{"CUDA_HOME", t + "/broken"}, {"CUDA_PATH", t + "/good"}}));
    CHECK_FALSE(d.jit_compiler.index);
    REQUIRE(d.jit_compiler.failure);
    CHECK(d.jit_compiler.failure->code == errc::symbol_not_found);
    CHECK(d.jit_compiler.given_and_failed);
    const auto all = of(d, source_kind::nvrtc);
    REQUIRE(all.size() == 2);
    REQUIRE_FALSE(all[0]->result);
    CHECK(all[0]->result.error().code == errc::symbol_not_found);
  }
}

TEST_CASE("one toolkit through a symlink and its real path is one toolkit", "[detect][identity]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("symlink");
  make_toolkit(t + "/cuda-12.8", "nvcc-12.8");
  fs::create_directory_symlink("cuda-12.8", t + "/cuda");
  auto opts = cuarch_test::hermetic({{"CUDA_HOME", t + "/cuda"}, {"CUDA_PATH", t + "/cuda-12.8"}});
  const auto d = cuarch::detect(opts);
  std::size_t roots = 0;
  for (const auto& r : d.toolkit_roots)
    if (r.real_path == t + "/cuda-12.8") {
      ++roots;
      CHECK(r.path == t + "/cuda");
      CHECK(std::find(r.also_found_via.begin(), r.also_found_via.end(), "CUDA_PATH=" + t + "/cuda-12.8") !=
            r.also_found_via.end());
    }
  CHECK(roots == 1);
  const auto nvrtc = of(d, source_kind::nvrtc);
  REQUIRE(nvrtc.size() == 1);
  CHECK(nvrtc[0]->real_path == t + "/cuda-12.8/lib64/libnvrtc.so.12");
  const auto nvcc = of(d, source_kind::nvcc);
  REQUIRE(nvcc.size() == 1);
  CHECK(nvcc[0]->toolkit_root == t + "/cuda-12.8");
}

TEST_CASE("environment mistakes are typed errors naming the variable", "[detect][environment]") {
  clean_stub_env guard;
  SECTION("CUDA_HOME pointing nowhere") {
    const auto d = cuarch::detect(cuarch_test::hermetic({{"CUDA_HOME", "/nonexistent/cuda-12.8"}}));
    REQUIRE(d.toolkit_roots.size() == 1);
    REQUIRE(d.toolkit_roots[0].problem);
    CHECK(d.toolkit_roots[0].problem->code == errc::file_unreadable);  // as --cuda-home pointing nowhere
    CHECK(d.toolkit_roots[0].problem->location.view() == "CUDA_HOME");
    CHECK(d.toolkit_roots[0].problem->subject.view() == "/nonexistent/cuda-12.8");
    CHECK(d.toolkit_roots[0].problem->message().find("no such directory") != std::string::npos);
    REQUIRE(d.jit_compiler.failure);
    CHECK(d.jit_compiler.failure->code == errc::file_unreadable);  // the named root is the answer: no fallback
    CHECK(d.jit_compiler.named_root_failed);
  }
  SECTION("--cuda-home pointing nowhere: the same failure as CUDA_HOME pointing nowhere") {
    auto opts = cuarch_test::hermetic();
    opts.cuda_home = "/nonexistent/cuda-12.8";
    const auto d = cuarch::detect(opts);
    REQUIRE(d.toolkit_roots.size() == 1);
    REQUIRE(d.toolkit_roots[0].problem);
    CHECK(d.toolkit_roots[0].problem->code == errc::file_unreadable);
    REQUIRE(d.jit_compiler.failure);
    CHECK(d.jit_compiler.failure->code == errc::file_unreadable);
  }
  SECTION("relative CUDA_PATH and VIRTUAL_ENV") {
    const auto d = cuarch::detect(cuarch_test::hermetic({{"CUDA_PATH", "cuda"}, {"VIRTUAL_ENV", ".venv"}}));
    REQUIRE(d.toolkit_roots.size() == 1);
    CHECK(d.toolkit_roots[0].problem->code == errc::invalid_environment);
    REQUIRE(d.python_environments.size() == 1);
    CHECK(d.python_environments[0].problem->code == errc::invalid_environment);
    CHECK(d.python_environments[0].problem->location.view() == "VIRTUAL_ENV");
  }
  SECTION("an explicit python prefix that holds no site-packages") {
    auto opts = cuarch_test::hermetic();
    opts.python_prefixes = {cuarch_test::make_temp_dir("novenv")};
    const auto d = cuarch::detect(opts);
    REQUIRE(d.python_environments.size() == 1);
    REQUIRE(d.python_environments[0].problem);
    CHECK(d.python_environments[0].problem->code == errc::file_unreadable);
  }
}

TEST_CASE("nvcc discovery: CUDACXX and CUDA_HOME before PATH; PATH in order; wrappers; relative entries",
          "[detect][order]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("nvccorder");
  make_toolkit(t + "/home", "nvcc-crlf");
  fs::create_directories(t + "/p1");
  fs::create_directories(t + "/p2");
  fs::copy_file(stub_dir() + "/bin/nvcc-12.8", t + "/p1/nvcc");
  fs::copy_file(stub_dir() + "/bin/nvcc-nonsense", t + "/p2/nvcc");
  auto opts = cuarch_test::hermetic({{"PATH", t + "/p1:" + t + "/p2"}, {"CUDA_HOME", t + "/home"}});
  opts.path_search = true;
  auto d = cuarch::detect(opts);
  auto nvcc = of(d, source_kind::nvcc);
  REQUIRE(nvcc.size() == 3);
  CHECK(nvcc[0]->path == t + "/home/bin/nvcc");
  CHECK(nvcc[1]->path == t + "/p1/nvcc");
  CHECK(nvcc[1]->how == discovery::path_search);
  CHECK(nvcc[2]->result.error().code == errc::malformed_output);
  CHECK(chosen_path(d, d.offline_compiler) == t + "/home/bin/nvcc");
  REQUIRE(d.nvcc_on_path);
  CHECK(d.candidates[*d.nvcc_on_path].path == t + "/p1/nvcc");

  SECTION("CUDACXX is sticky") {
    opts.env->set("CUDACXX", t + "/p2/nvcc");
    d = cuarch::detect(opts);
    REQUIRE(d.offline_compiler.failure);
    CHECK(d.offline_compiler.failure->code == errc::malformed_output);
    CHECK(d.offline_compiler.given_and_failed);
  }
  SECTION("environment_places off (--isolated): CUDACXX, CUDA_HOME, VIRTUAL_ENV are not looked at; CUARCH_NVCC is") {
    opts.path_search = false;
    opts.environment_places = false;
    opts.env->set("CUDACXX", t + "/p1/nvcc");
    opts.env->set("VIRTUAL_ENV", t + "/home");
    d = cuarch::detect(opts);
    CHECK(of(d, source_kind::nvcc).empty());
    CHECK(d.toolkit_roots.empty());
    CHECK(d.python_environments.empty());
    CHECK(d.offline_compiler.failure);
    opts.env->set("CUARCH_NVCC", t + "/p1/nvcc");
    d = cuarch::detect(opts);
    CHECK(chosen_path(d, d.offline_compiler) == t + "/p1/nvcc");
  }
  SECTION("without CUDA_HOME the first on PATH governs") {
    opts.env->unset("CUDA_HOME");
    d = cuarch::detect(opts);
    CHECK(chosen_path(d, d.offline_compiler) == t + "/p1/nvcc");
    CHECK(d.offline_compiler.why.find("PATH " + t + "/p1") == 0);
  }
  SECTION("a wrapper script on PATH is the toolkit's nvcc") {
    cuarch_test::write_file(t + "/p0/nvcc", "#!/bin/sh\nexec " + t + "/home/bin/nvcc \"$@\"\n", true);
    opts.env->set("PATH", t + "/p0:" + t + "/p1");
    d = cuarch::detect(opts);
    nvcc = of(d, source_kind::nvcc);
    REQUIRE(nvcc.size() == 2);
    CHECK(nvcc[0]->path == t + "/home/bin/nvcc");
    REQUIRE_FALSE(nvcc[0]->also_found_via.empty());
    CHECK(nvcc[0]->also_found_via[0].find("wrapper script") != std::string::npos);
    REQUIRE(d.nvcc_on_path);
    CHECK(*d.nvcc_on_path == static_cast<std::size_t>(nvcc[0] - d.candidates.data()));
  }
  SECTION("a relative PATH entry that holds nvcc is refused, and recorded") {
    const std::string rel = fs::relative(t + "/p2", fs::current_path()).string();
    opts.env->set("PATH", rel + ":" + t + "/p1");
    opts.env->unset("CUDA_HOME");
    d = cuarch::detect(opts);
    nvcc = of(d, source_kind::nvcc);
    REQUIRE(nvcc.size() == 2);
    REQUIRE_FALSE(nvcc[0]->result);
    CHECK(nvcc[0]->result.error().code == errc::invalid_environment);
    CHECK(nvcc[0]->result.error().location.view() == "PATH");
    CHECK(chosen_path(d, d.offline_compiler) == t + "/p1/nvcc");
  }
}

TEST_CASE("devices: the given list governs; the driver's are recorded beside it; none is no_device",
          "[detect][devices]") {
  clean_stub_env guard;
  guard.env.set("CUARCH_STUB_DEVICES", "9.0,12.0");
  guard.env.set("CUARCH_STUB_DRIVER_VERSION", "13000");
  auto opts = cuarch_test::hermetic({{"CUARCH_LIBCUDA", stub_dir() + "/lib/libcuda.so.1"}});
  auto d = cuarch::detect(opts);
  REQUIRE(d.driver.index);
  CHECK(d.driver_version()->version == cuarch::cuda_version{13, 0, -1});
  REQUIRE(d.driver_devices.has_value());
  REQUIRE(*d.driver_devices);
  CHECK((*d.driver_devices)->size() == 2);
  CHECK(d.devices()->size() == 2);
  opts.device_ccs = std::vector<cuarch::compute_capability>{{12, 0}};
  d = cuarch::detect(opts);
  REQUIRE(d.devices());
  REQUIRE(d.devices()->size() == 1);
  CHECK(d.devices()->front().source == source_kind::device_list);
  CHECK((*d.driver_devices)->size() == 2);
  opts.device_ccs.reset();
  opts.env = cuarch::environment{};
  d = cuarch::detect(opts);
  const auto none = d.devices();
  REQUIRE_FALSE(none);
  CHECK(none.error().code == errc::no_device);
  CHECK(none.error().message().find("pass the devices explicitly") != std::string::npos);
}

TEST_CASE("devices: the chosen driver's own NVML (beside its libcuda) answers, never another driver's",
          "[detect][devices]") {
  clean_stub_env guard;
  guard.env.set("CUARCH_STUB_DEVICES", "9.0,12.0");  // what the stub libcuda shows through cuInit
  guard.env.set("CUARCH_STUB_DRIVER_VERSION", "13000");
  guard.env.set("CUARCH_STUB_NVML_DEVICES", "12.0/GPU-cccc0000-1111/0x81/NVML GPU");  // what a stub NVML shows
  const std::string t = cuarch_test::make_temp_dir("nvml-beside");
  fs::create_directories(t + "/driver");
  fs::copy_file(stub_dir() + "/lib/libcuda.so.1", t + "/driver/libcuda.so.1");
  fs::copy_file(stub_dir() + "/nvml/libnvidia-ml.so.1", t + "/driver/libnvidia-ml.so.1");

  // NVML beside the chosen libcuda: it answers, and no CUDA is initialised to read the devices.
  auto d = cuarch::detect(cuarch_test::hermetic({{"CUARCH_LIBCUDA", t + "/driver/libcuda.so.1"}}));
  REQUIRE(d.driver_devices.has_value());
  REQUIRE(*d.driver_devices);
  REQUIRE((*d.driver_devices)->size() == 1);
  CHECK((*d.driver_devices)->front().name == "NVML GPU");
  CHECK(d.devices_via.rfind("NVML", 0) == 0);
  CHECK(d.devices_notes.empty());

  // A libcuda the loader found (LD_LIBRARY_PATH) with no NVML beside it is not described by another
  // NVML the loader can reach: the chosen driver answers through cuInit, and the detection says so.
  // (detection reads LD_LIBRARY_PATH from its one environment snapshot, as every variable.)
  guard.env.set("LD_LIBRARY_PATH", stub_dir() + "/lib:" + stub_dir() + "/nvml");
  auto by_loader = cuarch_test::hermetic({{"LD_LIBRARY_PATH", stub_dir() + "/lib:" + stub_dir() + "/nvml"}});
  by_loader.loader_search = true;
  d = cuarch::detect(by_loader);
  REQUIRE(d.driver.index);
  CHECK(d.candidates[*d.driver.index].how == cuarch::discovery::loader_search);
  REQUIRE(d.driver_devices.has_value());
  REQUIRE(*d.driver_devices);
  CHECK((*d.driver_devices)->size() == 2);
  CHECK(d.devices_via.rfind("cuInit", 0) == 0);
  REQUIRE_FALSE(d.devices_notes.empty());
  CHECK(d.devices_notes.front().find("a process forked after this cannot use CUDA") != std::string::npos);

  // A process that must keep CUDA uninitialised turns the fallback off: NVML's failure is the answer,
  // and it says that cuInit was not tried.
  by_loader.cuinit_fallback = false;
  d = cuarch::detect(by_loader);
  REQUIRE(d.driver_devices.has_value());
  REQUIRE_FALSE(*d.driver_devices);
  CHECK(d.driver_devices->error().raw.view().find("cuInit was not tried") != std::string_view::npos);
  CHECK(d.devices_notes.empty());
  const auto none = d.devices();
  REQUIRE_FALSE(none);
  CHECK(none.error().code == errc::no_device);
}

TEST_CASE("the compile-time CUDA_VERSION of this translation unit is recorded when passed", "[detect][compile_time]") {
  auto opts = cuarch_test::hermetic();
  opts.compile_time = CUARCH_COMPILE_TIME_OBSERVATION();
  const auto d = cuarch::detect(opts);
  const auto ct = of(d, source_kind::compile_time);
  REQUIRE(ct.size() == 1);
  if (ct[0]->result) {
    CHECK(ct[0]->result->how == discovery::compile_time);
    CHECK(ct[0]->result->version.major >= 11);
  } else {
    CHECK(ct[0]->result.error().code == errc::file_unreadable);
    CHECK(ct[0]->result.error().location.view().find("detect_test.cpp") != std::string_view::npos);
  }
  const auto v = cuarch::compile_time_observation(12080, "x.cu");
  REQUIRE(v);
  CHECK(v->version == cuarch::cuda_version{12, 8, -1});
  CHECK_FALSE(cuarch::compile_time_observation(0, "x.cu"));
  CHECK(cuarch::compile_time_observation(12345, "x.cu").error().code == errc::invalid_version);
}

TEST_CASE("detect() from several threads at once gives one answer", "[detect][threads]") {
  clean_stub_env guard;
  const std::string t = cuarch_test::make_temp_dir("threads");
  make_toolkit(t + "/home", "nvcc-12.8");
  const auto opts = cuarch_test::hermetic({{"CUDA_HOME", t + "/home"}});
  std::vector<cuarch::detection> results(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) threads.emplace_back([&, i] { results[i] = cuarch::detect(opts); });
  for (auto& th : threads) th.join();
  for (const auto& r : results) {
    REQUIRE(r.candidates.size() == results[0].candidates.size());
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
      CHECK(r.candidates[i].real_path == results[0].candidates[i].real_path);
      CHECK(r.candidates[i].result.has_value() == results[0].candidates[i].result.has_value());
    }
    CHECK(r.jit_compiler.index == results[0].jit_compiler.index);
  }
}

TEST_CASE("this machine, as it is: every role answered or explained", "[detect][real]") {
  const auto d = cuarch::detect();
  for (const cuarch::selection* s : {&d.jit_compiler, &d.offline_compiler, &d.driver, &d.runtime}) {
    CHECK_FALSE(s->why.empty());
    CHECK((s->index.has_value() != s->failure.has_value()));
  }
  for (const auto& c : d.candidates)
    if (!c.result) CHECK((!c.result.error().location.empty() || !c.result.error().subject.empty()));
  if (cuarch_test::local_cuda().empty()) return;
  CHECK(d.jit_compiler.index);  // a local toolkit's NVRTC is found somewhere in the order
}

TEST_CASE("scenarios of make-layouts.sh, in process: roles as the doctor reports them", "[detect][layouts][real]") {
  const auto& root = cuarch_test::layouts();
  if (!root) SKIP(root.why_not);
  struct expect {
    const char* name;
    const char* jit;      // expected JIT version, "" = none
    const char* offline;  // expected offline version, "" = none
  };
  const expect table[] = {
      {"old-nvcc-on-path", "13.0", "12.8.93"},
      {"old-nvcc-on-path-real", "13.0", "12.4.131"},
      {"wheel-only", "12.4", ""},
      {"multi-toolkit", "12.4", "12.4.131"},
      {"old-driver", "13.0", ""},
      {"minor-compat", "12.4", ""},
  };
  for (const auto& e : table) {
    DYNAMIC_SECTION(e.name) {
      const auto s = cuarch_test::load_scenario(root.path, e.name);
      if (!s.skip.empty()) SKIP(s.skip);
      scoped_env env;
      cuarch_test::apply_stub_env(env, s);
      const auto d = cuarch::detect(s.options);
      const auto* jit = d.chosen(d.jit_compiler);
      const auto* off = d.chosen(d.offline_compiler);
      CHECK((jit ? std::string(cuarch::to_text(jit->result->version).view()).substr(0, std::string(e.jit).size())
                 : std::string()) == e.jit);
      CHECK((off ? std::string(cuarch::to_text(off->result->version).view()) : std::string()) == e.offline);
      CHECK_FALSE(d.jit_compiler.why.empty());
      CHECK_FALSE(d.offline_compiler.why.empty());
    }
  }
}
