// Toolkit files and pip wheel layouts as version sources: version.json, version.txt, cuda.h,
// *.dist-info and conda-meta names, toolkit roots, site-packages scans — on the real local toolkit,
// real wheels, and small files written here for the malformed cases.
#include <cuarch/detect.hpp>  // detail::exec_wrapper_target
#include <cuarch/sources/toolkit_files.hpp>
#include <cuarch/sources/wheel_layout.hpp>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"
#include "timing_bound.hpp"

using cuarch::cuda_version;
using cuarch::errc;
using cuarch::source_kind;

namespace {
// version.json as CUDA 12.4.1 ships it (abridged).
constexpr const char* version_json_12_4 = R"json({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.4.1"
   },
   "cuda_cccl" : { "name" : "CUDA C++ Core Compute Libraries", "version" : "12.4.127" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "12.4.127" },
   "cuda_nvcc" : { "name" : "CUDA NVCC", "version" : "12.4.131" },
   "cuda_nvrtc" : { "name" : "CUDA NVRTC", "version" : "12.4.127" },
   "nvidia_driver" : { "name" : "NVIDIA Linux Driver", "version" : "550.54.15" }
}
)json";
}  // namespace

TEST_CASE("version.json: the toolkit release, with the component releases in raw", "[files]") {
  const std::string dir = cuarch_test::make_temp_dir("vjson");
  cuarch_test::write_file(dir + "/version.json", version_json_12_4);
  const auto o = cuarch::read_version_json(dir + "/version.json", cuarch::discovery::environment);
  REQUIRE(o);
  CHECK(o->seen.version == cuda_version{12, 4, 1});
  CHECK(o->seen.source == source_kind::toolkit_files);
  CHECK(o->seen.how == cuarch::discovery::environment);
  CHECK(o->describes == source_kind::none);
  CHECK(o->seen.raw == "version.json cuda.version 12.4.1; cuda_nvcc 12.4.131; cuda_nvrtc 12.4.127; cuda_cudart 12.4.127");
}

TEST_CASE("malformed toolkit files are typed errors naming the file", "[files][fault]") {
  const std::string dir = cuarch_test::make_temp_dir("badfiles");
  const auto bad_json = [&](const std::string& text) {
    cuarch_test::write_file(dir + "/version.json", text);
    const auto o = cuarch::read_version_json(dir + "/version.json");
    REQUIRE_FALSE(o);
    CHECK(o.error().code == errc::malformed_output);
    CHECK(o.error().location.view() == dir + "/version.json");
  };
  bad_json("");
  bad_json("{\"cuda\": {\"version\": \"12.4.1\"}");         // truncated
  bad_json("{\"cuda\": {\"name\": \"CUDA SDK\"}}");         // no version
  bad_json("{\"cuda\": {\"version\": \"twelve\"}}");        // not a version
  bad_json(std::string(100, '[') + std::string(100, ']'));  // too deep
  bad_json("{\"cuda\": {\"version\": \"12.4.1\"}} trailing");
  const auto missing = cuarch::read_version_json(dir + "/nonexistent.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == errc::file_unreadable);

  cuarch_test::write_file(dir + "/version.txt", "CUDA Version eleven\n");
  CHECK(cuarch::read_version_txt(dir + "/version.txt").error().code == errc::malformed_output);
  cuarch_test::write_file(dir + "/cuda.h", "#define CUDA_VERSION_MAJOR 12\n#define CUDA_VERSION garbage\n");
  const auto h = cuarch::read_cuda_h(dir + "/cuda.h");
  REQUIRE_FALSE(h);
  CHECK(h.error().code == errc::malformed_output);
  CHECK(h.error().location.view() == dir + "/cuda.h");
}

TEST_CASE("version.txt (CUDA 11.0 and older) and cuda.h's CUDA_VERSION", "[files]") {
  const std::string dir = cuarch_test::make_temp_dir("txt");
  cuarch_test::write_file(dir + "/version.txt", "CUDA Version 11.0.228\n");
  const auto t = cuarch::read_version_txt(dir + "/version.txt");
  REQUIRE(t);
  CHECK(t->seen.version == cuda_version{11, 0, 228});
  cuarch_test::write_file(dir + "/cuda.h", "/* ... */\n#define CUDA_VERSION_MAJOR 12\n#define CUDA_VERSION 12080\r\n");
  const auto h = cuarch::read_cuda_h(dir + "/cuda.h");
  REQUIRE(h);
  CHECK(h->seen.version == cuda_version{12, 8, -1});
  CHECK(h->seen.raw == "cuda.h: #define CUDA_VERSION 12080");
}

TEST_CASE("dist-info and conda-meta names", "[files][wheels]") {
  struct row {
    const char* name;
    source_kind component;
    cuda_version version;
  };
  const row good[] = {
      {"nvidia_cuda_nvrtc_cu12-12.4.127.dist-info", source_kind::nvrtc, {12, 4, 127}},
      {"nvidia_cuda_nvrtc-13.0.88.dist-info", source_kind::nvrtc, {13, 0, 88}},
      {"nvidia_cuda_nvcc_cu12-12.8.93.dist-info", source_kind::nvcc, {12, 8, 93}},
      {"nvidia_cuda_runtime_cu11-11.8.89.dist-info", source_kind::cuda_runtime, {11, 8, 89}},
  };
  for (const auto& r : good) {
    const auto o = cuarch::parse_dist_info_name(std::string("/sp/") + r.name, cuarch::discovery::python_site_packages);
    REQUIRE(o);
    CHECK(o->describes == r.component);
    CHECK(o->seen.version == r.version);
    CHECK(o->seen.source == source_kind::python_wheel);
  }
  for (const char* other :
       {"nvidia_cublas-13.1.0.3.dist-info", "numpy-1.26.4.dist-info", "nvidia_cuda_nvrtc_cu12.dist-info",
        "nvidia_cuda_nvrtc_cu12-12.4.127", "nvidia_cuda_nvcc_impl-12.4.131.dist-info"})
    CHECK_FALSE(cuarch::parse_dist_info_name(std::string("/sp/") + other, cuarch::discovery::python_site_packages));
  const auto nvrtc = cuarch::parse_conda_meta_name("/env/conda-meta/cuda-nvrtc-12.4.127-hd3aeb46_1.json",
                                                   cuarch::discovery::environment);
  REQUIRE(nvrtc);
  CHECK(nvrtc->describes == source_kind::nvrtc);
  CHECK(nvrtc->seen.version == cuda_version{12, 4, 127});
  const auto pin = cuarch::parse_conda_meta_name("/env/conda-meta/cuda-version-12.4-h3060b56_3.json",
                                                 cuarch::discovery::environment);
  REQUIRE(pin);
  CHECK(pin->describes == source_kind::none);
  CHECK(pin->seen.version == cuda_version{12, 4, -1});
  CHECK_FALSE(cuarch::parse_conda_meta_name("/env/conda-meta/cuda-nvcc_linux-64-12.4.131-h.json",
                                            cuarch::discovery::environment));
}

TEST_CASE("toolkit roots: the real local toolkit, one that is not there, and what a file belongs to", "[files][real]") {
  SECTION("the local toolkit") {
    const std::string root = cuarch_test::local_cuda();
    if (root.empty()) SKIP("no local CUDA toolkit");
    const auto seen = cuarch::observe_toolkit_root(root, cuarch::discovery::default_location);
    REQUIRE_FALSE(seen.empty());
    bool header = false;
    for (const auto& o : seen) {
      REQUIRE(o);
      header = header || cuarch::detail::ends_with(o->seen.location, "cuda.h");
    }
    CHECK(header);
    CHECK(cuarch::toolkit_root_of(std::filesystem::canonical(root + "/bin/nvcc").string()) ==
          std::filesystem::canonical(root).string());
  }
  SECTION("nowhere, and a directory that is no toolkit") {
    const auto none = cuarch::observe_toolkit_root("/nonexistent/cuda-12.8");
    REQUIRE(none.size() == 1);
    REQUIRE_FALSE(none.front());
    CHECK(none.front().error().code == errc::file_unreadable);
    CHECK(none.front().error().location.view() == "/nonexistent/cuda-12.8");
    const std::string empty = cuarch_test::make_temp_dir("notoolkit");
    const auto not_toolkit = cuarch::observe_toolkit_root(empty);
    REQUIRE(not_toolkit.size() == 1);
    REQUIRE_FALSE(not_toolkit.front());
    CHECK(not_toolkit.front().error().raw.view().find("not a CUDA toolkit root") != std::string_view::npos);
  }
  SECTION("a root stat() cannot reach says why in errno's words, as the walk does (ENOTDIR, ELOOP)") {
    const std::string dir = cuarch_test::make_temp_dir("rooterrno");
    cuarch_test::write_file(dir + "/file", "");
    const std::string loop = dir + "/loop";
    REQUIRE(::symlink(loop.c_str(), loop.c_str()) == 0);  // a link to itself
    for (const auto& [root, words] : {std::pair<std::string, std::string>{dir + "/file/cuda", "Not a directory"},
                                      std::pair<std::string, std::string>{loop, "Too many levels of symbolic links"}}) {
      INFO(root);
      const auto seen = cuarch::observe_toolkit_root(root);
      REQUIRE(seen.size() == 1);
      REQUIRE_FALSE(seen.front());
      CHECK(seen.front().error().raw.view() == cuarch::detail::why_no_directory(root));
      CHECK(seen.front().error().raw.view().find(words) != std::string_view::npos);
    }
  }
  SECTION("toolkit_root_of: bin, lib64, targets/*/lib; not a wheel's lib") {
    const std::string r = cuarch_test::make_temp_dir("roots");
    cuarch_test::write_file(r + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
    cuarch_test::write_file(r + "/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 12040\n");
    CHECK(cuarch::toolkit_root_of(r + "/bin/nvcc") == r);
    CHECK(cuarch::toolkit_root_of(r + "/lib64/libnvrtc.so.12") == r);
    CHECK(cuarch::toolkit_root_of(r + "/targets/x86_64-linux/lib/libnvrtc.so.12") == r);
    CHECK(cuarch::toolkit_root_of("/sp/nvidia/cuda_nvrtc/lib/libnvrtc.so.12").empty());
    CHECK(cuarch::toolkit_root_of(r + "/share/nvcc").empty());
  }
}

TEST_CASE("a conda prefix: conda-meta records and targets/*/include/cuda.h", "[files]") {
  const std::string env = cuarch_test::make_temp_dir("conda");
  cuarch_test::write_file(env + "/conda-meta/cuda-nvrtc-12.4.127-hd3aeb46_1.json", "{}");
  cuarch_test::write_file(env + "/conda-meta/cuda-nvcc-12.4.131-h02f8991_0.json", "{}");
  cuarch_test::write_file(env + "/conda-meta/python-3.11.7-h.json", "{}");
  cuarch_test::write_file(env + "/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 12040\n");
  const auto seen = cuarch::observe_toolkit_root(env, cuarch::discovery::environment);
  REQUIRE(seen.size() == 3);
  for (const auto& o : seen) {
    REQUIRE(o);
    CHECK(o->seen.version.release() == cuda_version{12, 4, -1});
  }
}

TEST_CASE("wheel layouts: site-packages of a prefix, the files each wheel puts there, Triton's ptxas", "[wheels]") {
  const std::string prefix = cuarch_test::make_temp_dir("venv");
  const std::string sp = prefix + "/lib/python3.11/site-packages";
  cuarch_test::write_file(sp + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", "x");
  cuarch_test::write_file(sp + "/nvidia/cu13/lib/libnvrtc.so.13", "x");
  cuarch_test::write_file(sp + "/nvidia/cu13/lib/libnvrtc.alt.so.13", "x");
  cuarch_test::write_file(sp + "/nvidia/cu13/lib/libnvrtc-builtins.so.13.0", "x");
  cuarch_test::write_file(sp + "/nvidia/cuda_runtime/lib/libcudart.so.12", "x");
  cuarch_test::write_file(sp + "/nvidia/cu13/bin/nvcc", "x", true);
  cuarch_test::write_file(sp + "/triton/backends/nvidia/bin/ptxas", "x", true);
  cuarch_test::write_file(sp + "/nvidia_cuda_nvrtc_cu12-12.4.127.dist-info/METADATA", "x");
  std::filesystem::create_directory_symlink("lib", prefix + "/lib64");  // one directory, two names
  const auto dirs = cuarch::site_packages_of(prefix);
  REQUIRE(dirs.size() == 1);
  CHECK(dirs.front() == sp);
  const auto scan = cuarch::scan_site_packages(sp);
  std::vector<std::string> found;
  for (const auto& f : scan.files)
    found.push_back(std::string(cuarch::to_string(f.component)) + " " + f.path.substr(sp.size() + 1));
  CHECK(found == std::vector<std::string>{"NVRTC nvidia/cu13/lib/libnvrtc.so.13",
                                          "NVRTC nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
                                          "CUDA runtime nvidia/cuda_runtime/lib/libcudart.so.12",
                                          "nvcc nvidia/cu13/bin/nvcc", "ptxas triton/backends/nvidia/bin/ptxas"});
  REQUIRE(scan.dist_infos.size() == 1);
  CHECK(scan.dist_infos.front().seen.version == cuda_version{12, 4, 127});
  CHECK(cuarch::site_packages_of(sp) == std::vector<std::string>{sp});  // a site-packages directory itself
  CHECK(cuarch::site_packages_of("/nonexistent").empty());
}

TEST_CASE("real wheels: the NVRTC 12.4 wheel as pip unpacks it", "[wheels][real]") {
  const auto lib = cuarch_test::fetch("nvrtc", "12.4.127");
  if (!lib) SKIP(lib.why_not);
  const std::string sp =
      std::filesystem::path(lib.path).parent_path().parent_path().parent_path().string();  // .../nvidia/cuda_nvrtc/lib
  const auto scan = cuarch::scan_site_packages(sp);
  REQUIRE_FALSE(scan.files.empty());
  CHECK(scan.files.front().path == sp + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
  REQUIRE(scan.dist_infos.size() == 1);
  CHECK(scan.dist_infos.front().describes == source_kind::nvrtc);
  CHECK(scan.dist_infos.front().seen.version == cuda_version{12, 4, 127});
}

TEST_CASE("wrapper scripts that exec a compiler are that compiler", "[files]") {
  const std::string dir = cuarch_test::make_temp_dir("wrapper");
  cuarch_test::write_file(dir + "/real-nvcc", "#!/bin/sh\necho real\n", true);
  cuarch_test::write_file(
      dir + "/nvcc", "#!/bin/sh\n# Debian-style shim\nexport PATH=\"/x:$PATH\"\nexec " + dir + "/real-nvcc \"$@\"\n",
      true);
  cuarch_test::write_file(dir + "/other", "#!/bin/sh\nexec " + dir + "/real-nvcc --version\n", true);
  CHECK(cuarch::detail::exec_wrapper_target(dir + "/nvcc") == dir + "/real-nvcc");
  CHECK(cuarch::detail::exec_wrapper_target(dir + "/other").empty());  // fixed arguments: not a plain forwarder
  CHECK(cuarch::detail::exec_wrapper_target(dir + "/real-nvcc").empty());
}

namespace {

void check_unreadable(const cuarch::expected<cuarch::file_observation, cuarch::error>& o, const std::string& path,
                      std::string_view words) {
  REQUIRE_FALSE(o);
  CHECK(o.error().code == errc::file_unreadable);
  CHECK(o.error().location.view() == path);
  CHECK(o.error().message().find(path) != std::string::npos);
  INFO(o.error().raw.view());
  CHECK(o.error().raw.view().find(words) != std::string_view::npos);
}
}  // namespace

TEST_CASE("toolkit files that are FIFOs, directories, devices or huge: typed errors within milliseconds",
          "[files][fault]") {
  const std::string dir = cuarch_test::make_temp_dir("hostile");
  SECTION("FIFOs named version.json, version.txt, cuda.h") {
    for (const char* name : {"version.json", "version.txt", "cuda.h"}) {
      const std::string fifo = dir + "/" + name;
      REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
      check_unreadable(cuarch_test::bounded(
                           [&] {
                             const std::string_view n(name);
                             return n == "version.json"  ? cuarch::read_version_json(fifo)
                                    : n == "version.txt" ? cuarch::read_version_txt(fifo)
                                                         : cuarch::read_cuda_h(fifo);
                           },
                           {fifo}),
                       fifo, "not a regular file");
    }
    // A toolkit root holding them: each an error in the list, none a hang.
    const auto seen = cuarch_test::bounded([&] { return cuarch::observe_toolkit_root(dir); },
                                           {dir + "/version.json", dir + "/version.txt", dir + "/cuda.h"});
    REQUIRE(seen.size() == 2);  // version.json, version.txt (include/cuda.h is not where cuda.h is looked for)
    for (const auto& o : seen) CHECK_FALSE(o);
  }
  SECTION("a directory named version.json") {
    const std::string d = dir + "/version.json";
    std::filesystem::create_directory(d);
    check_unreadable(cuarch_test::bounded([&] { return cuarch::read_version_json(d); }), d, "not a regular file");
  }
  SECTION("/dev/zero as cuda.h and as version.json") {
    check_unreadable(cuarch_test::bounded([&] { return cuarch::read_cuda_h("/dev/zero"); }), "/dev/zero",
                     "not a regular file");
    check_unreadable(cuarch_test::bounded([&] { return cuarch::read_version_json("/dev/zero"); }), "/dev/zero",
                     "not a regular file");
  }
  SECTION("a huge version.json is refused by its size, without reading it") {
    const std::string huge = dir + "/version.json";
    { std::ofstream(huge, std::ios::binary) << "{"; }
    std::filesystem::resize_file(huge, std::uintmax_t(8) << 30);  // 8 GiB, sparse
    check_unreadable(cuarch_test::bounded([&] { return cuarch::read_version_json(huge); }), huge, "larger than");
  }
}

TEST_CASE("cuda.h is read only as far as its CUDA_VERSION line", "[files]") {
  const std::string dir = cuarch_test::make_temp_dir("cudah");
  // The define near the top, then more than the cap of filler: found, without reading the rest.
  cuarch_test::write_file(dir + "/cuda.h",
                          "#ifndef __cuda_cuda_h__\n#define CUDA_VERSION 13000\n" + std::string(8 << 20, ' ') + "\n");
  const auto h = cuarch_test::bounded([&] { return cuarch::read_cuda_h(dir + "/cuda.h"); });
  REQUIRE(h);
  CHECK(h->seen.version == cuda_version{13, 0, -1});
  // A define beyond the cap is not looked for: malformed, and the error says how far it read.
  cuarch_test::write_file(dir + "/late.h", std::string(1 << 20, ' ') + "\n#define CUDA_VERSION 13000\n");
  const auto late = cuarch::read_cuda_h(dir + "/late.h");
  REQUIRE_FALSE(late);
  CHECK(late.error().code == errc::malformed_output);
  CHECK(late.error().raw.view().find("first") != std::string_view::npos);
  // The real one.
  const std::string real = cuarch_test::local_file("include/cuda.h");
  if (real.empty()) SKIP("no local toolkit");
  const auto r = cuarch::read_cuda_h(real);
  REQUIRE(r);
  CHECK(r->seen.version.major >= 11);
}
