// The rules: what a release builds (table), what a device loads, what a driver can JIT.
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/literals.hpp>

#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

using namespace cuarch;

TEST_CASE("why-not answers of the knowledge table", "[table]") {
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_120a"), {12, 4}).error().code == errc::needs_newer_toolkit);
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_120a"), {12, 4}).error().required == cuda_version{12, 8});
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_101"), {13, 0}).error().code == errc::renamed_in_toolkit);
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_101"), {13, 0}).error().replacement == CUARCH_ARCH("sm_110"));
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_70"), {13, 0}).error().code == errc::removed_in_toolkit);
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_35"), {12, 0}).error().code == errc::removed_in_toolkit);
  CUARCH_CHECK_BOTH(
      check_buildable(arch_target{{9, 0}, arch_variant::family_specific, arch_form::sass}, {13, 0}).error().code ==
      errc::variant_not_defined);
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_107"), {13, 0}).error().code == errc::needs_newer_toolkit);  // 13.4+
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_107f"), {13, 4}).has_value());
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_150"), {13, 0}).error().code == errc::unknown_arch);

  const std::string m = [] {
    std::vector<std::string> v;
    for (auto [t, tk] : {std::pair{CUARCH_ARCH("sm_120a"), cuda_version{12, 4}},
                         {CUARCH_ARCH("sm_101"), cuda_version{13, 0}},
                         {CUARCH_ARCH("sm_70"), cuda_version{13, 0}}})
      v.push_back(check_buildable(t, tk).error().message());
    return v[0] + "\n" + v[1] + "\n" + v[2];
  }();
  CHECK(m.find("sm_120a needs CUDA >= 12.8 (have 12.4)") != std::string::npos);
  CHECK(m.find("sm_101 was renamed sm_110 in CUDA 13.0") != std::string::npos);
  CHECK(m.find("sm_70 was removed in CUDA 13.0") != std::string::npos);
  const auto no_f =
      check_buildable(arch_target{{9, 0}, arch_variant::family_specific, arch_form::sass}, {13, 0}).error().message();
  CHECK(no_f.find("no 'f' variant exists for 9.0") != std::string::npos);
}

TEST_CASE("first releases of variants", "[table]") {
  CUARCH_CHECK_BOTH(!is_buildable(CUARCH_ARCH("sm_90a"), {11, 8}) && is_buildable(CUARCH_ARCH("sm_90a"), {12, 0}));
  CUARCH_CHECK_BOTH(!is_buildable(CUARCH_ARCH("sm_100f"), {12, 8}) && is_buildable(CUARCH_ARCH("sm_100f"), {12, 9}));
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("sm_100a"), {12, 8}));
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("sm_101f"), {12, 9}) && !is_buildable(CUARCH_ARCH("sm_101f"), {13, 0}));
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("sm_110f"), {13, 0}) && !is_buildable(CUARCH_ARCH("sm_110"), {12, 9}));
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("sm_88"), {13, 0}) && !is_buildable(CUARCH_ARCH("sm_88"), {12, 9}));
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("compute_35"), {11, 8}) &&
                    !is_buildable(CUARCH_ARCH("compute_35"), {12, 0}));
  // Patch levels do not matter to the table.
  CUARCH_CHECK_BOTH(is_buildable(CUARCH_ARCH("sm_120a"), {12, 8, 93}));
}

TEST_CASE("a toolkit newer than the table is never called too old", "[table]") {
  const cuda_version future{newest_known_toolkit().major, newest_known_toolkit().minor + 7};
  for (const char* t : {"sm_120a", "sm_121f", "sm_100f", "sm_90a", "sm_75", "compute_110f"}) {
    INFO(t);
    CHECK(is_buildable(parse_arch(t).value(), future));
  }
  const auto unknown = check_buildable(CUARCH_ARCH("sm_150"), future);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == errc::unknown_arch);
  CHECK(unknown.error().message().find("ask the compiler") != std::string::npos);
  CHECK(unknown.error().message().find("needs CUDA") == std::string::npos);
}

TEST_CASE("toolkits older than the table are not judged", "[table]") {
  CUARCH_CHECK_BOTH(check_buildable(CUARCH_ARCH("sm_75"), {10, 2}).error().code == errc::invalid_version);
}

TEST_CASE("loadability, as verified on an H200 (cc 9.0, driver 580)", "[load]") {
  // cuModuleLoadData results on an H200 (docs/design.md, "Vocabulary").
  constexpr compute_capability h200{9, 0};
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("sm_90"), h200));
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("sm_90a"), h200));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_80"), h200));  // older major SASS: NO_BINARY_FOR_GPU
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_89"), h200));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_100"), h200));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_100f"), h200));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_120"), h200));
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("compute_75"), h200));
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("compute_80"), h200));
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("compute_90a"), h200));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("compute_100"), h200));  // INVALID_PTX
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("compute_120f"), h200));
}

TEST_CASE("loadability of a and f across a family", "[load]") {
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("sm_86"), {8, 9}) && !can_load(CUARCH_ARCH("sm_89"), {8, 6}));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_120a"), {12, 1}));  // a: exactly 12.0
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("sm_120f"), {12, 1}));   // f: the 12.x family
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("sm_100f"), {10, 3}) && !can_load(CUARCH_ARCH("sm_103f"), {10, 0}));
  CUARCH_CHECK_BOTH(!can_load(CUARCH_ARCH("sm_100f"), {11, 0}));  // Thor (11.0) is its own family since 13.0
  CUARCH_CHECK_BOTH(can_load(CUARCH_ARCH("compute_90"), {12, 0}) && !can_load(CUARCH_ARCH("compute_90a"), {12, 0}));
  const auto e = check_loadable(CUARCH_ARCH("sm_120a"), {12, 1});
  REQUIRE_FALSE(e);
  CHECK(e.error().code == errc::cannot_load_on_device);
  CHECK(
      e.error().message() ==
      "sm_120a cannot run on a device of compute capability 12.1; fix: build a target that device can load (e.g. sm_121)");
}

TEST_CASE("a driver JITs PTX only up to its own PTX ISA", "[driver]") {
  // A 13.0 driver rejects PTX ISA 9.1 (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and JITs 9.0 and 8.8.
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("compute_90"), {13, 1}, {13, 0}).error().code ==
                    errc::ptx_too_new_for_driver);
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("compute_90"), {13, 0}, {13, 0}).has_value());
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("compute_90"), {12, 9}, {13, 0}).has_value());
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("compute_90"), {12, 6}, {12, 5}).has_value());  // both PTX ISA 8.5
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("sm_90"), {13, 1}, {12, 0}).has_value());  // SASS needs no JIT
  CUARCH_CHECK_BOTH(check_driver_can_jit(CUARCH_ARCH("compute_90"), {14, 0}, {13, 9}).error().code ==
                    errc::ptx_too_new_for_driver);
  const auto e = check_driver_can_jit(CUARCH_ARCH("compute_90"), {13, 0}, {12, 8});
  REQUIRE_FALSE(e);
  CHECK(e.error().message().find("PTX ISA 9.0, but the driver (CUDA 12.8) JITs PTX ISA up to 8.7") != std::string::npos);
  // A compiler newer than the table is judged by release: its PTX ISA is unknown, never "PTX ISA 0.0".
  const auto newer = check_driver_can_jit(CUARCH_ARCH("compute_90"), {14, 0}, {13, 0});
  REQUIRE_FALSE(newer);
  CHECK(
      newer.error().message() ==
      "compute_90 is PTX of CUDA 14.0, whose PTX ISA cuarch's table does not know; the driver (CUDA 13.0) is of an older "
      "release and JITs PTX ISA up to 9.0 (driver); fix: update the driver to one of CUDA 14.0 or newer, or ship machine code (sm_) for "
      "the device instead of PTX");
  // Both newer than the table: the releases alone decide, and no ISA is named.
  CHECK(
      check_driver_can_jit(CUARCH_ARCH("compute_90"), {14, 1}, {14, 0}).error().message() ==
      "compute_90 is PTX of CUDA 14.1, whose PTX ISA cuarch's table does not know; the driver (CUDA 14.0) is of an older release "
      "(driver); fix: update the driver to one of CUDA 14.1 or newer, or ship machine code (sm_) for the device instead of PTX");
}

TEST_CASE("one rule says which PTX ISA a driver reads, asked by compiler or by ISA", "[driver][ptx]") {
  // The PTX of each release, as NVIDIA's PTX ISA release history pairs them (the table's rows, and
  // 8.6 with 12.7: no 12.7 toolkit shipped, but r565 drivers report CUDA 12.7).
  std::vector<std::pair<cuda_version, ptx_isa_version>> emitted{{{12, 7, -1}, {8, 6}}};
  for (const auto& row : toolkit_table) emitted.emplace_back(row.release, row.ptx_isa);
  std::vector<cuda_version> drivers{{10, 2, -1}, {12, 7, -1}, {12, 7, 1}, {newest_known_toolkit().major, 9, -1}};
  for (const auto& row : toolkit_table) drivers.push_back(row.release);
  const arch_target t = CUARCH_ARCH("compute_75");  // PTX ISA 6.3 and up: no floor in the way
  for (const auto& [compiler, isa] : emitted)
    for (const auto& driver : drivers) {
      INFO("PTX ISA " << to_text(isa).view() << " (CUDA " << to_text(compiler).view() << ") on a CUDA "
                      << to_text(driver).view() << " driver");
      CHECK(check_driver_can_jit(t, compiler, driver).has_value() ==
            check_driver_can_jit_isa(t, isa, driver).has_value());
    }
  // A 12.7 driver reads 8.6 and no newer (cuda-python's get_minimal_required_cuda_ver_from_ptx_ver("8.6") is 12070).
  CHECK(check_driver_can_jit_isa(t, {8, 6}, {12, 7}).has_value());
  const auto e = check_driver_can_jit(t, {12, 8}, {12, 7});
  REQUIRE_FALSE(e);
  CHECK(e.error().ptx_supported == ptx_isa_version{8, 6});
  CHECK(e.error().message().find("PTX ISA 8.7, but the driver (CUDA 12.7) JITs PTX ISA up to 8.6") != std::string::npos);
}

TEST_CASE("for_each_buildable lists what a release builds", "[table]") {
  std::string listed;
  for_each_buildable({12, 4}, [&](const arch_target& t) { listed += std::string(to_text(t).view()) + " "; });
  CHECK(
      listed ==
      "sm_50 compute_50 sm_52 compute_52 sm_53 compute_53 sm_60 compute_60 sm_61 compute_61 sm_62 compute_62 sm_70 compute_70 "
      "sm_72 compute_72 sm_75 compute_75 sm_80 compute_80 sm_86 compute_86 sm_87 compute_87 sm_89 compute_89 sm_90 sm_90a "
      "compute_90 compute_90a ");
}

TEST_CASE("minimum PTX ISA per variant: sm_90a 8.0, sm_100f and sm_120f 8.8", "[compatibility][ptx]") {
  // PTX ISA "Target ISA notes" (LLVM NVPTX.td mirrors them: sm_90a PTX80, sm_100a PTX86, sm_100f PTX88,
  // sm_120 PTX87, sm_120a PTX87, sm_120f PTX88, sm_110f PTX90).
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_90")) == ptx_isa_version{7, 8});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_90a")) == ptx_isa_version{8, 0});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_100a")) == ptx_isa_version{8, 6});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_100f")) == ptx_isa_version{8, 8});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_120a")) == ptx_isa_version{8, 7});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_120f")) == ptx_isa_version{8, 8});
  STATIC_REQUIRE(*min_ptx_isa(CUARCH_ARCH("compute_110f")) == ptx_isa_version{9, 0});
  STATIC_REQUIRE(!min_ptx_isa(arch_target{{15, 0}, arch_variant::baseline, arch_form::ptx}));
  SECTION("every variant a release builds is within the PTX ISA that release emits") {
    for (const auto& tk : toolkit_table)
      for_each_buildable(tk.release, [&](const arch_target& t) {
        INFO(to_text(t).view() << " with CUDA " << to_text(tk.release).view());
        CHECK(*min_ptx_isa(t) <= tk.ptx_isa);
      });
  }
  SECTION("used where PTX is checked against a driver: the target's own floor comes first") {
    // compute_120f from CUDA 13.0 (PTX ISA 9.0) on a 12.8 driver (8.7): no compiler could make
    // PTX of it that this driver reads, so the error names 8.8, the target's floor, not 9.0.
    const auto e = check_driver_can_jit(CUARCH_ARCH("compute_120f"), {13, 0}, {12, 8});
    REQUIRE_FALSE(e);
    CHECK(e.error().ptx_required == ptx_isa_version{8, 8});
    CHECK(e.error().ptx_supported == ptx_isa_version{8, 7});
    CHECK(e.error().raw.view() == "PTX ISA 8.8 is the lowest with this target, whatever the compiler");
    // A baseline target on the same pair: the compiler's ISA is what is too new.
    const auto b = check_driver_can_jit(CUARCH_ARCH("compute_90"), {13, 0}, {12, 8});
    REQUIRE_FALSE(b);
    CHECK(b.error().ptx_required == ptx_isa_version{9, 0});
    // A compiler newer than the table: before, only the releases were compared.
    const cuda_version newer{newest_known_toolkit().major + 1, 0, -1};
    CHECK(check_driver_can_jit(CUARCH_ARCH("compute_100f"), newer, {12, 8}).error().ptx_required ==
          ptx_isa_version{8, 8});
  }
}

TEST_CASE("a release that never existed is known as such (12.7), never an error", "[compatibility][table]") {
  STATIC_REQUIRE(never_released({12, 7, -1}));
  STATIC_REQUIRE(never_released({12, 7, 1}));
  STATIC_REQUIRE(never_released({11, 9, -1}));
  STATIC_REQUIRE(!never_released({12, 6, -1}));
  STATIC_REQUIRE(!never_released({12, 8, -1}));
  STATIC_REQUIRE(!never_released({10, 2, -1}));  // older than the table: another question
  STATIC_REQUIRE(
      !never_released({newest_known_toolkit().major + 1, 0, -1}));  // newer than the table: not known to be unreleased
  // The table still answers for it, as for 12.6 (what 12.8 adds is not there).
  STATIC_REQUIRE(is_buildable(CUARCH_ARCH("sm_90a"), {12, 7, -1}));
  STATIC_REQUIRE(!is_buildable(CUARCH_ARCH("sm_120"), {12, 7, -1}));
}

TEST_CASE("a driver drives a device from the CUDA release that first builds for it (issue 32, item 3)",
          "[compatibility][driver]") {
  // NVIDIA's "CUDA Toolkit, Driver, and Architecture Matrix": Blackwell 10.0 and 12.0 from CUDA 12.8,
  // Hopper and Ada from 11.8, Ampere from 11.0 (8.6 with 11.1, its GA10x release notes).
  const auto drives = [](compute_capability cc, cuda_version driver) { return check_driver_drives_device(cc, driver); };
  const auto first = [&](compute_capability cc, cuda_version driver) {
    const auto r = drives(cc, driver);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::cannot_load_on_device);
    CHECK(r.error().source == source_kind::knowledge_table);
    CHECK(r.error().device == cc);
    CHECK(r.error().found == driver);
    CHECK_FALSE(r.error().has_target);
    return r.error().required;
  };
  CHECK(first({12, 0}, {12, 4}) == cuda_version{12, 8});
  CHECK(first({10, 0}, {12, 6}) == cuda_version{12, 8});
  CHECK(first({10, 3}, {12, 8}) == cuda_version{12, 9});
  CHECK(first({12, 1}, {12, 8}) == cuda_version{12, 9});
  CHECK(first({11, 0}, {12, 9}) == cuda_version{13, 0});  // Thor reports 11.0 only under a 13.0 driver
  CHECK(first({9, 0}, {11, 7}) == cuda_version{11, 8});
  CHECK(first({8, 9}, {11, 4}) == cuda_version{11, 8});
  CHECK(first({8, 7}, {11, 3}) == cuda_version{11, 4});
  CHECK(first({8, 6}, {11, 0}) == cuda_version{11, 1});
  for (const auto& [cc, driver] : std::vector<std::pair<compute_capability, cuda_version>>{
           {{12, 0}, {12, 8}},
           {{12, 0}, {13, 0}},
           {{10, 3}, {12, 9}},
           {{9, 0}, {11, 8}},
           {{8, 0}, {11, 0}},
           {{7, 5}, {11, 0}},
           {{12, 0}, {99, 0}},  // newer than the table: it drives what the table knows
           {{15, 0}, {12, 0}},  // a cc the table does not know: not judged by this rule
           {{8, 0}, {10, 2}}})  // a driver older than the table: not known, not refused
    CHECK(drives(cc, driver).has_value());
  const std::string m = first({12, 0}, {12, 4}).major ? drives({12, 0}, {12, 4}).error().message() : "";
  INFO(m);
  CHECK(m.find("a driver serving CUDA 12.4 cannot drive a device of compute capability 12.0") == 0);
  CHECK(m.find("fix: update the driver to one that serves CUDA 12.8 or newer") != std::string::npos);
}
