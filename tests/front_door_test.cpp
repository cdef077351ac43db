// resolve_here(): the front door every front end goes through. What it promises beyond
// resolve_target_archs(): a malformed request detects nothing; a request that names its compiler
// and devices detects nothing either; a detected compiler's failure comes back explained (who
// decided, how it was found); the compilers the user's own tools would run are compared, and each
// that gives another verdict is a warning whose fix, followed, leaves no warning.
#define CUARCH_COUNT_REQUEST_READS  // this executable's own: how often the door reads the request
#include <cuarch/detect.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <string>
#include <unistd.h>

#include "fixtures/fixture_support.hpp"
#include "test_paths.hpp"

namespace {

/// Options that look only where `env` says (no loader, no already-loaded, no default locations).
cuarch::resolve_options hermetic(const char* archs, cuarch::environment env = {}) {
  cuarch::resolve_options o;
  o.archs = archs;
  o.env_snapshot = std::move(env);
  o.isolated = true;
  return o;
}

/// Applies a fix's "export NAME=VALUE ..." to `env`, as a shell would (quotes, $PATH).
cuarch::environment follow(std::string fix, cuarch::environment env) {
  const auto at = fix.find("export ");
  REQUIRE(at != std::string::npos);
  fix = fix.substr(at + 7);
  std::size_t i = 0;
  while (i < fix.size()) {
    while (i < fix.size() && fix[i] == ' ') ++i;
    const auto eq = fix.find('=', i);
    if (eq == std::string::npos) break;
    const std::string name = fix.substr(i, eq - i);
    std::string value;
    i = eq + 1;
    while (i < fix.size() && fix[i] != ' ') {
      if (fix[i] == '\'') {
        const auto end = fix.find('\'', i + 1);
        value += fix.substr(i + 1, end - i - 1);
        i = end + 1;
      } else if (fix[i] == '"') {
        ++i;
        while (fix[i] != '"') {
          if (fix.compare(i, 5, "$PATH") == 0) {
            value += env.get("PATH").value_or("");
            i += 5;
          } else {
            if (fix[i] == '\\') ++i;
            value += fix[i++];
          }
        }
        ++i;
      } else {
        value += fix[i++];
      }
    }
    env.set(name, value);
  }
  return env;
}

/// A directory holding `nvcc` = the fake nvcc 12.8 (no real nvcc 12.8 can be had: the
/// nvidia-cuda-nvcc-cu12 wheels ship ptxas, not nvcc).
std::string path_dir_with_nvcc_12_8() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/cuarch-front-door-XXXXXX";
    const std::string d = ::mkdtemp(tmpl);
    const std::string target = cuarch_test::source_dir() + "/tests/fixtures/fake-nvcc/nvcc-12.8";
    REQUIRE(::symlink(target.c_str(), (d + "/nvcc").c_str()) == 0);
    return d;
  }();
  return dir;
}

bool have_local_cuda() { return ::access("/usr/local/cuda/bin/nvcc", X_OK) == 0; }

std::string kinds(const std::vector<cuarch::resolution_warning>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x.kind;
  return out;
}

}  // namespace

TEST_CASE("a malformed request is refused before anything is detected", "[front_door]") {
  auto o = hermetic("9.0;sm_12x");
  o.nvcc = "/nonexistent/nvcc";  // would be a failure of its own, were it asked
  const auto done = cuarch::resolve_here(o);
  CHECK(done.exit_status() == 2);
  CHECK(done.malformed);
  CHECK_FALSE(done.found);
  REQUIRE_FALSE(done.result);
  CHECK(cuarch::classify(done.result.error().summary.code).exit == cuarch::exit_class::bad_input);
}

TEST_CASE("a named toolkit and named devices: nothing is detected", "[front_door]") {
  cuarch::resolve_options o;
  o.archs = "native";
  o.toolkit = cuarch::cuda_version{13, 0};
  o.devices = std::vector<cuarch::compute_capability>{{12, 0}};
  const auto done = cuarch::resolve_here(o);
  CHECK_FALSE(done.malformed);
  CHECK_FALSE(done.found);
  REQUIRE(done.result);
  CHECK(cuarch::nvcc_flags(done.result->targets) == "-gencode=arch=compute_120a,code=sm_120a");
  REQUIRE(done.compiler);
  CHECK(done.compiler->compiler.kind == cuarch::source_kind::knowledge_table);
  CHECK(done.compiler->found.empty());  // a release given by version was not found anywhere
  CHECK(done.compiler->how == "explicit argument");
  CHECK(done.compiler->origin == "toolkit=13.0");
  CHECK(done.used == cuarch::compile_path::nvcc);
  o.output = cuarch::output_format::nvrtc;  // NVRTC output: NVRTC decides (compile_path::automatic)
  const auto jit = cuarch::resolve_here(o);
  CHECK_FALSE(jit.usage);
  CHECK(jit.used == cuarch::compile_path::nvrtc);
}

TEST_CASE("a detected nvcc that cannot build the request: the failure names it and how it was found", "[front_door]") {
  const std::string nvcc = cuarch_test::source_dir() + "/tests/fixtures/fake-nvcc/nvcc-12.8";
  auto o = hermetic("12.0f");
  o.nvcc = nvcc;
  o.devices = std::vector<cuarch::compute_capability>{{12, 0}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE(done.found);
  CHECK_FALSE(done.found->jit_compiler.asked);  // only the nvcc path's roles were asked
  REQUIRE(done.compiler);
  CHECK(done.compiler->compiler.version.minor == 8);
  CHECK(done.compiler->path == nvcc);  // the provenance a success document carries too
  CHECK(done.compiler->found.find("given explicitly") != std::string::npos);
  REQUIRE_FALSE(done.result);
  CHECK(done.result.error().summary.code == cuarch::errc::nothing_resolved);
  CHECK(done.message().find("sm_120f needs CUDA >= 12.9") != std::string::npos);
  CHECK(done.message().find("decided by: nvcc 12.8") != std::string::npos);
  CHECK(done.message().find("given explicitly") != std::string::npos);
}

#ifdef CUARCH_CLI_PATH
TEST_CASE("`cuarch resolve` says when the devices were read through cuInit", "[front_door][cli]") {
  const auto& stubs = cuarch_test::stubs();
  if (!stubs) SKIP(stubs.why_not);
  // A stub libcuda named explicitly, with no NVML beside it: native reads its devices through
  // cuInit, and a process forked afterwards could not use CUDA. That must not be silent.
  const std::vector<std::string> argv{"/usr/bin/env",
                                      "-u",
                                      "CUARCH_ARCHS",
                                      "CUARCH_STUB_DEVICES=9.0",
                                      "CUARCH_STUB_DRIVER_VERSION=13000",
                                      "CUARCH_LIBCUDA=" + stubs.path + "/lib/libcuda.so.1",
                                      CUARCH_CLI_PATH,
                                      "resolve",
                                      "--archs",
                                      "native",
                                      "--toolkit",
                                      "13.0"};
  const auto r = cuarch::run_process(argv, cuarch::process_limits{});
  REQUIRE(r);
  INFO("stdout: " << r->out << "\nstderr: " << r->err);
  CHECK(r->exit_status == 0);
  CHECK(r->out == "-gencode=arch=compute_90a,code=sm_90a\n");
  CHECK(r->err.find("cuarch resolve: note:") != std::string::npos);
  CHECK(r->err.find("a process forked after this cannot use CUDA") != std::string::npos);
}
#endif

TEST_CASE("the seed: nvcc 12.8 first on PATH, CUDA_HOME at 13.0: the answer warns, and the fix ends it",
          "[front_door][seed]") {
  if (!have_local_cuda()) SKIP("no CUDA toolkit at /usr/local/cuda");
  cuarch::resolve_options o;
  o.archs = "12.0f";
  o.env_snapshot = cuarch::environment{{"PATH", path_dir_with_nvcc_12_8() + ":/usr/bin:/bin"},
                                       {"CUDA_HOME", "/usr/local/cuda"}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE(done.result);
  CHECK(cuarch::nvcc_flags(done.result->targets) == "-gencode=arch=compute_120f,code=sm_120f");
  CHECK(done.used == cuarch::compile_path::nvcc);
  // Who decided and how, in parts, as the document carries them to every front end (Python's Compiler).
  REQUIRE(done.compiler);
  CHECK(done.compiler->how == "environment");
  CHECK(done.compiler->origin == "CUDA_HOME=/usr/local/cuda");
  CHECK(done.compiler->why.find("CUDA_HOME=/usr/local/cuda") == 0);
  const std::string document = cuarch::to_json(done);
  CHECK(document.find(R"("how":"environment","origin":"CUDA_HOME=/usr/local/cuda","why":"CUDA_HOME)") !=
        std::string::npos);
  REQUIRE(kinds(done.warnings) == "tool_compiler_disagrees");
  const auto& w = done.warnings.front();
  INFO(w.what << "\n" << w.meaning);
  CHECK(w.what.find("12.8") != std::string::npos);
  CHECK(w.what.find("first on PATH") != std::string::npos);
  CHECK(w.what.find("refuses it") != std::string::npos);
  CHECK(w.meaning.find("export PATH=") != std::string::npos);
  CHECK(done.exit_status() == 0);
  o.strict = true;
  CHECK(cuarch::resolve_here(o).exit_status() == 1);  // strict: the warning is an error
  o.strict = false;

  o.env_snapshot = follow(w.meaning, *o.env_snapshot);
  const auto fixed = cuarch::resolve_here(o);
  REQUIRE(fixed.result);
  CHECK(kinds(fixed.warnings).empty());
}

TEST_CASE("nvcc 12.8 first on PATH decides alone: the failure's fix, followed, resolves with no warning",
          "[front_door][seed]") {
  if (!have_local_cuda()) SKIP("no CUDA toolkit at /usr/local/cuda");
  cuarch::resolve_options o;
  o.archs = "12.0f";
  o.env_snapshot = cuarch::environment{{"PATH", path_dir_with_nvcc_12_8() + ":/usr/bin:/bin"}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  REQUIRE_FALSE(done.alternatives.empty());  // /usr/local/cuda's 13.0, a default location
  INFO(done.message());
  o.env_snapshot = follow(done.alternatives.front().fix, *o.env_snapshot);
  const auto fixed = cuarch::resolve_here(o);
  REQUIRE(fixed.result);
  CHECK(kinds(fixed.warnings).empty());
}

TEST_CASE("the request is read and parsed once, however many compilers the door judges it under",
          "[front_door][pipeline]") {
  if (!have_local_cuda()) SKIP("no CUDA toolkit at /usr/local/cuda");
  cuarch::resolve_options o;
  o.archs = "12.0f";
  o.env_snapshot = cuarch::environment{{"PATH", path_dir_with_nvcc_12_8() + ":/usr/bin:/bin"},
                                       {"CUDA_HOME", "/usr/local/cuda"}};
  cuarch::detail::request_reads = 0;
  const auto warned = cuarch::resolve_here(o);  // nvcc 12.8 judged it beside 13.0: a tool-view warning
  REQUIRE(warned.result);
  REQUIRE_FALSE(warned.warnings.empty());
  CHECK(cuarch::detail::request_reads == 1);

  o.env_snapshot = cuarch::environment{{"PATH", path_dir_with_nvcc_12_8() + ":/usr/bin:/bin"}};
  cuarch::detail::request_reads = 0;
  const auto failed = cuarch::resolve_here(o);  // 12.8 refuses it; 13.0 judged as the alternative
  REQUIRE_FALSE(failed.result);
  REQUIRE_FALSE(failed.alternatives.empty());
  CHECK(cuarch::detail::request_reads == 1);
}

TEST_CASE("CUDACXX names nvcc 12.8, CUDA_HOME 13.0: CUDACXX decides, and the fix names both", "[front_door][seed]") {
  if (!have_local_cuda()) SKIP("no CUDA toolkit at /usr/local/cuda");
  cuarch::resolve_options o;
  o.archs = "12.0f";
  o.env_snapshot = cuarch::environment{{"PATH", "/usr/bin:/bin"},
                                       {"CUDACXX", cuarch_test::source_dir() + "/tests/fixtures/fake-nvcc/nvcc-12.8"},
                                       {"CUDA_HOME", "/usr/local/cuda"}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  REQUIRE_FALSE(done.alternatives.empty());
  INFO(done.message());
  CHECK(done.alternatives.front().fix.find("CUDACXX=") != std::string::npos);
  o.env_snapshot = follow(done.alternatives.front().fix, *o.env_snapshot);
  const auto fixed = cuarch::resolve_here(o);
  REQUIRE(fixed.result);
  CHECK(kinds(fixed.warnings).empty());
}

TEST_CASE("every option reads its text in one place; contradictions are usage errors", "[front_door][options]") {
  cuarch::resolve_options o;
  const auto bad = cuarch::set_option(o, cuarch::option_name::dialect, "bogus");
  REQUIRE(bad);
  CHECK(bad->message.find("must be generic") == 0);
  CHECK(cuarch::set_option(o, cuarch::option_name::toolkit, "12.x")->cause->code == cuarch::errc::invalid_version);
  CHECK_FALSE(cuarch::set_option(o, cuarch::option_name::policy, "best-effort,ptx-fallback"));
  CHECK(cuarch::set_option(o, cuarch::option_name::timeout, "0.0001"));  // below a millisecond: no probe could run
  CHECK_FALSE(cuarch::set_option(o, cuarch::option_name::timeout, "2"));
  CHECK(o.timeout == std::chrono::milliseconds(2000));
  CHECK_FALSE(cuarch::set_option(o, cuarch::option_name::toolkit, "12.8"));
  CHECK_FALSE(cuarch::set_option(o, cuarch::option_name::nvcc, "/usr/bin/nvcc"));
  CHECK(cuarch::check_options(o).value_or("").find("toolkit names the compiler") == 0);
  CHECK(cuarch::resolve_here(o).exit_status() == 2);
  for (const auto n : cuarch::all_option_names) CHECK(cuarch::parse_option_name(cuarch::to_string(n)) == n);
}

TEST_CASE("an empty device list is refused as the text \"\" is, never read as this machine's GPUs or as none",
          "[front_door][options]") {
  cuarch::resolve_options text;
  const auto parsed = cuarch::set_option(text, cuarch::option_name::devices, "");
  REQUIRE(parsed);
  cuarch::resolve_options o;
  o.archs = "9.0";
  o.toolkit = cuarch::cuda_version{12, 8, -1};
  o.devices = std::vector<cuarch::compute_capability>{};
  CHECK(cuarch::check_options(o).value_or("") == "devices: " + parsed->message);
  CHECK(cuarch::resolve_here(o).exit_status() == 2);
}

TEST_CASE("\"first on PATH\" is said only of the nvcc that is first on PATH", "[front_door][edges]") {
  if (!have_local_cuda()) SKIP("no CUDA toolkit at /usr/local/cuda");
  // The first nvcc on PATH fails; the second (the local toolkit's) decides: it is not the first.
  char tmpl[] = "/tmp/cuarch-first-on-path-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string failing = cuarch_test::source_dir() + "/tests/fixtures/fake-nvcc/nvcc-fail";
  REQUIRE(::symlink(failing.c_str(), (dir + "/nvcc").c_str()) == 0);
  cuarch::resolve_options o;
  o.archs = "9.0";
  o.env_snapshot = cuarch::environment{{"PATH", dir + ":/usr/local/cuda/bin:/usr/bin:/bin"}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE(done.result);
  REQUIRE(done.compiler);
  INFO(done.compiler->found);
  CHECK(done.compiler->found.find("first on PATH") == std::string::npos);
  CHECK(done.compiler->found.find("after the first") != std::string::npos);
}

TEST_CASE("no 'detection saw' sentence when nothing was detected", "[front_door][failure][edges]") {
  // A toolkit named by release: the door names it, nobody looked for alternatives.
  cuarch::resolve_options o;
  o.archs = "sm_120a";
  o.toolkit = cuarch::cuda_version{12, 4};
  auto r = cuarch::resolve_here(o);
  REQUIRE_FALSE(r.result);
  REQUIRE_FALSE(r.found);
  const std::string m = r.message();
  CHECK(m.find("decided by:") != std::string::npos);
  CHECK(m.find("detection saw") == std::string::npos);
  // Once alternatives were sought (explain_failure) and none found, it is said.
  r.alternatives_sought = true;
  CHECK(r.message().find("no other compiler that detection saw would build it") != std::string::npos);
}

TEST_CASE("a toolkit named by release is never called NVRTC, with or without its list", "[front_door][edges]") {
  cuarch::resolve_options o;
  o.archs = "12.0";
  o.toolkit = cuarch::cuda_version{14, 0};
  o.toolkit_supported_sm = std::vector<int>{75, 90};
  const auto done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  const std::string m = done.message();
  INFO(m);
  CHECK(m.find("NVRTC") == std::string::npos);
  CHECK(m.find("decided by: the toolkit given as CUDA 14.0 with its supported-arch list") != std::string::npos);
  o.toolkit_supported_sm.reset();
  o.archs = "15.0";  // unknown to the table: the fix names the compiler's own list, not NVRTC alone
  const auto unknown = cuarch::resolve_here(o);
  REQUIRE_FALSE(unknown.result);
  CHECK(unknown.message().find("NVRTC's") == std::string::npos);
}

TEST_CASE("a fix never suggests a target the device cannot load: cc 10.1 with CUDA 13.0", "[front_door][edges]") {
  cuarch::resolve_options o;
  o.archs = "native";
  o.toolkit = cuarch::cuda_version{13, 0};
  o.devices = std::vector<cuarch::compute_capability>{{10, 1}};
  const auto done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  const std::string m = done.message();
  INFO(m);
  CHECK(m.find("fix: use sm_110a") == std::string::npos);  // sm_110a does not load where the driver reports 10.1
  CHECK(m.find("reports compute capability 11.0") != std::string::npos);
  CHECK(m.find("build sm_101a with an older CUDA") != std::string::npos);
}
