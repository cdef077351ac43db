// Output spellings of a target set: nvcc, NVRTC, CMake, PyTorch, JSON, and the JIT cache key.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/core/literals.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <string>
#include <vector>

#include "test_support.hpp"

using namespace cuarch;

namespace {

target_set set_of(std::string_view list, arch_dialect dialect = arch_dialect::generic) {
  const auto parsed = parse_arch_list(list, dialect);
  REQUIRE(parsed);
  std::vector<arch_target> targets;
  for (const auto& p : *parsed) targets.push_back(p.target);
  const auto s = target_set::from(targets);
  REQUIRE(s);
  return *s;
}

target_set resolved(std::string_view list, cuda_version toolkit) {
  arch_request r;
  r.list = list;
  r.overrides = env_override::none;
  const auto res = resolve_target_archs(r, fixed_compiler(toolkit));
  REQUIRE(res);
  return res->targets;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("nvcc: one -gencode per target", "[outputs][nvcc]") {
  // PyTorch's TORCH_CUDA_ARCH_LIST="8.0 8.6+PTX" (torch/utils/cpp_extension.py, _get_cuda_arch_flags), in cuarch's
  // canonical order.
  CHECK(nvcc_gencode_flags(set_of("8.0 8.6+PTX", arch_dialect::torch)) ==
        std::vector<std::string>{"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_86,code=sm_86",
                                 "-gencode=arch=compute_86,code=compute_86"});
  CHECK(nvcc_flags(set_of("sm_90a;compute_90;sm_100f;lto_90")) ==
        "-gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90,code=lto_90 -gencode=arch=compute_90a,code=sm_90a "
        "-gencode=arch=compute_100f,code=sm_100f -rdc=true");  // LTO IR: nvcc refuses code=lto_ without -rdc=true
  // Round trip through cuarch's own nvcc dialect.
  const target_set s = set_of("9.0a;12.0+PTX;10.0f");
  CHECK(set_of(nvcc_flags(s), arch_dialect::nvcc) == s);
  const target_set lto = set_of("lto_90;sm_90;lto_120f");
  CHECK(nvcc_gencode_flags(lto).back() == "-rdc=true");
  CHECK(set_of(nvcc_flags(lto), arch_dialect::nvcc) == lto);
  CHECK(nvcc_gencode_flags(s).back() != "-rdc=true");  // only a set with LTO IR needs it
}

TEST_CASE("NVRTC: one compile per target", "[outputs][nvrtc]") {
  const auto compiles = nvrtc_compiles(set_of("sm_90a;compute_90;lto_100"));
  REQUIRE(compiles.size() == 3);
  CHECK(compiles[0].target == CUARCH_ARCH("compute_90"));
  CHECK(compiles[0].options == std::vector<std::string>{"--gpu-architecture=compute_90"});
  CHECK(compiles[1].options == std::vector<std::string>{"--gpu-architecture=sm_90a"});
  CHECK(compiles[2].options == std::vector<std::string>{"--gpu-architecture=compute_100", "-dlto"});
}

TEST_CASE("CMake: SASS + PTX of one arch merge; suffixes kept; LTO refused", "[outputs][cmake]") {
  CHECK(*cmake_architectures(set_of("80")) == "80-real");
  CHECK(*cmake_architectures(set_of("8.0+PTX")) == "80");
  CHECK(*cmake_architectures(set_of("compute_80")) == "80-virtual");
  CHECK(*cmake_architectures(set_of("90a-real;100f;100f-virtual")) == "90a-real;100f");
  CHECK(*cmake_architectures(set_of("compute_90a")) == "90a-virtual");
  // cuarch's all / all-major (what nvcc -arch=all|all-major embeds: nvcc_flags_test), spelled for CMake.
  CHECK(*cmake_architectures(resolved("all", {13, 0})) ==
        "75-real;80-real;86-real;87-real;88-real;89-real;90-real;100-real;103-real;110-real;120;121-real");
  CHECK(*cmake_architectures(resolved("all-major", {12, 9})) == "50-real;60-real;70-real;80-real;90-real;100-real;120");
  // Round trip through the CMake dialect.
  const target_set s = set_of("8.6+PTX;9.0a;compute_100f;sm_120");
  CHECK(set_of(*cmake_architectures(s), arch_dialect::cmake) == s);

  const auto lto = cmake_architectures(set_of("sm_90;lto_90"));
  REQUIRE_FALSE(lto);
  CHECK(lto.error().code == errc::not_expressible);
  CHECK(lto.error().target == CUARCH_ARCH("lto_90"));
  CHECK(contains(lto.error().message(), "lto_90 cannot be written in CMake CUDA_ARCHITECTURES"));
}

TEST_CASE("CMake: the CMake version decides which suffixes it spells", "[outputs][cmake]") {
  // CMAKE_CUDA_ARCHITECTURES takes `a` from 3.25.0 and `f` from 4.0.2 (the validation regex of
  // Kitware/CMake Modules/Internal/CMakeCUDAArchitecturesValidate.cmake; docs/conformance.md).
  const target_set f = set_of("90a-real;120f", arch_dialect::cmake);
  CHECK(*cmake_architectures(f, "4.0.2") == "90a-real;120f");
  CHECK(*cmake_architectures(f, "4.4.5") == "90a-real;120f");
  CHECK(*cmake_architectures(f, "5.0.0-rc1") == "90a-real;120f");
  CHECK(*cmake_architectures(set_of("90a;80-real", arch_dialect::cmake), "3.25.1") == "80-real;90a");
  CHECK(*cmake_architectures(set_of("90;80-virtual", arch_dialect::cmake), "3.24.0") == "80-virtual;90");
  struct refused {
    const char* version;
    const char* message;
  };
  for (const auto& r : {refused{"3.25.1",
                                "sm_120f cannot be written in CMake 3.25.1 CUDA_ARCHITECTURES: its "
                                "CMAKE_CUDA_ARCHITECTURES takes the 'f' suffix from CMake 4.0.2 on"},
                        refused{"4.0.1", "sm_120f cannot be written in CMake 4.0.1 CUDA_ARCHITECTURES"},
                        refused{"3.31.20241010-g1234", "sm_120f cannot be written in CMake 3.31.20241010-g1234"},
                        refused{"3.24.3",
                                "sm_90a cannot be written in CMake 3.24.3 CUDA_ARCHITECTURES: its "
                                "CMAKE_CUDA_ARCHITECTURES takes the 'a' suffix from CMake 3.25.0 on"}}) {
    INFO(r.version);
    const auto out = cmake_architectures(f, r.version);
    REQUIRE_FALSE(out);
    CHECK(out.error().code == errc::not_expressible);
    CHECK(contains(out.error().message(), r.message));
  }
  // The way out names the CMake release and the spellings that CMake has.
  const auto old = cmake_architectures(set_of("100f-real"), "3.25.1");
  REQUIRE_FALSE(old);
  CHECK(contains(old.error().message(), "use CMake >= 4.0.2, or ask for sm_100a or sm_100"));
  // A version that is not CMake's M.m.p is an error, not a guess.
  for (const char* bad : {"3", "x.25.1", "3.25", " "}) {
    INFO(bad);
    const auto out = cmake_architectures(f, bad);
    REQUIRE_FALSE(out);
    CHECK(out.error().code == errc::invalid_version);
  }
}

TEST_CASE("PyTorch: 9.0a, 9.0+PTX; what it cannot express is an error", "[outputs][torch]") {
  CHECK(*torch_cuda_arch_list(set_of("sm_90a;9.0+PTX;8.6")) == "8.6;9.0+PTX;9.0a");
  CHECK(*torch_cuda_arch_list(resolved("all-major", {13, 0})) == "7.5;8.0;9.0;10.0;11.0;12.0+PTX");
  const target_set s = set_of("8.6;9.0a;12.0+PTX");
  CHECK(set_of(*torch_cuda_arch_list(s), arch_dialect::torch) == s);
  // PyTorch 2.15.0 reads "9.0a+PTX" as sm_90a with compute_90a (tests/data/torch_arch_list_2.15.0.tsv).
  const target_set a = set_of("sm_90a;compute_90a;sm_107a");
  CHECK(*torch_cuda_arch_list(a) == "9.0a+PTX;10.7a");
  CHECK(set_of(*torch_cuda_arch_list(a), arch_dialect::torch) == a);

  struct refused {
    const char* list;
    const char* target;
  };
  for (const auto& r :
       {refused{"compute_90", "compute_90"}, refused{"sm_90;compute_90a", "compute_90a"}, refused{"sm_100f", "sm_100f"},
        refused{"sm_88", "sm_88"}, refused{"sm_101", "sm_101"}, refused{"lto_90", "lto_90"}}) {
    INFO(r.list);
    const auto out = torch_cuda_arch_list(set_of(r.list));
    REQUIRE_FALSE(out);
    CHECK(out.error().code == errc::not_expressible);
    CHECK(to_text(out.error().target).view() == r.target);
    CHECK(contains(out.error().message(), "cannot be written in TORCH_CUDA_ARCH_LIST"));
  }
}

TEST_CASE("the JIT cache key: documented format, stable, order-independent", "[outputs][cache]") {
  compiler_info c;
  c.kind = source_kind::nvrtc;
  c.version = {13, 0, 88};
  c.location = "/usr/local/cuda-13.0/lib64/libnvrtc.so.13.0.88";
  const std::string key = jit_cache_key(c, set_of("compute_90;sm_90a"));
  CHECK(key ==
        "cuarch-jit-key/2 compiler=NVRTC version=13.0.88 build=none path=46:/usr/local/cuda-13.0/lib64/libnvrtc.so.13.0.88 "
        "targets=compute_90,sm_90a");
  CHECK(jit_cache_key(c, set_of("sm_90a compute_90 sm_90a")) == key);

  compiler_info other = c;
  other.version = {13, 0, 48};
  CHECK(jit_cache_key(other, set_of("compute_90;sm_90a")) != key);
  other = c;
  other.location = "/opt/cuda/lib64/libnvrtc.so.13";
  CHECK(jit_cache_key(other, set_of("compute_90;sm_90a")) != key);
  other = c;  // another build of the same release at the same path (tests/build_id_test.cpp: real wheels)
  other.build_id = "ee7f0ed564a5c3b4289920424eeda2b1a168fee6";
  CHECK(jit_cache_key(other, set_of("compute_90;sm_90a")) != key);
  CHECK(jit_cache_key(other, set_of("compute_90;sm_90a")).find(" build=ee7f0ed564a5c3b4289920424eeda2b1a168fee6 path=") !=
        std::string::npos);
  CHECK(jit_cache_key(c, set_of("sm_90a")) != key);

  // FNV-1a 64 test vectors, so the digest is the same on every machine and run.
  CHECK(jit_cache_digest("") == "cbf29ce484222325");
  CHECK(jit_cache_digest("a") == "af63dc4c8601ec8c");
  CHECK(jit_cache_digest(key).size() == 16);
  CHECK(jit_cache_digest(key) == jit_cache_digest(jit_cache_key(c, set_of("sm_90a;compute_90"))));
}

TEST_CASE("JSON: the resolution with every spelling and the diagnostics", "[outputs][json]") {
  compiler_info c;
  c.kind = source_kind::nvrtc;
  c.version = {13, 0};
  c.location = "/opt/cuda/lib64/libnvrtc.so.13";
  c.supported_sm_numbers = std::vector<int>{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  arch_request r;
  r.list = "9.0a;compute_90";
  r.overrides = env_override::none;
  const auto res = resolve_target_archs(r, c);
  REQUIRE(res);
  const std::string json = to_json(*res, &c);
  CHECK(json.rfind(R"({"schema":"cuarch.resolve/1","cuarch_version":")", 0) == 0);
  CHECK(contains(json, R"("ok":true)"));
  CHECK(contains(json, R"("request":{"keyword":null,"origin":"input","variable":null})"));
  CHECK(contains(json, R"("supported_sm_numbers":[75,80,86,87,88,89,90,100,103,110,120,121])"));
  CHECK(contains(json, R"("targets":[{"name":"compute_90","cc":"9.0","variant":"baseline","form":"ptx"},)"
                       R"({"name":"sm_90a","cc":"9.0","variant":"arch_specific","form":"sass"}])"));
  CHECK(contains(json, R"("cmake":"90-virtual;90a-real","cmake_error":null)"));
  CHECK(contains(
      json,
      R"("torch":null,"torch_error":{"code":"not_expressible","kind":"not_expressible","title":"not expressible in the format")"));
  CHECK(contains(
      json,
      R"("cache_key":"cuarch-jit-key/2 compiler=NVRTC version=13.0 build=none path=30:/opt/cuda/lib64/libnvrtc.so.13 targets=compute_90,sm_90a")"));
  CHECK(contains(
      json,
      R"({"input":"compute_90","position":5,"device":null,"requested":"compute_90","outcome":"kept","result":"compute_90","decided_by":"NVRTC")"));
  CHECK(json.front() == '{');
  CHECK(json.back() == '}');

  r.list = "sm_70;sm_120a";
  const auto f = resolve_target_archs(r, c);
  REQUIRE_FALSE(f);
  const std::string fj = to_json(f.error());
  CHECK(fj.rfind(R"({"schema":"cuarch.resolve/1","cuarch_version":")", 0) == 0);
  CHECK(contains(fj, R"(","ok":false,"error":{"code":"nothing_resolved")"));
  CHECK(contains(fj, R"("outcome":"rejected","result":null,"decided_by":"none","reason":{"code":"removed_in_toolkit")"));
}
