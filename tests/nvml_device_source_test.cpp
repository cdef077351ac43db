// nvml_device_source end to end, in process, against the stub NVML (tests/fixtures/stub_libnvidia_ml.c):
// PCI bus order, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, MIG devices, GPUs NVML may not open, typed
// errors (NVML missing, nvmlInit failing, a symbol missing, a query failing), nvmlInit/nvmlShutdown
// balanced, the driver's CUDA version. The real NVML is compared with cuInit on the GPU machine
// (scripts/gpu/devices-on-gpu.sh).
#include <cuarch/sources/nvml_device_source.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch::compute_capability;
using cuarch::device_visibility_env;
using cuarch::errc;
using cuarch_test::scoped_env;

namespace {

std::string stub_nvml(const char* rel = "nvml/libnvidia-ml.so.1") {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/" + rel;
}

const std::vector<std::string>& nvml_stub_variables() {
  static const std::vector<std::string> names{
      "CUARCH_STUB_NVML_DEVICES",   "CUARCH_STUB_NVML_INIT_STATUS",  "CUARCH_STUB_NVML_COUNT_STATUS",
      "CUARCH_STUB_NVML_CC_STATUS", "CUARCH_STUB_NVML_CUDA_VERSION", "CUARCH_STUB_NVML_VERSION_STATUS",
      "CUARCH_STUB_NVML_LOG",       "CUDA_VISIBLE_DEVICES",          "CUDA_DEVICE_ORDER"};
  return names;
}

device_visibility_env visibility(std::optional<std::string> visible, std::optional<std::string> order = std::nullopt) {
  device_visibility_env e;
  e.visible_devices = std::move(visible);
  e.device_order = std::move(order);
  return e;
}

std::vector<compute_capability> ccs(const std::vector<cuarch::device_info>& devs) {
  std::vector<compute_capability> out;
  for (const auto& d : devs) out.push_back(d.cc);
  return out;
}

bool has_note(const cuarch::device_reading& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("NVML devices: PCI bus order, names, UUIDs, CUDA_DEVICE_ORDER, no CUDA in the process", "[devices][nvml]") {
  const std::string lib = stub_nvml();
  const std::string real = cuarch::detail::real_path(lib);
  scoped_env env;
  for (const auto& v : nvml_stub_variables()) env.unset(v);
  const bool libcuda_before = !cuarch::loaded_library_paths("libcuda").empty();
  // NVML index order differs from PCI bus order: the 12.0 GPU sits on bus 0x81, the 9.0 one on 0x01.
  env.set("CUARCH_STUB_NVML_DEVICES",
          "12.0/GPU-cccc0000-1111/0x81/NVIDIA RTX PRO 6000,9.0/GPU-aaaa0000-2222/0x01/NVIDIA H200");

  SECTION("PCI_BUS_ID: bus order, exact") {
    const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt, "PCI_BUS_ID")).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{9, 0}, {12, 0}});
    CHECK(r->devices[0].name == "NVIDIA H200");
    CHECK(r->devices[1].ordinal == 1);
    CHECK(r->devices[1].source == cuarch::source_kind::driver);
    CHECK(r->uuids == std::vector<std::string>{"GPU-aaaa0000-2222", "GPU-cccc0000-1111"});
    CHECK(r->via == "NVML (" + real + ")");
    CHECK(r->notes.empty());
  }
  SECTION("FASTEST_FIRST (the default) among different GPUs: approximated, and said") {
    const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt)).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{12, 0}, {9, 0}});
    CHECK(has_note(*r, "FASTEST_FIRST"));
    CHECK(has_note(*r, "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
  }
  SECTION("CUDA_VISIBLE_DEVICES: an index, a UUID prefix, a cut list") {
    auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string("1"), "PCI_BUS_ID")).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{12, 0}});
    CHECK(r->devices[0].ordinal == 0);
    r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string("GPU-aaaa"))).read();
    REQUIRE(r);
    CHECK(r->uuids == std::vector<std::string>{"GPU-aaaa0000-2222"});
    CHECK(r->notes.empty());  // a UUID list fixes the order: no guess
    r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string("0,bogus,1"), "PCI_BUS_ID")).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{9, 0}});
    CHECK(has_note(*r, "CUDA_VISIBLE_DEVICES=\"0,bogus,1\": entry 'bogus' is not a device index"));
  }
  SECTION("the process environment is read when none is given") {
    env.set("CUDA_VISIBLE_DEVICES", "GPU-cccc");
    const auto d = cuarch::nvml_device_source(lib).devices();
    REQUIRE(d);
    CHECK(ccs(*d) == std::vector<compute_capability>{{12, 0}});
  }
  SECTION("CUDA_VISIBLE_DEVICES hides every GPU: no_device naming it") {
    for (const char* v : {"", "7", "GPU-ffff", "2,0,0"}) {
      INFO(v);
      const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string(v))).read();
      REQUIRE_FALSE(r);
      CHECK(r.error().code == errc::no_device);
      CHECK(r.error().location.view() == real);
      CHECK(r.error().raw.view().find("NVML: 2 GPU(s); CUDA_VISIBLE_DEVICES=\"" + std::string(v) + "\"") !=
            std::string_view::npos);
      CHECK(r.error().message().find("devices=9.0") != std::string::npos);
    }
  }
  SECTION("CUDA_VISIBLE_DEVICES names a device twice: invalid (the driver's cuInit fails), not 'no device'") {
    for (const char* v : {"0,0", "1,0,1", "GPU-aaaa,GPU-AAAA0000"}) {
      INFO(v);
      const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string(v))).read();
      REQUIRE_FALSE(r);
      CHECK(r.error().code == errc::invalid_environment);
      CHECK(r.error().subject.view() == v);
      CHECK(r.error().location.view() == "CUDA_VISIBLE_DEVICES");
      CHECK(r.error().raw.view().find("CUDA_ERROR_INVALID_DEVICE (101)") != std::string_view::npos);
      CHECK(r.error().message().find("fix: correct or unset it") != std::string::npos);
    }
  }
  // NVML never brings libcuda into the process.
  if (!libcuda_before) CHECK(cuarch::loaded_library_paths("libcuda").empty());
}

TEST_CASE("NVML: MIG devices, GPUs it may not open, no PCI info", "[devices][nvml]") {
  scoped_env env;
  for (const auto& v : nvml_stub_variables()) env.unset(v);
  SECTION("a GPU in MIG mode shows its MIG devices; MIG- entries select them") {
    const std::string lib = stub_nvml();
    env.set("CUARCH_STUB_NVML_DEVICES", "9.0/GPU-eeee/1/NVIDIA H200/MIG-m1+MIG-m2,9.0/GPU-ffff/2/NVIDIA H200");
    auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt)).read();
    REQUIRE(r);
    CHECK(r->uuids == std::vector<std::string>{"MIG-m1", "MIG-m2", "GPU-ffff"});
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{9, 0}, {9, 0}, {9, 0}});
    CHECK(has_note(*r, "MIG"));
    r = cuarch::nvml_device_source(lib).with_environment(visibility(std::string("MIG-m2"))).read();
    REQUIRE(r);
    CHECK(r->uuids == std::vector<std::string>{"MIG-m2"});
    const auto legacy =
        cuarch::nvml_device_source(lib).with_environment(visibility(std::string("MIG-GPU-eeee/1/0"))).read();
    REQUIRE_FALSE(legacy);
    CHECK(legacy.error().code == errc::library_call_failed);
    CHECK(legacy.error().subject.view() == "CUDA_VISIBLE_DEVICES");
    CHECK(legacy.error().raw.view().find("NVML cannot answer") != std::string_view::npos);
  }
  SECTION("a GPU NVML may not open (NVML_ERROR_NO_PERMISSION) is left out, and noted") {
    const std::string lib = stub_nvml();
    env.set("CUARCH_STUB_NVML_DEVICES", "9.0/////4,8.6");
    const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt)).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{8, 6}});
    CHECK(has_note(*r, "NVML GPU 0 left out: NVML_ERROR_NO_PERMISSION"));
  }
  SECTION("without nvmlDeviceGetPciInfo_v3, NVML's index order, said") {
    const std::string lib = stub_nvml("nvml-nopci/libnvidia-ml.so.1");
    env.set("CUARCH_STUB_NVML_DEVICES", "12.0//0x81,9.0//0x01");
    const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt, "PCI_BUS_ID")).read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{12, 0}, {9, 0}});
    CHECK(has_note(*r, "NVML's index order is taken as PCI bus order"));
  }
}

TEST_CASE("NVML faults: missing library, nvmlInit failing, missing symbol, failing query; nvmlShutdown always",
          "[devices][nvml][fault]") {
  scoped_env env;
  for (const auto& v : nvml_stub_variables()) env.unset(v);
  SECTION("no libnvidia-ml at a named path: library_not_found naming it") {
    const auto r = cuarch::nvml_device_source("/nonexistent/libnvidia-ml.so.1").read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_not_found);
    CHECK(r.error().subject.view() == "/nonexistent/libnvidia-ml.so.1");
    CHECK(r.error().source == cuarch::source_kind::driver);
  }
  SECTION("a relative path is refused: never loaded from the current directory") {
    const auto r = cuarch::nvml_device_source("libnvidia-ml.so.1").read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_not_found);
    CHECK(r.error().raw.view().find("relative library path refused") != std::string_view::npos);
  }
  SECTION("the loader's search, on a machine without the driver: library_not_found naming the SONAME") {
    const auto& stubs = cuarch_test::stubs();
    for (const auto& p : cuarch::loaded_library_paths("libnvidia-ml.so"))  // the stubs have SONAMEs of their own
      if (!stubs || p.rfind(stubs.path, 0) != 0) SKIP("an NVML is already mapped into this process: " + p);
    const auto r = cuarch::nvml_device_source().read();
    if (r) SKIP("this machine has an NVML with a GPU");
    if (r.error().code != errc::library_not_found) SKIP("this machine has an NVML: " + r.error().message());
    CHECK(r.error().subject.view() == "libnvidia-ml.so.1");
    CHECK(r.error().location.view() == "loader search");
  }
  SECTION("nvmlInit_v2 fails: library_call_failed naming the library path and the NVML return code") {
    const std::string lib = stub_nvml();
    env.set("CUARCH_STUB_NVML_INIT_STATUS", "9");
    const auto r = cuarch::nvml_device_source(lib).read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_call_failed);
    CHECK(r.error().subject.view() == "nvmlInit_v2");
    CHECK(r.error().native_status == 9);
    CHECK(r.error().location.view() == cuarch::detail::real_path(lib));
    CHECK(r.error().raw.view().find("NVML_ERROR_DRIVER_NOT_LOADED (9)") != std::string_view::npos);
    const std::string m = r.error().message();
    CHECK(m.find(cuarch::detail::real_path(lib)) != std::string::npos);
    CHECK(m.find("not loaded") != std::string::npos);
    env.set("CUARCH_STUB_NVML_INIT_STATUS", "12345");
    const auto odd = cuarch::nvml_device_source(lib).read();
    REQUIRE_FALSE(odd);
    CHECK(odd.error().raw.view().find("nvmlReturn_t (12345)") != std::string_view::npos);
  }
  SECTION("a required symbol is missing: symbol_not_found naming it") {
    const std::string lib = stub_nvml("nvml-nocc/libnvidia-ml.so.1");
    const auto r = cuarch::nvml_device_source(lib).read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::symbol_not_found);
    CHECK(r.error().subject.view() == "nvmlDeviceGetCudaComputeCapability");
    CHECK(r.error().location.view() == cuarch::detail::real_path(lib));
  }
  SECTION("a device query fails: library_call_failed; nvmlShutdown follows every successful nvmlInit") {
    const std::string lib = stub_nvml();
    const std::string dir = cuarch_test::make_temp_dir("nvml-log");
    REQUIRE_FALSE(dir.empty());
    const std::string log = dir + "/calls";
    env.set("CUARCH_STUB_NVML_LOG", log);
    env.set("CUARCH_STUB_NVML_CC_STATUS", "15");  // NVML_ERROR_GPU_IS_LOST
    auto r = cuarch::nvml_device_source(lib).read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_call_failed);
    CHECK(r.error().subject.view() == "nvmlDeviceGetCudaComputeCapability");
    CHECK(r.error().raw.view().find("NVML_ERROR_GPU_IS_LOST (15)") != std::string_view::npos);
    env.unset("CUARCH_STUB_NVML_CC_STATUS");
    env.set("CUARCH_STUB_NVML_COUNT_STATUS", "999");
    r = cuarch::nvml_device_source(lib).read();
    REQUIRE_FALSE(r);
    CHECK(r.error().raw.view().find("nvmlDeviceGetCount_v2: NVML_ERROR_UNKNOWN (999)") != std::string_view::npos);
    env.unset("CUARCH_STUB_NVML_COUNT_STATUS");
    REQUIRE(cuarch::nvml_device_source(lib).read());
    env.set("CUARCH_STUB_NVML_INIT_STATUS", "9");
    REQUIRE_FALSE(cuarch::nvml_device_source(lib).read());  // a failed nvmlInit is not shut down
    CHECK(lines_of(log) == std::vector<std::string>{"init", "shutdown", "init", "shutdown", "init", "shutdown", "init"});
  }
  SECTION("no GPU at all") {
    const std::string lib = stub_nvml();
    env.set("CUARCH_STUB_NVML_DEVICES", "");
    const auto r = cuarch::nvml_device_source(lib).with_environment(visibility(std::nullopt)).read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::no_device);
    CHECK(r.error().raw.view().find("NVML: 0 GPU(s)") != std::string_view::npos);
  }
}

TEST_CASE("NVML as a driver-version source: nvmlSystemGetCudaDriverVersion_v2", "[devices][nvml]") {
  const std::string lib = stub_nvml();
  scoped_env env;
  for (const auto& v : nvml_stub_variables()) env.unset(v);
  auto v = cuarch::nvml_device_source(lib).driver_version();
  REQUIRE(v);
  CHECK(v->version == cuarch::cuda_version{13, 0, -1});
  CHECK(v->raw == "nvmlSystemGetCudaDriverVersion_v2: 13000");
  CHECK(v->location == cuarch::detail::real_path(lib));
  CHECK(v->how == cuarch::discovery::explicit_argument);
  env.set("CUARCH_STUB_NVML_CUDA_VERSION", "12080");
  v = cuarch::nvml_device_source(lib).driver_version();
  REQUIRE(v);
  CHECK(v->version == cuarch::cuda_version{12, 8, -1});
  env.set("CUARCH_STUB_NVML_VERSION_STATUS", "13");
  v = cuarch::nvml_device_source(lib).driver_version();
  REQUIRE_FALSE(v);
  CHECK(v.error().raw.view().find("NVML_ERROR_FUNCTION_NOT_FOUND (13)") != std::string_view::npos);
  env.unset("CUARCH_STUB_NVML_VERSION_STATUS");
  env.set("CUARCH_STUB_NVML_CUDA_VERSION", "0");
  v = cuarch::nvml_device_source(lib).driver_version();
  REQUIRE_FALSE(v);
  CHECK(v.error().code == errc::invalid_version);
}
