// The resolution scenario matrix (docs/design.md, "Resolution"): each row is a machine (compiler, devices, driver), a
// request and a policy, with the exact targets it must resolve to, or the exact typed errors it must fail with.
// Compiler lists marked [NVRTC x.y] are nvrtcGetSupportedArchs of that real library (tests/data/nvrtc_releases.tsv);
// versions "newer than the table" are computed from the table, so the rows stay true when the table grows.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <optional>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace cuarch;

namespace {

const std::vector<int> nvrtc_13_0 = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};  // [NVRTC 13.0]

/// A release after the table's newest: the "unknown newer toolkit".
cuda_version newer_than_table() { return {newest_known_toolkit().major + 1, 0, -1}; }

compiler_info table_compiler(cuda_version v) {
  return compiler_info{source_kind::knowledge_table, v, "", std::nullopt};
}
compiler_info nvrtc(cuda_version v, std::vector<int> archs) {
  return compiler_info{source_kind::nvrtc, v, "/opt/cuda/lib64/libnvrtc.so", std::move(archs)};
}

resolve_policy strict() { return resolve_policy{}; }
resolve_policy best_effort() { return best_effort_policy{}; }
resolve_policy fallback() {
  resolve_policy p;
  p.ptx_fallback = true;
  return p;
}
resolve_policy best_effort_fallback() {
  resolve_policy p = best_effort_policy{};
  p.ptx_fallback = true;
  return p;
}

struct machine {
  compiler_info compiler;
  std::optional<std::vector<compute_capability>> devices;  // nullopt: no device source
  std::optional<cuda_version> driver;                      // nullopt: no driver source
};

/// A rejected request, as "requested: reason" or "requested: reason / PTX fallback: reason".
std::string rejection(const diagnostic& d) {
  std::string s = std::string(to_text(d.requested).view()) + ": " +
                  (d.reason ? std::string(to_string(d.reason->code)) : "?");
  if (d.fallback_error) s += " / PTX fallback: " + std::string(to_string(d.fallback_error->code));
  return s;
}

struct outcome {
  std::string targets;                  // resolved: "sm_86 compute_90"; failed: empty
  std::string transformed;              // resolved: "sm_120a->compute_90 ..." for each transformed request
  std::string error;                    // failed: to_string(summary code)
  std::vector<std::string> rejections;  // every rejected request (resolved or failed)
};

outcome resolve_on(const machine& m, std::string_view list, const resolve_policy& policy,
                   arch_dialect dialect = arch_dialect::generic) {
  arch_request request;
  request.list = list;
  request.dialect = dialect;
  request.overrides = env_override::none;
  auto with_devices = [&](const auto& devices) {
    if (m.driver) return resolve_target_archs(request, m.compiler, devices, policy, fixed_driver(*m.driver));
    return resolve_target_archs(request, m.compiler, devices, policy, no_driver{});
  };
  const resolve_result r = m.devices ? with_devices(fixed_devices(*m.devices)) : with_devices(no_devices{});
  outcome o;
  const std::vector<diagnostic>& diags = r ? r->diagnostics : r.error().diagnostics;
  for (const auto& d : diags) {
    if (d.device && d.result) CHECK(can_load(*d.result, d.device->cc));  // never code its device cannot load
    if (d.outcome == resolution_outcome::rejected) o.rejections.push_back(rejection(d));
    if (d.outcome == resolution_outcome::transformed)
      o.transformed += (o.transformed.empty() ? "" : " ") + std::string(to_text(d.requested).view()) + "->" +
                       std::string(to_text(*d.result).view());
  }
  if (!r) {
    o.error = to_string(r.error().summary.code);
    return o;
  }
  for (const auto& t : r->targets) o.targets += (o.targets.empty() ? "" : " ") + std::string(to_text(t).view());
  // Invariants of every resolution: a set never empty, and every native device can load something.
  CHECK(r->targets.size() >= 1);
  if (r->keyword == arch_keyword::native && m.devices)
    for (const auto& cc : *m.devices) CHECK(r->targets.can_load_on(cc));
  return o;
}

using rejections = std::vector<std::string>;

}  // namespace

TEST_CASE("new GPU, old toolkit", "[scenario]") {
  const machine rtx_pro_on_12_6{table_compiler({12, 6}), std::vector<compute_capability>{{12, 0}}, std::nullopt};
  SECTION("strict: the device gets nothing it can load, and the error says which toolkit would") {
    const auto o = resolve_on(rtx_pro_on_12_6, "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_120a: needs a newer toolkit"});
  }
  SECTION("explicit 12.0 with CUDA 12.6") {
    const auto o = resolve_on(rtx_pro_on_12_6, "12.0", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_120: needs a newer toolkit"});
  }
  SECTION("PTX fallback with a driver that JITs it: compute_90, never sm_90 SASS (CuPy's bug)") {
    const machine m{table_compiler({12, 6}), std::vector<compute_capability>{{12, 0}}, cuda_version{12, 8}};
    const auto o = resolve_on(m, "native", fallback());
    CHECK(o.targets == "compute_90");
    CHECK(o.transformed == "sm_120a->compute_90");
  }
  SECTION("the motivating bug: 12.0 GPUs, NVRTC 13.0 compiles (nvcc 12.8 on PATH is irrelevant)") {
    const machine m{nvrtc({13, 0}, nvrtc_13_0), std::vector<compute_capability>(8, compute_capability{12, 0}),
                    std::nullopt};
    const auto o = resolve_on(m, "native", strict());
    CHECK(o.targets == "sm_120a");
    CHECK(o.transformed.empty());
  }
  // native gives each device its own architecture or fails: sm_120 machine code loads on a 12.1
  // device, but it is another architecture (without 12.1's own features), so it is used only under
  // the named policy compatible-minor (see "substitution is opt-in" below).
  SECTION("12.1 with CUDA 12.8: no silent sm_120") {
    const machine m{table_compiler({12, 8}), std::vector<compute_capability>{{12, 1}}, std::nullopt};
    const auto o = resolve_on(m, "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_121a: needs a newer toolkit"});
  }
  SECTION("10.3 with CUDA 12.8: no silent sm_100") {
    const machine m{table_compiler({12, 8}), std::vector<compute_capability>{{10, 3}}, std::nullopt};
    const auto o = resolve_on(m, "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_103a: needs a newer toolkit"});
  }
}

TEST_CASE("substitution is opt-in: compatible-minor takes the highest lower minor, with the caveat",
          "[scenario][substitution]") {
  resolve_policy compatible;
  apply_policy(policy_name::compatible_minor, compatible);
  auto only_diag = [](const machine& m, const resolve_policy& p) {
    arch_request request;
    request.list = "native";
    request.overrides = env_override::none;
    const auto r = resolve_target_archs(request, m.compiler, fixed_devices(*m.devices), p, no_driver{});
    return r ? r->diagnostics.at(0) : r.error().diagnostics.at(0);
  };
  SECTION("12.1 with CUDA 12.8: sm_120, named as a substitution") {
    const machine m{table_compiler({12, 8}), std::vector<compute_capability>{{12, 1}}, std::nullopt};
    const auto o = resolve_on(m, "native", compatible);
    CHECK(o.targets == "sm_120");
    CHECK(o.transformed == "sm_121a->sm_120");
    const diagnostic d = only_diag(m, compatible);
    CHECK(d.note.view() == "policy compatible-minor: sm_120 runs on 12.1 but without 12.1-specific features");
    CHECK(d.message().find("without 12.1-specific features") != std::string::npos);
    SECTION("the default policy names the candidate it would have taken, and fails") {
      const diagnostic strict_d = only_diag(m, strict());
      CHECK(strict_d.outcome == resolution_outcome::rejected);
      CHECK(strict_d.note.view() ==
            "policy compatible-minor would use sm_120, which runs on 12.1 but without 12.1-specific features");
    }
  }
  SECTION("an unknown minor gets the HIGHEST buildable minor below it (sm_121, not sm_120)") {
    const machine m{nvrtc({13, 0}, nvrtc_13_0), std::vector<compute_capability>{{12, 5}}, std::nullopt};
    const auto o = resolve_on(m, "native", compatible);
    CHECK(o.targets == "sm_121");
    CHECK(only_diag(m, compatible).decided_by == source_kind::nvrtc);
  }
  SECTION("10.3 with CUDA 12.8: sm_100; the highest below 10.3, sm_101, is Thor's (integrated) and skipped") {
    const machine m{table_compiler({12, 8}), std::vector<compute_capability>{{10, 3}}, std::nullopt};
    CHECK(resolve_on(m, "native", compatible).targets == "sm_100");
  }
  SECTION("8.9 (Ada) with CUDA 11.7: sm_86, never Orin's sm_87") {
    const machine m{table_compiler({11, 7}), std::vector<compute_capability>{{8, 9}}, std::nullopt};
    CHECK(resolve_on(m, "native", compatible).targets == "sm_86");
  }
  SECTION("a device still reporting 10.1 with CUDA 13.0: sm_100 (sm_101 is gone)") {
    const machine m{table_compiler({13, 0}), std::vector<compute_capability>{{10, 1}}, std::nullopt};
    CHECK(resolve_on(m, "native", compatible).targets == "sm_100");
  }
  SECTION("a family chain prefers family code of the lower minor: sm_100f for a 10.7 device with CUDA 13.0") {
    resolve_policy family = compatible;
    family.native_preferences = *parse_native_variant_spec("f,a");
    const machine m{table_compiler({13, 0}), std::vector<compute_capability>{{10, 7}}, std::nullopt};
    CHECK(resolve_on(m, "native", family).targets == "sm_103f");
  }
  SECTION("nothing of the major below the device: still an error") {
    const machine m{table_compiler({12, 6}), std::vector<compute_capability>{{12, 0}}, std::nullopt};
    CHECK(resolve_on(m, "native", compatible).error == "nothing resolved");
  }
  SECTION("the device's own architecture is always preferred") {
    const machine m{table_compiler({12, 9}), std::vector<compute_capability>{{12, 1}}, std::nullopt};
    CHECK(resolve_on(m, "native", compatible).targets == "sm_121a");
  }
}

TEST_CASE("native variant preferences and fallback chains", "[scenario][native]") {
  const machine m{table_compiler({13, 0}), std::vector<compute_capability>{{8, 6}, {9, 0}, {10, 0}, {12, 0}, {12, 1}},
                  std::nullopt};
  resolve_policy p;
  p.native_preferences = *parse_native_variant_spec("12.0=f,9=a,10=a,default=baseline");
  CHECK(resolve_on(m, "native", p).targets == "sm_86 sm_90a sm_100a sm_120f sm_121");
  SECTION("a chain falls back in order: f where the compiler builds it, else a, else baseline") {
    resolve_policy chain;
    chain.native_preferences = *parse_native_variant_spec("f,a,baseline");
    const machine m128{table_compiler({12, 8}), std::vector<compute_capability>{{9, 0}, {12, 0}}, std::nullopt};
    const auto o = resolve_on(m128, "native", chain);  // CUDA 12.8 builds sm_120a, not sm_120f (12.9)
    CHECK(o.targets == "sm_90a sm_120a");
    CHECK(o.transformed == "sm_120f->sm_120a");
    const machine m129{table_compiler({12, 9}), std::vector<compute_capability>{{9, 0}, {12, 0}}, std::nullopt};
    CHECK(resolve_on(m129, "native", chain).targets == "sm_90a sm_120f");
  }
}

TEST_CASE("unknown minor of a known major: never clamped silently", "[scenario][substitution]") {
  // cc 12.5 exists in no table and no compiler list; today's code clamped it to sm_120 with exit 0.
  const machine m{nvrtc({13, 0}, nvrtc_13_0), std::vector<compute_capability>{{12, 5}}, std::nullopt};
  const auto o = resolve_on(m, "native", strict());
  CHECK(o.error == "nothing resolved");
  CHECK(o.rejections == rejections{"sm_125a: unknown architecture"});
}

TEST_CASE("old GPU, new toolkit: removed archs", "[scenario]") {
  const machine v100_on_13{table_compiler({13, 0}), std::vector<compute_capability>{{7, 0}}, cuda_version{13, 0}};
  SECTION("strict") {
    const auto o = resolve_on(v100_on_13, "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_70: removed from the toolkit"});
  }
  SECTION("no PTX fallback can help an arch below everything the compiler builds") {
    const auto o = resolve_on(v100_on_13, "native", fallback());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_70: removed from the toolkit"});
  }
  SECTION("explicit list: strict fails with the reason, best effort keeps the rest") {
    CHECK(resolve_on(v100_on_13, "7.0;8.0", strict()).rejections == rejections{"sm_70: removed from the toolkit"});
    CHECK(resolve_on(v100_on_13, "7.0;8.0", strict()).error == "nothing resolved");
    const auto o = resolve_on(v100_on_13, "7.0;8.0", best_effort());
    CHECK(o.targets == "sm_80");
    CHECK(o.rejections == rejections{"sm_70: removed from the toolkit"});
  }
  SECTION("Kepler with CUDA 12.0") {
    const machine k80{table_compiler({12, 0}), std::vector<compute_capability>{{3, 7}}, std::nullopt};
    CHECK(resolve_on(k80, "native", strict()).rejections == rejections{"sm_37: removed from the toolkit"});
  }
  SECTION("Turing, the oldest arch CUDA 13.0 builds") {
    CHECK(resolve_on(machine{table_compiler({13, 0}), std::vector<compute_capability>{{7, 5}}, std::nullopt}, "native",
                     strict())
              .targets == "sm_75");
  }
}

TEST_CASE("renamed archs: sm_101 became sm_110 in CUDA 13.0", "[scenario]") {
  const machine cuda13{table_compiler({13, 0}), std::nullopt, std::nullopt};
  SECTION("strict: the old name is an error whose fix is the new name") {
    const auto o = resolve_on(cuda13, "sm_101a", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_101a: renamed in the toolkit"});
  }
  SECTION("best effort follows the rename, reported") {
    const auto o = resolve_on(cuda13, "sm_101a;10.0", best_effort());
    CHECK(o.targets == "sm_100 sm_110a");
    CHECK(o.transformed == "sm_101a->sm_110a");
  }
  SECTION("the new name with the old toolkit") {
    CHECK(resolve_on(machine{table_compiler({12, 9}), std::nullopt, std::nullopt}, "sm_110", strict()).rejections ==
          rejections{"sm_110: needs a newer toolkit"});
  }
  SECTION("a device still reporting 10.1 gets no sm_110a (which it could not load), and no silent sm_100") {
    const auto o = resolve_on(machine{table_compiler({13, 0}), std::vector<compute_capability>{{10, 1}}, std::nullopt},
                              "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_101a: renamed in the toolkit"});
  }
  SECTION("a device reporting 11.0 gets sm_110a") {
    CHECK(resolve_on(machine{table_compiler({13, 0}), std::vector<compute_capability>{{11, 0}}, std::nullopt}, "native",
                     strict())
              .targets == "sm_110a");
  }
}

TEST_CASE("mixed devices", "[scenario]") {
  SECTION("one target per distinct device, one diagnostic per device") {
    const machine m{table_compiler({13, 0}), std::vector<compute_capability>{{8, 6}, {12, 0}, {12, 0}}, std::nullopt};
    CHECK(resolve_on(m, "native", strict()).targets == "sm_86 sm_120a");
  }
  SECTION("PTX goes to the device that needs it (PyTorch puts +PTX on the oldest arch)") {
    const machine m{table_compiler({12, 4}), std::vector<compute_capability>{{8, 6}, {12, 0}}, cuda_version{12, 8}};
    const auto o = resolve_on(m, "native", fallback());
    CHECK(o.targets == "sm_86 compute_90");
    CHECK(o.transformed == "sm_120a->compute_90");
  }
  SECTION("a device left with nothing fails even under best effort") {
    const machine m{table_compiler({12, 4}), std::vector<compute_capability>{{8, 6}, {12, 0}}, std::nullopt};
    const auto o = resolve_on(m, "native", best_effort());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_120a: needs a newer toolkit"});
  }
  SECTION("Hopper and Blackwell with CUDA 12.8") {
    const machine m{table_compiler({12, 8}), std::vector<compute_capability>{{9, 0}, {10, 0}}, std::nullopt};
    CHECK(resolve_on(m, "native", strict()).targets == "sm_90a sm_100a");
  }
}

TEST_CASE("no device", "[scenario]") {
  SECTION("no device source") {
    const auto o = resolve_on(machine{table_compiler({13, 0}), std::nullopt, std::nullopt}, "native", strict());
    CHECK(o.error == "no device");
  }
  SECTION("a device source that lists none") {
    const auto o = resolve_on(machine{table_compiler({13, 0}), std::vector<compute_capability>{}, std::nullopt},
                              "native", best_effort());
    CHECK(o.error == "no device");
  }
  SECTION("explicit targets need no device") {
    CHECK(resolve_on(machine{table_compiler({13, 0}), std::nullopt, std::nullopt}, "9.0a", strict()).targets == "sm_90a");
  }
}

TEST_CASE("unknown newer toolkit", "[scenario]") {
  const cuda_version newer = newer_than_table();
  SECTION("without its list: what the newest known release builds, never 'too old'") {
    const machine m{table_compiler(newer), std::nullopt, std::nullopt};
    CHECK(resolve_on(m, "12.0a;10.0f;9.0a", strict()).targets == "sm_90a sm_100f sm_120a");
    CHECK(resolve_on(m, "7.0", strict()).rejections == rejections{"sm_70: removed from the toolkit"});
  }
  SECTION("with its list: an arch the table does not know is buildable, plain") {
    std::vector<int> archs = nvrtc_13_0;
    archs.push_back(150);
    const machine m{nvrtc(newer, archs), std::vector<compute_capability>{{15, 0}}, std::nullopt};
    const auto native = resolve_on(m, "native", strict());
    CHECK(native.targets == "sm_150");
    CHECK(native.transformed == "sm_150a->sm_150");  // the table cannot confirm sm_150a exists
    CHECK(resolve_on(m, "15.0", strict()).targets == "sm_150");
    CHECK(resolve_on(m, "15.0a", strict()).rejections == rejections{"sm_150a: unknown architecture"});
    CHECK(resolve_on(m, "12.0a;10.0f", strict()).targets == "sm_100f sm_120a");  // variants of known archs persist
  }
  SECTION("the list wins over the table: an arch it lacks is rejected by the compiler") {
    std::vector<int> without_88 = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
    const machine m{nvrtc({13, 0}, without_88), std::nullopt, std::nullopt};
    CHECK(resolve_on(m, "8.8", strict()).rejections == rejections{"sm_88: rejected by the compiler"});
  }
}

TEST_CASE("unknown newer device", "[scenario]") {
  SECTION("strict: unknown to the compiler and the table") {
    const machine m{nvrtc({13, 0}, nvrtc_13_0), std::vector<compute_capability>{{15, 0}}, cuda_version{13, 0}};
    const auto o = resolve_on(m, "native", strict());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_150a: unknown architecture"});
  }
  SECTION("PTX fallback: the newest PTX the compiler builds, checked against the driver") {
    const machine m{nvrtc({13, 0}, nvrtc_13_0), std::vector<compute_capability>{{15, 0}}, cuda_version{13, 0}};
    const auto o = resolve_on(m, "native", fallback());
    CHECK(o.targets == "compute_121");
    CHECK(o.transformed == "sm_150a->compute_121");
  }
  SECTION("the same from the table alone") {
    const machine m{table_compiler({13, 0}), std::vector<compute_capability>{{15, 0}}, cuda_version{13, 0}};
    CHECK(resolve_on(m, "native", fallback()).targets == "compute_121");
  }
}

TEST_CASE("suffixes are kept verbatim", "[scenario]") {
  const machine cuda13{table_compiler({13, 0}), std::nullopt, std::nullopt};
  CHECK(resolve_on(cuda13, "10.0;10.0a", strict()).targets == "sm_100 sm_100a");
  CHECK(resolve_on(cuda13, "12.0", strict()).targets == "sm_120");
  CHECK(resolve_on(cuda13, "sm_100f;120f", strict()).targets == "sm_100f sm_120f");
  CHECK(resolve_on(cuda13, "9.0a;12.0+PTX", strict(), arch_dialect::torch).targets == "sm_90a sm_120 compute_120");
  SECTION("an unbuildable a target is never downgraded to baseline") {
    const machine cuda118{table_compiler({11, 8}), std::nullopt, std::nullopt};
    CHECK(resolve_on(cuda118, "9.0a", strict()).rejections == rejections{"sm_90a: needs a newer toolkit"});
    CHECK(resolve_on(cuda118, "9.0a", best_effort()).error == "nothing resolved");
    const machine cuda128{table_compiler({12, 8}), std::nullopt, std::nullopt};
    CHECK(resolve_on(cuda128, "12.1a", strict()).rejections == rejections{"sm_121a: needs a newer toolkit"});
    CHECK(resolve_on(cuda128, "12.0f", strict()).rejections == rejections{"sm_120f: needs a newer toolkit"});
  }
}

TEST_CASE("PTX fallback with a driver too old for the PTX", "[scenario]") {
  SECTION("the fallback is refused, with both reasons") {
    const machine m{table_compiler({12, 6}), std::vector<compute_capability>{{12, 0}}, cuda_version{12, 4}};
    const auto o = resolve_on(m, "native", best_effort_fallback());
    CHECK(o.error == "nothing resolved");
    CHECK(o.rejections == rejections{"sm_120a: needs a newer toolkit / PTX fallback: PTX too new for the driver"});
  }
  SECTION("without a driver source the fallback cannot be checked, so it is refused") {
    const machine m{table_compiler({12, 6}), std::vector<compute_capability>{{12, 0}}, std::nullopt};
    CHECK(resolve_on(m, "native", fallback()).rejections ==
          rejections{"sm_120a: needs a newer toolkit / PTX fallback: library not found"});
  }
  SECTION("explicit PTX is checked against a given driver") {
    const machine m{nvrtc({13, 0}, nvrtc_13_0), std::nullopt, cuda_version{12, 8}};
    CHECK(resolve_on(m, "compute_90", strict()).rejections == rejections{"compute_90: PTX too new for the driver"});
    const auto o = resolve_on(m, "9.0+PTX", best_effort());
    CHECK(o.targets == "sm_90");
    CHECK(o.rejections == rejections{"compute_90: PTX too new for the driver"});
  }
  SECTION("all: the forward-compatible PTX is dropped under best effort, the machine code stays") {
    const machine m{table_compiler({13, 0}), std::nullopt, cuda_version{12, 9}};
    const auto o = resolve_on(m, "all", best_effort());
    CHECK(o.targets == "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121");
    CHECK(o.rejections == rejections{"compute_120: PTX too new for the driver"});
  }
}

TEST_CASE("all and all-major, relative to the compile toolkit", "[scenario]") {
  // What nvcc -arch=all|all-major embeds (tests/data/nvcc_flags_13.0.tsv): machine code for each, PTX of the newest major.
  CHECK(
      resolve_on(machine{table_compiler({13, 0}), std::nullopt, std::nullopt}, "all", strict()).targets ==
      "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 compute_120 sm_121");  // PTX: nvcc -arch=all's
  CHECK(resolve_on(machine{table_compiler({13, 0}), std::nullopt, std::nullopt}, "all-major", strict()).targets ==
        "sm_75 sm_80 sm_90 sm_100 sm_110 sm_120 compute_120");
  CHECK(resolve_on(machine{table_compiler({12, 9}), std::nullopt, std::nullopt}, "all-major", strict()).targets ==
        "sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_120 compute_120");
  CHECK(resolve_on(machine{table_compiler({11, 8}), std::nullopt, std::nullopt}, "all", strict()).targets ==
        "sm_35 sm_37 sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 compute_90");
  CHECK(resolve_on(machine{nvrtc({13, 0}, {120, 90, 75, 90}), std::nullopt, std::nullopt}, "all", strict()).targets ==
        "sm_75 sm_90 sm_120 compute_120");  // the compiler's list, sorted and unique
  CHECK(resolve_on(machine{nvrtc({13, 0}, {}), std::nullopt, std::nullopt}, "all", strict()).error == "nothing resolved");
}

TEST_CASE("no code path returns an empty set", "[scenario][property]") {
  // Every combination of request, compiler, devices, driver and policy either fails with a typed
  // error or resolves to a non-empty set in which every native device finds something it loads
  // (resolve_on CHECKs both), and never emits machine code a native device cannot load.
  const std::vector<compiler_info> compilers = {table_compiler({11, 8}),
                                                table_compiler({12, 4}),
                                                table_compiler({12, 8}),
                                                table_compiler({12, 9}),
                                                table_compiler({13, 0}),
                                                nvrtc({13, 0}, nvrtc_13_0),
                                                table_compiler(newer_than_table()),
                                                nvrtc({13, 0}, {})};
  const std::vector<std::optional<std::vector<compute_capability>>> device_sets = {
      std::nullopt, std::vector<compute_capability>{}, std::vector<compute_capability>{{9, 0}},
      std::vector<compute_capability>{{7, 0}, {12, 1}}, std::vector<compute_capability>{{10, 1}, {11, 0}, {15, 0}}};
  const std::vector<std::optional<cuda_version>> drivers = {std::nullopt, cuda_version{12, 4}, cuda_version{13, 0}};
  const std::vector<resolve_policy> policies = {strict(), best_effort(), fallback(), best_effort_fallback(),
                                                jit_policy{}};
  const std::vector<std::string> requests = {"native",     "all",        "all-major",  "9.0a;12.0+PTX",
                                             "sm_101;7.0", "compute_90", "10.0f;sm_88"};
  int resolved = 0, failed = 0;
  for (const auto& c : compilers)
    for (const auto& d : device_sets)
      for (const auto& drv : drivers)
        for (const auto& p : policies)
          for (const auto& req : requests) {
            const auto o = resolve_on(machine{c, d, drv}, req, p);
            if (o.error.empty()) {
              ++resolved;
              CHECK_FALSE(o.targets.empty());
            } else {
              ++failed;
              CHECK(o.targets.empty());
            }
          }
  CHECK(resolved > 0);
  CHECK(failed > 0);
}
