// Device sources and the driver as a version source: explicit lists (build machines without GPUs),
// the real driver when there is one (else its typed absence), the toolkit's real stub libcuda, and a
// stub driver for mixed devices, CUDA_VISIBLE_DEVICES and failing calls. No device is a typed error
// telling the user to pass a list — never a default architecture.
#include <cuarch/sources/device_source.hpp>
#include <cuarch/sources/driver_source.hpp>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

#include "fixtures/fixture_support.hpp"

using cuarch::compute_capability;
using cuarch::errc;
using cuarch_test::scoped_env;

namespace {

std::string stub_driver(const char* rel = "lib/libcuda.so.1") {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/" + rel;
}

std::vector<compute_capability> ccs(const std::vector<cuarch::device_info>& devs) {
  std::vector<compute_capability> out;
  for (const auto& d : devs) out.push_back(d.cc);
  return out;
}

}  // namespace

TEST_CASE("parse_compute_capability: dotted, sm numbers; suffixes and junk refused", "[devices]") {
  CHECK(*cuarch::parse_compute_capability("12.0") == compute_capability{12, 0});
  CHECK(*cuarch::parse_compute_capability(" 9.0 ") == compute_capability{9, 0});
  CHECK(*cuarch::parse_compute_capability("120") == compute_capability{12, 0});
  CHECK(*cuarch::parse_compute_capability("sm_90") == compute_capability{9, 0});
  CHECK(*cuarch::parse_compute_capability("86") == compute_capability{8, 6});
  for (const char* bad : {"", "9", "12.0a", "sm_90a", "9.10", "12.", ".5", "sm_9.0", "abc", "100.0", "-9.0", "9.0+PTX"}) {
    const auto r = cuarch::parse_compute_capability(bad);
    INFO(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::malformed_token);
    CHECK(r.error().source == cuarch::source_kind::device_list);
  }
  static_assert(cuarch::parse_compute_capability("10.3")->minor == 3, "usable in constant expressions");
}

TEST_CASE("a bare number below 30 is never read as a compute capability 1.x or 2.x", "[devices][edges]") {
  // "12" means 12.0 to whoever types it, never cc 1.2 (sm_12); "10" never 1.0: refused, with a fix.
  for (const char* ambiguous : {"12", "10", "11", "13", "20", "29"}) {
    INFO(ambiguous);
    const auto r = cuarch::parse_compute_capability(ambiguous);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::malformed_token);
    CHECK(r.error().message().find("cc 1.") == std::string::npos);
  }
  const auto list = cuarch::parse_device_list("9.0,12");
  REQUIRE_FALSE(list);
  CHECK(list.error().position == 4);
  CHECK(*cuarch::parse_compute_capability("30") == compute_capability{3, 0});  // an sm number, as before
  CHECK(*cuarch::parse_compute_capability("12.0") == compute_capability{12, 0});
  CHECK(*cuarch::parse_compute_capability("sm_120") == compute_capability{12, 0});
}

TEST_CASE("a refused device is told how a device is written, never a target's spelling", "[devices][edges]") {
  // The target grammar's fix ("write it like sm_90a, compute_90, ... 90-real") named what a device list
  // refuses, the input itself among them ("'sm_90a' ...; fix: write it like sm_90a").
  for (const char* bad : {"sm_90a", "compute_90", "9.0a", "9.0+PTX", "abc", "12", "9.10"}) {
    const auto r = cuarch::parse_compute_capability(bad);
    REQUIRE_FALSE(r);
    const std::string m = r.error().message();
    INFO(m);
    for (const char* target_spelling : {"sm_90a", "compute_90", "9.0a", "90a", "+PTX", "-real"})
      CHECK(m.find(std::string("fix: ") + "write it like " + target_spelling) == std::string::npos);
    CHECK((m.find("like 9.0, 12.0, 90 or sm_120") != std::string::npos ||
           m.find("like 12.0, or as its sm number, like 120") != std::string::npos));
  }
  for (const char* example : {"9.0", "12.0", "90", "sm_120", "120"}) CHECK(cuarch::parse_compute_capability(example));
}

TEST_CASE("parse_device_list: separators, positions of bad entries, empty lists", "[devices]") {
  const auto l = cuarch::parse_device_list("12.0,9.0;sm_121 8.6");
  REQUIRE(l);
  CHECK(*l == std::vector<compute_capability>{{12, 0}, {9, 0}, {12, 1}, {8, 6}});
  const auto bad = cuarch::parse_device_list("12.0,9.0x");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().position == 5);
  CHECK(bad.error().subject.view() == "9.0x");
  const auto hole = cuarch::parse_device_list("12.0,,9.0");
  REQUIRE_FALSE(hole);
  CHECK(hole.error().code == errc::empty_input);
  const auto empty = cuarch::parse_device_list("  ");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().code == errc::no_device);
}

TEST_CASE("explicit devices: the list as given, mixed devices kept; an empty list is no_device", "[devices]") {
  const auto d = cuarch::fixed_devices({{12, 0}, {9, 0}}).devices();
  REQUIRE(d);
  REQUIRE(d->size() == 2);
  CHECK((*d)[0].cc == compute_capability{12, 0});
  CHECK((*d)[1].ordinal == 1);
  CHECK((*d)[1].source == cuarch::source_kind::device_list);
  const auto none = cuarch::fixed_devices(std::vector<cuarch::compute_capability>{}).devices();
  REQUIRE_FALSE(none);
  CHECK(none.error().code == errc::no_device);
  CHECK(none.error().message().find("pass the devices explicitly") != std::string::npos);
}

TEST_CASE("the real driver: devices when there is a GPU, else library_not_found naming libcuda.so.1", "[devices][real]") {
  if (!cuarch::loaded_library_paths("libcuda.so.").empty()) SKIP("a libcuda is already mapped into this process");
  const auto v = cuarch::driver_library_source::from_loader().driver_version();
  const auto d = cuarch::driver_device_source().devices();
  if (v) {
    CHECK(v->version.major >= 11);
    CHECK(v->raw.find("cuDriverGetVersion: ") == 0);
    if (d) {
      CHECK_FALSE(d->empty());
      for (const auto& dev : *d) CHECK_FALSE(dev.name.empty());
    } else {
      CHECK(d.error().code == errc::no_device);
    }
    return;
  }
  CHECK(v.error().code == errc::library_not_found);
  CHECK(v.error().source == cuarch::source_kind::driver);
  CHECK(v.error().subject.view() == "libcuda.so.1");
  CHECK(v.error().raw.view().find("libcuda.so.1") != std::string_view::npos);
  REQUIRE_FALSE(d);
  CHECK(d.error().code == errc::library_not_found);
}

TEST_CASE("the toolkit's real stub libcuda answers CUDA_ERROR_STUB_LIBRARY, which is said plainly",
          "[devices][real][fault]") {
  const std::string stub = cuarch_test::local_file("lib64/stubs/libcuda.so");
  if (stub.empty()) SKIP("no lib64/stubs/libcuda.so in the local toolkit");
  const auto v = cuarch::driver_library_source(stub).driver_version();
  REQUIRE_FALSE(v);
  CHECK(v.error().code == errc::library_call_failed);
  CHECK(v.error().native_status == 34);
  CHECK(v.error().raw.view().find("CUDA_ERROR_STUB_LIBRARY") != std::string_view::npos);
  const auto d = cuarch::driver_device_source(cuarch::driver_library_source(stub)).devices();
  REQUIRE_FALSE(d);
  CHECK(d.error().subject.view() == "cuInit");
  CHECK(d.error().message().find("stub") != std::string::npos);
}

TEST_CASE("a stub driver: versions, mixed devices, CUDA_VISIBLE_DEVICES, failing calls", "[devices][fault]") {
  const std::string lib = stub_driver();
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  const cuarch::driver_device_source source{cuarch::driver_library_source(lib)};
  SECTION("cuDriverGetVersion, decoded; no cuInit needed") {
    env.set("CUARCH_STUB_DRIVER_VERSION", "12080");
    const auto v = cuarch::driver_library_source(lib).driver_version();
    REQUIRE(v);
    CHECK(v->version == cuarch::cuda_version{12, 8, -1});
    CHECK(v->location == lib);
  }
  SECTION("mixed devices, in ordinal order, with names") {
    env.set("CUARCH_STUB_DEVICES", "9.0,12.0,12.0");
    const auto d = source.devices();
    REQUIRE(d);
    CHECK(ccs(*d) == std::vector<compute_capability>{{9, 0}, {12, 0}, {12, 0}});
    CHECK((*d)[1].name == "Stub GPU (cc 12.0)");
    CHECK((*d)[2].ordinal == 2);
    CHECK((*d)[0].source == cuarch::source_kind::driver);
  }
  SECTION("CUDA_VISIBLE_DEVICES is applied by the driver, and named when it hides every GPU") {
    env.set("CUARCH_STUB_DEVICES", "9.0,12.0");
    env.set("CUDA_VISIBLE_DEVICES", "1");
    auto d = source.devices();
    REQUIRE(d);
    CHECK(ccs(*d) == std::vector<compute_capability>{{12, 0}});
    env.set("CUDA_VISIBLE_DEVICES", "0,7,1");  // stops at the first invalid entry, as the driver does
    d = source.devices();
    REQUIRE(d);
    CHECK(ccs(*d) == std::vector<compute_capability>{{9, 0}});
    env.set("CUDA_VISIBLE_DEVICES", "");
    d = source.devices();
    REQUIRE_FALSE(d);
    CHECK(d.error().code == errc::no_device);
    CHECK(d.error().raw.view().find("CUDA_VISIBLE_DEVICES=\"\"") != std::string_view::npos);
    CHECK(d.error().message().find("devices=9.0") != std::string::npos);  // the C++ spelling: resolve_options::devices
  }
  SECTION("no GPU at all") {
    env.set("CUARCH_STUB_DEVICES", "");
    const auto d = source.devices();
    REQUIRE_FALSE(d);
    CHECK(d.error().code == errc::no_device);
    CHECK(d.error().location.view() == lib);
  }
  SECTION("cuInit fails") {
    env.set("CUARCH_STUB_INIT_STATUS", "999");
    const auto d = source.devices();
    REQUIRE_FALSE(d);
    CHECK(d.error().code == errc::library_call_failed);
    CHECK(d.error().native_status == 999);
    CHECK(d.error().raw.view().find("CUDA_ERROR_UNKNOWN") != std::string_view::npos);
  }
  SECTION("cuDriverGetVersion fails, or reports nonsense") {
    env.set("CUARCH_STUB_VERSION_STATUS", "803");
    auto v = cuarch::driver_library_source(lib).driver_version();
    REQUIRE_FALSE(v);
    CHECK(v.error().raw.view().find("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH") != std::string_view::npos);
    env.unset("CUARCH_STUB_VERSION_STATUS");
    env.set("CUARCH_STUB_DRIVER_VERSION", "0");
    v = cuarch::driver_library_source(lib).driver_version();
    REQUIRE_FALSE(v);
    CHECK(v.error().code == errc::invalid_version);
    CHECK(v.error().location.view() == lib);
  }
  SECTION("a driver library missing a symbol") {
    const std::string noname = stub_driver("lib-noname/libcuda.so.1");
    const auto d = cuarch::driver_device_source(cuarch::driver_library_source(noname)).devices();
    REQUIRE_FALSE(d);
    CHECK(d.error().code == errc::symbol_not_found);
    CHECK(d.error().subject.view() == "cuDeviceGetName");
    CHECK(d.error().location.view() == noname);
  }
}

TEST_CASE("the kernel module's version line, proprietary and open modules", "[devices]") {
  CHECK(cuarch::detail::parse_kernel_module_line(
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun Apr 20 2025") == "580.159.04");
  CHECK(cuarch::detail::parse_kernel_module_line(
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  (dvs-builder@U16)") ==
        "570.124.06");
  CHECK(cuarch::detail::parse_kernel_module_line("NVRM version: NVIDIA UNIX x86_64 Kernel Module  broken").empty());
  CHECK(cuarch::detail::parse_kernel_module_line("GCC version: gcc version 12.2.0").empty());
}

namespace {

/// A private copy of the stub driver: whether *this* file got loaded says whether cuInit was reached.
std::string private_stub_driver() {
  const std::string src = stub_driver();
  const std::string dir = cuarch_test::make_temp_dir("libcuda-copy");
  if (dir.empty()) FAIL("no temp dir");
  const std::string copy = dir + "/libcuda.so.1";
  std::filesystem::copy_file(src, copy);
  return copy;
}

std::string stub_nvml_lib() {
  const auto& s = cuarch_test::stubs();
  if (!s) SKIP(s.why_not);
  return s.path + "/nvml/libnvidia-ml.so.1";
}

/// Whether the file at `path` is mapped into this process.
bool mapped(const std::string& path) {
  const std::string real = cuarch::detail::real_path(path);
  for (const auto& p : cuarch::loaded_library_paths("libcuda"))
    if (p == path || p == real) return true;
  return false;
}

bool note_has(const cuarch::device_reading& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("system devices: NVML first, never cuInit when NVML answers", "[devices][nvml]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  for (const char* v :
       {"CUARCH_STUB_NVML_DEVICES", "CUARCH_STUB_NVML_INIT_STATUS", "CUARCH_STUB_NVML_CC_STATUS", "CUDA_DEVICE_ORDER"})
    env.unset(v);
  const std::string nvml = stub_nvml_lib();
  const std::string driver = private_stub_driver();
  env.set("CUARCH_STUB_NVML_DEVICES", "9.0,12.0");
  env.set("CUARCH_STUB_DEVICES", "8.6");  // what cuInit would say: must not be what comes back
  const cuarch::system_device_source source{cuarch::nvml_device_source(nvml), cuarch::driver_library_source(driver)};
  SECTION("NVML answers: its devices, read without loading libcuda") {
    const auto r = source.read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{12, 0}, {9, 0}});
    CHECK(r->via.rfind("NVML (", 0) == 0);
    CHECK_FALSE(note_has(*r, "cuInit"));
    CHECK_FALSE(cuarch::held_by_cuarch(cuarch::detail::real_path(driver)));
    CHECK_FALSE(mapped(driver));
    const auto d = source.devices();
    REQUIRE(d);
    CHECK(d->size() == 2);
  }
  SECTION("NVML says no device is visible: an answer, not retried through cuInit") {
    env.set("CUDA_VISIBLE_DEVICES", "");
    const auto r = source.read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::no_device);
    CHECK(r.error().location.view() == cuarch::detail::real_path(nvml));
    CHECK_FALSE(mapped(driver));
  }
  SECTION("CUDA_VISIBLE_DEVICES names a device twice: invalid, not retried through cuInit (which would fail too)") {
    env.set("CUDA_VISIBLE_DEVICES", "1,1");
    const auto r = source.read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::invalid_environment);
    CHECK_FALSE(mapped(driver));
  }
}

TEST_CASE("system devices: cuInit only where NVML is missing or cannot answer, and then said", "[devices][nvml][fault]") {
  scoped_env env;
  for (const auto& v : cuarch_test::stub_variables()) env.unset(v);
  for (const char* v :
       {"CUARCH_STUB_NVML_DEVICES", "CUARCH_STUB_NVML_INIT_STATUS", "CUARCH_STUB_NVML_CC_STATUS", "CUDA_DEVICE_ORDER"})
    env.unset(v);
  const std::string nvml = stub_nvml_lib();
  const std::string driver = stub_driver();
  env.set("CUARCH_STUB_DEVICES", "8.6,9.0");
  auto fallback_note = [](const cuarch::device_reading& r, const std::string& because) {
    CHECK(r.via.rfind("cuInit (", 0) == 0);
    CHECK(note_has(r, "devices read through cuInit because "));
    CHECK(note_has(r, because));
    CHECK(note_has(r, "; a process forked after this cannot use CUDA"));
  };
  SECTION("no NVML") {
    const cuarch::system_device_source s{cuarch::nvml_device_source("/nonexistent/libnvidia-ml.so.1"),
                                         cuarch::driver_library_source(driver)};
    const auto r = s.read();
    REQUIRE(r);
    CHECK(ccs(r->devices) == std::vector<compute_capability>{{8, 6}, {9, 0}});
    fallback_note(*r, "could not load /nonexistent/libnvidia-ml.so.1");
    CHECK(r->uuids == std::vector<std::string>{"", ""});
  }
  SECTION("nvmlInit_v2 fails") {
    env.set("CUARCH_STUB_NVML_INIT_STATUS", "9");
    const cuarch::system_device_source s{cuarch::nvml_device_source(nvml), cuarch::driver_library_source(driver)};
    const auto r = s.read();
    REQUIRE(r);
    fallback_note(*r, "NVML_ERROR_DRIVER_NOT_LOADED (9)");
  }
  SECTION("a CUDA_VISIBLE_DEVICES form NVML cannot map") {
    env.set("CUARCH_STUB_NVML_DEVICES", "9.0");
    env.set("CUDA_VISIBLE_DEVICES", "MIG-GPU-00000000/1/0");
    env.set("CUARCH_STUB_DEVICES", "9.0");
    const cuarch::system_device_source s{cuarch::nvml_device_source(nvml), cuarch::driver_library_source(driver)};
    // The stub driver reads the legacy MIG form as an invalid index: no device. The error says both.
    const auto r = s.read();
    REQUIRE_FALSE(r);
    CHECK(r.error().source == cuarch::source_kind::driver);
    CHECK(r.error().raw.view().find("NVML before it") != std::string_view::npos);
  }
  SECTION("cuInit forbidden: NVML's error as it is") {
    const cuarch::system_device_source s{cuarch::nvml_device_source("/nonexistent/libnvidia-ml.so.1"),
                                         cuarch::driver_library_source(driver), cuarch::cuinit_fallback::forbidden};
    const auto r = s.read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_not_found);
    CHECK(r.error().subject.view() == "/nonexistent/libnvidia-ml.so.1");
    CHECK(r.error().raw.view().find("cuInit was not tried") != std::string_view::npos);  // and says why
  }
  SECTION("both fail: the driver's error, naming NVML's failure before it") {
    env.set("CUARCH_STUB_INIT_STATUS", "999");
    const cuarch::system_device_source s{cuarch::nvml_device_source("/nonexistent/libnvidia-ml.so.1"),
                                         cuarch::driver_library_source(driver)};
    const auto r = s.read();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::library_call_failed);
    CHECK(r.error().subject.view() == "cuInit");
    CHECK(r.error().raw.view().find("NVML before it: could not load /nonexistent/libnvidia-ml.so.1") !=
          std::string_view::npos);
  }
}

TEST_CASE("system devices on this machine: devices when there is a GPU, else a typed error naming both sources",
          "[devices][real]") {
  const auto& stubs = cuarch_test::stubs();
  for (const auto& p : cuarch::loaded_library_paths("libcuda.so."))  // the stubs have SONAMEs of their own
    if ((!stubs || p.rfind(stubs.path, 0) != 0) && p.find("/cuarch-libcuda-copy-") == std::string::npos)
      SKIP("a libcuda is already mapped into this process: " + p);
  const auto r = cuarch::system_device_source().read();
  if (r) {
    CHECK_FALSE(r->devices.empty());
    return;
  }
  if (r.error().code == errc::no_device) return;  // a driver without a visible GPU
  CHECK(r.error().code == errc::library_not_found);
  CHECK(r.error().subject.view() == "libcuda.so.1");
  CHECK(r.error().raw.view().find("NVML before it: could not load libnvidia-ml.so.1") != std::string_view::npos);
}
