// Every failure names who decided; no silent fallback past a toolkit the caller named; the
// warnings resolve reports where the decision is made. On synthetic trees of fake nvcc programs
// (shell scripts printing a real nvcc's --version) and hand-made detections; the command line's
// view of the same cases is tests/scripts/cli_provenance_test.sh.
#include <cuarch/detect.hpp>
#include <cuarch/front_door/resolve_warnings.hpp>
#include <cuarch/resolve/outputs.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch::errc;
using cuarch::source_kind;
namespace fs = std::filesystem;

namespace {

/// A fake nvcc of release `release` ("12.8", "13.0") with patch `patch`, at `path`.
void fake_nvcc(const std::string& path, const std::string& release, const std::string& patch) {
  cuarch_test::write_file(path,
                          "#!/bin/sh\n"
                          "echo 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                          "echo 'Cuda compilation tools, release " +
                              release + ", V" + release + "." + patch + "'\n",
                          true);
}

/// A toolkit root holding a fake nvcc and a version.json of its release.
std::string fake_toolkit(const std::string& root, const std::string& release, const std::string& patch) {
  fake_nvcc(root + "/bin/nvcc", release, patch);
  cuarch_test::write_file(root + "/version.json",
                          "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"" + release + "." + patch + "\"}}\n");
  return root;
}

cuarch::arch_request request(const std::string& list) {
  cuarch::arch_request r;
  r.list = list;
  r.overrides = cuarch::env_override::none;
  return r;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The layout of the motivating report: nvcc 12.8 first on PATH, a 13.0 toolkit at the default location.
struct path_vs_default {
  std::string dir = cuarch_test::make_temp_dir("provenance");
  std::string old_nvcc = dir + "/nvcc/nvcc";
  std::string toolkit = fake_toolkit(dir + "/cuda-13.0", "13.0", "88");
  cuarch::detect_options options(cuarch::detect_mode mode) const {
    auto o = cuarch_test::hermetic({{"PATH", dir + "/nvcc"}});
    o.path_search = true;
    o.default_locations = true;
    o.default_roots = {toolkit};
    o.roles = cuarch::detect_role::offline_compiler;
    o.mode = mode;
    return o;
  }
  path_vs_default() { fake_nvcc(old_nvcc, "12.8", "93"); }
};

}  // namespace

TEST_CASE("a failed resolution names the compiler that decided, even without detection", "[provenance][resolve]") {
  const cuarch::compiler_info nvcc128{source_kind::nvcc, {12, 8, 93}, "/opt/cuda-12.8/bin/nvcc", std::nullopt};
  const auto r = cuarch::resolve_target_archs(request("12.0f"), nvcc128, cuarch::fixed_devices({{12, 0}}));
  REQUIRE_FALSE(r);
  // The resolver's failure is its summary and diagnostics; the outcome that holds it names the compiler.
  CHECK_FALSE(contains(r.error().message(), "decided by"));
  cuarch::resolve_outcome out;
  out.result = r;
  out.compiler = cuarch::bare_provenance(nvcc128);
  CHECK(contains(out.message(), "decided by: nvcc 12.8.93 at /opt/cuda-12.8/bin/nvcc"));
  // Nothing was detected here: no "detection saw" sentence (issue 16 item 7 g).
  CHECK_FALSE(contains(out.message(), "detection saw"));
  // The JSON failure carries the compiler object a success carries.
  const std::string json = cuarch::to_json(out);
  CHECK(contains(
      json,
      R"("compiler":{"kind":"nvcc","version":"12.8.93","location":"/opt/cuda-12.8/bin/nvcc","supported_sm_numbers":null,"table_older_than_compiler":false)"));
  CHECK(contains(json, R"("alternatives":[])"));

  SECTION("a malformed request is the caller's to fix: no compiler talk") {
    out.result = cuarch::resolve_target_archs(request("sm_"), nvcc128);
    REQUIRE_FALSE(out.result);
    CHECK_FALSE(contains(out.message(), "decided by"));
  }
}

TEST_CASE("nvcc 12.8 first on PATH, 13.0 at the default location: the failure says who decided and what would build it",
          "[provenance][detect]") {
  const path_vs_default layout;
  const auto found = cuarch::detect(layout.options(cuarch::detect_mode::first_answer));
  REQUIRE(found.chosen(found.offline_compiler));
  auto r = cuarch::resolve_target_archs(request("12.0f"), cuarch::detected_offline_compiler{&found},
                                        cuarch::fixed_devices({{12, 0}}));
  REQUIRE_FALSE(r);
  cuarch::resolve_outcome f;  // the front door's outcome owns who decided and the alternatives
  f.result = r;

  // first_answer stopped at the PATH nvcc; a fuller walk finds the toolkit that would build it.
  const auto every = cuarch::detect(layout.options(cuarch::detect_mode::enumerate_all));
  cuarch::name_decider(f, found, found.offline_compiler);
  cuarch::add_alternatives(f, every, every.offline_compiler, source_kind::nvcc, [](const cuarch::compiler_info& c) {
    return cuarch::resolve_target_archs(request("12.0f"), c, cuarch::fixed_devices({{12, 0}})).has_value();
  });

  REQUIRE(f.compiler);
  CHECK(f.compiler->compiler.version == cuarch::cuda_version{12, 8, 93});
  CHECK(f.compiler->compiler.location == layout.old_nvcc);
  CHECK(contains(f.compiler->found, "first on PATH"));
  REQUIRE(f.alternatives.size() == 1);
  CHECK(f.alternatives[0].compiler.version == cuarch::cuda_version{13, 0, 88});
  CHECK(contains(f.alternatives[0].found, "default location"));
  // The fix makes that toolkit's nvcc the first on PATH: what cuarch and every tool then run.
  CHECK(contains(f.alternatives[0].fix, "export PATH=\"" + layout.toolkit + "/bin:$PATH\""));
  const std::string m = f.message();
  CHECK(contains(m, "sm_120f needs CUDA >= 12.9 (have 12.8)"));
  CHECK(contains(m, "decided by: nvcc 12.8.93 at " + layout.old_nvcc + ", found via PATH"));
  CHECK(contains(m, "would build it: nvcc 13.0.88 at " + layout.toolkit + "/bin/nvcc"));
  const std::string json = cuarch::to_json(f);
  CHECK(contains(json, R"("found":"PATH )"));
  CHECK(contains(json, R"("fix":"export PATH=\")" + layout.toolkit));

  SECTION("explain_failure does both with the same request, walking the role again past first_answer") {
    cuarch::resolve_outcome g;
    g.result = r;
    const std::size_t not_asked = cuarch::explain_failure(g, found, layout.options(cuarch::detect_mode::first_answer),
                                                          /*jit=*/false, *cuarch::read_and_parse(request("12.0f")),
                                                          cuarch::fixed_devices({{12, 0}}), cuarch::strict_policy{},
                                                          cuarch::no_driver{});
    CHECK(not_asked == 0);
    CHECK(g.alternatives.size() == 1);
    REQUIRE(g.compiler);
    CHECK(contains(g.compiler->found, "first on PATH"));
  }
  SECTION("a request the other compiler cannot build either lists no alternative") {
    cuarch::resolve_outcome g;
    g.result = r;
    cuarch::add_alternatives(g, every, every.offline_compiler, source_kind::nvcc,
                             [](const cuarch::compiler_info&) { return false; });
    CHECK(g.alternatives.empty());
  }
  SECTION("when the decider was named explicitly, CUDA_HOME is no fix: only naming the other one is") {
    auto o = layout.options(cuarch::detect_mode::enumerate_all);
    o.nvcc_path = layout.old_nvcc;
    const auto named = cuarch::detect(o);
    cuarch::resolve_outcome g;
    g.result = r;
    cuarch::add_alternatives(g, named, named.offline_compiler, source_kind::nvcc,
                             [](const cuarch::compiler_info& c) { return c.version.major == 13; });
    REQUIRE(g.alternatives.size() == 1);
    CHECK_FALSE(contains(g.alternatives[0].fix, "CUDA_HOME"));
    CHECK(contains(g.alternatives[0].fix, "export PATH=\"" + layout.toolkit + "/bin:$PATH\""));
  }
}

TEST_CASE("a toolkit root the caller named that is missing or lacks the component is the answer, never a fallback",
          "[provenance][fallback]") {
  const path_vs_default layout;  // an answering nvcc on PATH and at the default location: what a fallback would take
  auto o = layout.options(cuarch::detect_mode::first_answer);

  SECTION("CUDA_HOME that does not exist") {
    o.env->set("CUDA_HOME", layout.dir + "/no-such-cuda");
    const auto d = cuarch::detect(o);
    CHECK_FALSE(d.chosen(d.offline_compiler));
    CHECK(d.offline_compiler.given_and_failed);
    CHECK(d.offline_compiler.named_root_failed);
    REQUIRE(d.offline_compiler.failure);
    CHECK(d.offline_compiler.failure->code == errc::file_unreadable);  // as --cuda-home pointing nowhere
    CHECK(d.offline_compiler.failure->location.view() == "CUDA_HOME");
    CHECK(d.offline_compiler.failure->subject.view() == layout.dir + "/no-such-cuda");
    CHECK(contains(d.offline_compiler.failure->message(), "does not fall back"));
    // The library's own resolution fails with it too, naming the variable.
    const auto r = cuarch::resolve_target_archs(request("9.0"), cuarch::detected_offline_compiler{&d});
    REQUIRE_FALSE(r);
    CHECK(r.error().summary.code == errc::file_unreadable);
  }
  SECTION("CUDA_HOME without bin/nvcc") {
    const std::string empty = layout.dir + "/empty-home";
    fs::create_directories(empty + "/include");
    o.env->set("CUDA_HOME", empty);
    const auto d = cuarch::detect(o);
    CHECK_FALSE(d.chosen(d.offline_compiler));
    CHECK(d.offline_compiler.named_root_failed);
    REQUIRE(d.offline_compiler.failure);
    CHECK(d.offline_compiler.failure->location.view() == "CUDA_HOME");
    CHECK(contains(d.offline_compiler.failure->message(), "no bin/nvcc"));
    SECTION("enumerate_all still lists what lies below, unchosen") {
      o.mode = cuarch::detect_mode::enumerate_all;
      const auto all = cuarch::detect(o);
      CHECK_FALSE(all.chosen(all.offline_compiler));
      CHECK(std::count_if(all.candidates.begin(), all.candidates.end(),
                          [](const cuarch::candidate& c) { return c.source == source_kind::nvcc; }) == 2);
    }
  }
  SECTION("CUDA_PATH without nvcc is refused too") {
    o.env->set("CUDA_PATH", layout.dir + "/nvcc");  // a directory, but no toolkit
    const auto d = cuarch::detect(o);
    CHECK(d.offline_compiler.named_root_failed);
    CHECK(d.offline_compiler.failure->location.view() == "CUDA_PATH");
  }
  SECTION("an explicit root (--cuda-home) that does not exist") {
    o.cuda_home = layout.dir + "/nope";
    const auto d = cuarch::detect(o);
    CHECK(d.offline_compiler.named_root_failed);
    REQUIRE(d.offline_compiler.failure);
    CHECK(contains(d.offline_compiler.failure->message(), layout.dir + "/nope"));
  }
  SECTION("a named root whose nvcc fails is the answer too") {
    const std::string broken = layout.dir + "/broken";
    cuarch_test::write_file(broken + "/bin/nvcc", "#!/bin/sh\nexit 3\n", true);
    o.env->set("CUDA_HOME", broken);
    const auto d = cuarch::detect(o);
    CHECK_FALSE(d.chosen(d.offline_compiler));
    CHECK(d.offline_compiler.given_and_failed);
  }
  SECTION("CUDA_HOME=<toolkit>/bin is read as the toolkit, with a note") {
    o.env->set("CUDA_HOME", layout.toolkit + "/bin");
    const auto d = cuarch::detect(o);
    const auto* c = d.chosen(d.offline_compiler);
    REQUIRE(c);
    CHECK(c->path == layout.toolkit + "/bin/nvcc");
    REQUIRE_FALSE(d.toolkit_roots.empty());
    CHECK(contains(d.toolkit_roots[0].note, "bin directory"));
    CHECK(contains(d.toolkit_roots[0].note, layout.toolkit));
  }
  SECTION("a valid CUDA_HOME governs as before") {
    o.env->set("CUDA_HOME", layout.toolkit);
    const auto d = cuarch::detect(o);
    REQUIRE(d.chosen(d.offline_compiler));
    CHECK(d.chosen(d.offline_compiler)->path == layout.toolkit + "/bin/nvcc");
  }
}

TEST_CASE("no compiler anywhere is no_compiler, listing the directories searched", "[provenance][no_compiler]") {
  const std::string dir = cuarch_test::make_temp_dir("nocompiler");
  fs::create_directories(dir + "/p1");
  fs::create_directories(dir + "/p2");
  fs::create_directories(dir + "/default-root/include");
  auto o = cuarch_test::hermetic({{"PATH", dir + "/p1:" + dir + "/p2"}});
  o.path_search = true;
  o.default_locations = true;
  o.default_roots = {dir + "/default-root"};
  o.roles = cuarch::detect_role::offline_compiler | cuarch::detect_role::jit_compiler;
  const auto d = cuarch::detect(o);
  REQUIRE(d.offline_compiler.failure);
  CHECK(d.offline_compiler.failure->code == errc::no_compiler);
  const auto& searched = d.offline_compiler.searched;
  CHECK(std::find(searched.begin(), searched.end(), dir + "/p1 (PATH)") != searched.end());
  CHECK(std::find(searched.begin(), searched.end(), dir + "/p2 (PATH)") != searched.end());
  CHECK(std::any_of(searched.begin(), searched.end(),
                    [&](const std::string& s) { return s.rfind(dir + "/default-root/bin (", 0) == 0; }));
  const std::string m = d.offline_compiler.failure->message();
  CHECK(contains(m, "no nvcc found (searched: "));
  CHECK(contains(m, dir + "/p1 (PATH)"));
  CHECK(contains(m, "pip"));
  REQUIRE(d.jit_compiler.failure);
  CHECK(d.jit_compiler.failure->code == errc::no_compiler);
  CHECK(contains(d.jit_compiler.failure->message(), "nvidia-cuda-nvrtc"));

  // Through resolution: the failure lists the places in full, and the JSON names the code.
  auto r = cuarch::resolve_target_archs(request("9.0"), cuarch::detected_offline_compiler{&d});
  REQUIRE_FALSE(r);
  cuarch::resolve_outcome f;
  f.result = r;
  cuarch::name_decider(f, d, d.offline_compiler);
  CHECK_FALSE(f.compiler);
  CHECK(f.searched == searched);
  CHECK(contains(f.message(), "searched:\n    " + dir + "/p1 (PATH)"));
  CHECK(contains(cuarch::to_json(f), R"("kind":"no_compiler")"));
  CHECK(contains(cuarch::to_json(f), R"("searched":[")" + dir + "/p1 (PATH)"));
  CHECK(cuarch::exit_status(errc::no_compiler) == 1);
}

TEST_CASE("no compiler: every place searched, in discovery order, in words", "[provenance][no_compiler]") {
  const std::string dir = cuarch_test::make_temp_dir("searched");
  fs::create_directories(dir + "/p1");
  fs::create_directories(dir + "/venv/lib/python3.12/site-packages");
  fs::create_directories(dir + "/bare");
  fs::create_directories(dir + "/root/targets/x86_64-linux/lib");
  auto o = cuarch_test::hermetic({{"PATH", dir + "/p1::rel"}, {"VIRTUAL_ENV", dir + "/gone"}});
  o.python_prefixes = {dir + "/venv", dir + "/bare"};
  o.path_search = true;
  o.default_locations = true;
  o.default_roots = {dir + "/root"};
  o.roles = cuarch::detect_role::offline_compiler | cuarch::detect_role::jit_compiler;
  const auto d = cuarch::detect(o);
  const std::string pip = " (pip wheels, python prefix " + dir + "/venv)";
  const std::string bare = dir + "/bare (python prefix " + dir +
                           "/bare: no lib/python3.*/site-packages here, and not a site-packages directory itself)";
  const std::string gone = dir + "/gone (VIRTUAL_ENV=" + dir + "/gone: no such directory)";
  const std::string root = " (default location " + dir + "/root)";
  const auto& nvcc = d.offline_compiler.searched;
  REQUIRE(nvcc.size() == 7);
  CHECK(nvcc[0] == dir + "/venv/lib/python3.12/site-packages" + pip);
  CHECK(nvcc[1] == bare);
  CHECK(nvcc[2] == dir + "/p1 (PATH)");
  CHECK(nvcc[3] == ". (PATH)");
  CHECK(nvcc[4] == "rel (PATH)");
  CHECK(nvcc[5] == gone);
  CHECK(nvcc[6] == dir + "/root/bin" + root);
  const auto& nvrtc = d.jit_compiler.searched;
  REQUIRE(nvrtc.size() == 4);  // loader search is off
  CHECK(nvrtc[0] == nvcc[0]);
  CHECK(nvrtc[1] == bare);
  CHECK(nvrtc[2] == gone);
  CHECK(nvrtc[3] == dir + "/root/lib64, " + dir + "/root/lib, " + dir + "/root/targets/x86_64-linux/lib" + root);

  // The loader, asked for names it does not have (only where this machine has no NVRTC).
  o.loader_search = true;
  o.env->set("LD_LIBRARY_PATH", dir + "/p1");
  o.roles = cuarch::detect_role::jit_compiler;
  const auto loader = cuarch::detect(o);
  if (loader.jit_compiler.failure && loader.jit_compiler.failure->code == errc::no_compiler) {
    const auto& words = loader.jit_compiler.searched;
    REQUIRE(words.size() == 5);
    CHECK(words[2].rfind("the dynamic loader (LD_LIBRARY_PATH=" + dir + "/p1, /etc/ld.so.cache) for libnvrtc.so.", 0) ==
          0);
    CHECK(words[3] == gone);
  }

  o.env->unset("PATH");
  o.python_prefixes.clear();
  o.env->unset("VIRTUAL_ENV");
  o.roles = cuarch::detect_role::offline_compiler;
  CHECK(cuarch::detect(o).offline_compiler.searched ==
        std::vector<std::string>{"PATH (not set)", dir + "/root/bin" + root});
}

TEST_CASE("resolve warnings: the doctor's findings that bear on one answer, worded for its compile path",
          "[provenance][warnings]") {
  const path_vs_default layout;
  auto o = layout.options(cuarch::detect_mode::first_answer);
  o.roles = cuarch::detect_role::offline_compiler | cuarch::detect_role::toolkit_files;

  SECTION("another nvcc in CUDA_HOME or on PATH is judged by its verdict (tool_view_warnings), not here") {
    o.nvcc_path = layout.old_nvcc;
    o.env->set("CUDA_HOME", layout.toolkit);
    const auto named = cuarch::detect(o);
    CHECK(cuarch::resolve_warnings(named, source_kind::nvcc).empty());
    // The doctor still says it: an nvcc named explicitly while CUDA_HOME holds another release.
    const auto findings = cuarch::find_disagreements(named);
    const auto it = std::find_if(findings.begin(), findings.end(), [](const cuarch::finding& f) {
      return f.kind == cuarch::finding_kind::override_vs_cuda_home;
    });
    REQUIRE(it != findings.end());
    CHECK(contains(it->what, "holds CUDA 13.0"));
    // The same root also named by cuda_home (met first that way): the finding still names CUDA_HOME.
    o.cuda_home = layout.toolkit;
    const auto also = cuarch::find_disagreements(cuarch::detect(o));
    const auto again = std::find_if(also.begin(), also.end(), [](const cuarch::finding& f) {
      return f.kind == cuarch::finding_kind::override_vs_cuda_home;
    });
    REQUIRE(again != also.end());
    CHECK(contains(again->what, "but CUDA_HOME=" + layout.toolkit + " holds CUDA 13.0"));
    o.cuda_home.clear();
    o.nvcc_path.clear();
    o.mode = cuarch::detect_mode::enumerate_all;
    CHECK(cuarch::resolve_warnings(cuarch::detect(o), source_kind::nvcc).empty());
  }
  SECTION("no override, one toolkit: nothing to say") {
    o.env->set("CUDA_HOME", layout.toolkit);
    const auto d = cuarch::detect(o);
    CHECK(cuarch::resolve_warnings(d, source_kind::nvcc).empty());
  }
}

TEST_CASE("resolve warnings against the driver: a newer minor is no warning for machine code; PTX is; a newer major is",
          "[provenance][warnings][driver]") {
  // A hand-made detection: the driver serves CUDA `driver`, NVRTC `nvrtc` governs.
  auto make = [](cuarch::cuda_version nvrtc, cuarch::cuda_version driver) {
    cuarch::detection d;
    cuarch::candidate jit;
    jit.source = source_kind::nvrtc;
    jit.how = cuarch::discovery::loader_search;
    jit.origin = "loader search for libnvrtc.so." + std::to_string(nvrtc.major);
    jit.path = jit.real_path = "/opt/cuda/lib64/libnvrtc.so." + std::to_string(nvrtc.major);
    jit.result = cuarch::observation{source_kind::nvrtc, nvrtc, jit.path, cuarch::discovery::loader_search, ""};
    jit.compiler = cuarch::compiler_info{source_kind::nvrtc, nvrtc, jit.path, std::nullopt};
    jit.chosen = true;
    cuarch::candidate drv;
    drv.source = source_kind::driver;
    drv.how = cuarch::discovery::loader_search;
    drv.origin = "loader search for libcuda.so.1";
    drv.path = drv.real_path = "/usr/lib/libcuda.so.1";
    drv.result = cuarch::observation{source_kind::driver, driver, drv.path, cuarch::discovery::loader_search,
                                     "580.65.06"};
    drv.chosen = true;
    d.candidates = {jit, drv};
    d.jit_compiler.index = 0;
    d.driver.index = 1;
    d.offline_compiler.asked = false;
    d.runtime.asked = false;
    return d;
  };
  const auto sass = cuarch::target_set::from(
                        {cuarch::arch_target{{9, 0}, cuarch::arch_variant::baseline, cuarch::arch_form::sass}})
                        .value();
  const auto ptx = cuarch::target_set::from(
                       {cuarch::arch_target{{9, 0}, cuarch::arch_variant::baseline, cuarch::arch_form::ptx}})
                       .value();
  auto kinds = [](const std::vector<cuarch::resolution_warning>& w) {
    std::string s;
    for (const auto& x : w) s += x.kind + " ";
    return s;
  };

  const auto minor = make({13, 1}, {13, 0});
  CHECK(kinds(cuarch::resolve_warnings(minor, source_kind::nvrtc, &sass)).empty());
  CHECK(contains(kinds(cuarch::resolve_warnings(minor, source_kind::nvrtc, &ptx)), "ptx_too_new_for_driver"));

  const auto major = make({13, 0}, {12, 8});
  CHECK(contains(kinds(cuarch::resolve_warnings(major, source_kind::nvrtc, &sass)), "compiler_newer_than_driver"));
  std::vector<std::string> doctor;  // the doctor applies the same rule
  for (const auto& f : cuarch::find_disagreements(major)) doctor.emplace_back(to_string(f.kind));
  CHECK(std::find(doctor.begin(), doctor.end(), "compiler_newer_than_driver") != doctor.end());

  const auto same = make({12, 8}, {13, 0});
  CHECK(cuarch::resolve_warnings(same, source_kind::nvrtc, &ptx).empty());
}
