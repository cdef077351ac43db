// resolve_target_archs() mechanics: environment overrides, lazy sources, the compiler's list vs the
// table, policies, diagnostics and failures. (The scenario matrix lives in scenario_test.cpp.)
#include <cuarch/resolve/compiler_rules.hpp>
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/core/literals.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "target_names.hpp"
#include "test_support.hpp"

using namespace cuarch;

namespace {

arch_request request(std::string_view list, arch_dialect dialect = arch_dialect::generic) {
  arch_request r;
  r.list = list;
  r.dialect = dialect;
  r.overrides = env_override::none;
  return r;
}

const std::vector<int> nvrtc_13_0 = {
    75, 80,  86,  87,  88,  89,
    90, 100, 103, 110, 120, 121};  // nvrtcGetSupportedArchs of NVRTC 13.0 (tests/data/nvrtc_releases.tsv)

compiler_info nvrtc(cuda_version v, std::vector<int> archs) {
  compiler_info c;
  c.kind = source_kind::nvrtc;
  c.version = v;
  c.location = "/opt/cuda/lib64/libnvrtc.so.13";
  c.supported_sm_numbers = std::move(archs);
  return c;
}

// ---- a fake environment: the snapshot the request reads its overrides from ------------------------
struct fake_env {
  static inline environment snapshot;
  fake_env(const char* c, const char* t, const char* m) {
    snapshot = environment{};
    if (c) snapshot.set("CUARCH_ARCHS", c);
    if (t) snapshot.set("TORCH_CUDA_ARCH_LIST", t);
    if (m) snapshot.set("CUDAARCHS", m);
  }
  ~fake_env() { snapshot = environment{}; }
};

arch_request env_request(std::string_view list, env_override overrides) {
  arch_request r;
  r.list = list;
  r.overrides = overrides;
  r.env = &fake_env::snapshot;
  return r;
}

// ---- sources that count how often they are asked ----------------------------------------------
struct counting_devices {
  int* calls;
  std::vector<compute_capability> ccs;
  expected<std::vector<device_info>, error> devices() const {
    ++*calls;
    return fixed_devices(ccs).devices();
  }
};
struct counting_driver {
  int* calls;
  cuda_version version;
  expected<observation, error> driver_version() const {
    ++*calls;
    return fixed_driver(version).driver_version();
  }
};
struct failing_compiler {
  expected<compiler_info, error> compiler() const {
    return unexpected(errors::library_not_found(source_kind::nvrtc, "libnvrtc.so.13"));
  }
};

}  // namespace

TEST_CASE("CUARCH_ARCHS overrides the request before any device is asked", "[resolve][env]") {
  const fake_env env("9.0a;10.0", nullptr, nullptr);
  int device_calls = 0;
  const auto r = resolve_target_archs(env_request("native", env_override::cuarch_archs), fixed_compiler({13, 0}),
                                      counting_devices{&device_calls, {{8, 6}}});
  REQUIRE(r);
  CHECK(names(r->targets) == "sm_90a sm_100");
  CHECK(device_calls == 0);
  CHECK(r->origin.source == source_kind::environment);
  CHECK(r->origin.variable == "CUARCH_ARCHS");
  CHECK(r->keyword == arch_keyword::none);
}

TEST_CASE("TORCH_CUDA_ARCH_LIST and CUDAARCHS are read only when asked, in their own dialects", "[resolve][env]") {
  const fake_env env(nullptr, "8.6+PTX", "90a-real;100");
  const auto plain = resolve_target_archs(env_request("7.5", env_override::cuarch_archs), fixed_compiler({13, 0}));
  REQUIRE(plain);
  CHECK(names(plain->targets) == "sm_75");
  CHECK(plain->origin.source == source_kind::user_input);

  const auto torch = resolve_target_archs(
      env_request("7.5", env_override::cuarch_archs | env_override::torch_cuda_arch_list), fixed_compiler({13, 0}));
  REQUIRE(torch);
  CHECK(names(torch->targets) == "sm_86 compute_86");
  CHECK(torch->origin.variable == "TORCH_CUDA_ARCH_LIST");

  const auto cmake = resolve_target_archs(env_request("7.5", env_override::cudaarchs), fixed_compiler({13, 0}));
  REQUIRE(cmake);
  CHECK(names(cmake->targets) == "sm_90a sm_100 compute_100");  // CMake: a bare 100 is SASS + PTX
  CHECK(cmake->origin.variable == "CUDAARCHS");
}

TEST_CASE("environment precedence: CUARCH_ARCHS, then TORCH_CUDA_ARCH_LIST, then CUDAARCHS; blank is unset",
          "[resolve][env]") {
  const env_override all = env_override::cuarch_archs | env_override::torch_cuda_arch_list | env_override::cudaarchs;
  {
    const fake_env env("12.0", "8.6", "75");
    CHECK(read_request(env_request("native", all)).list == "12.0");
  }
  {
    const fake_env env("  \t", "8.6", "75");
    const auto req = read_request(env_request("native", all));
    CHECK(req.list == "8.6");
    CHECK(req.dialect == arch_dialect::torch);
  }
  {
    const fake_env env("", "", "75");
    const auto req = read_request(env_request("native", all));
    CHECK(req.list == "75");
    CHECK(req.dialect == arch_dialect::cmake);
  }
  {
    const fake_env env("12.0", nullptr, nullptr);
    const auto req = read_request(env_request("native", env_override::none));
    CHECK(req.list == "native");
    CHECK(req.origin.source == source_kind::user_input);
  }
}

TEST_CASE("a malformed environment value is an error naming the variable, never ignored", "[resolve][env]") {
  const fake_env env("9.0;sm_", nullptr, nullptr);
  int device_calls = 0;
  const auto r = resolve_target_archs(env_request("native", env_override::cuarch_archs), fixed_compiler({13, 0}),
                                      counting_devices{&device_calls, {{9, 0}}});
  REQUIRE_FALSE(r);
  CHECK(r.error().summary.code == errc::malformed_token);
  CHECK(r.error().summary.position == 4);
  CHECK(r.error().summary.source == source_kind::environment);
  CHECK(r.error().summary.location.view() == "CUARCH_ARCHS");
  CHECK(r.error().message().find("CUARCH_ARCHS") != std::string::npos);
  CHECK(device_calls == 0);
}

TEST_CASE("sources are asked lazily: devices only for native, the driver only for PTX, once", "[resolve][lazy]") {
  int device_calls = 0, driver_calls = 0;
  const counting_devices devices{&device_calls, {{9, 0}}};
  const counting_driver driver{&driver_calls, {13, 0}};

  REQUIRE(resolve_target_archs(request("9.0a;10.0"), fixed_compiler({13, 0}), devices, strict_policy{}, driver));
  CHECK(device_calls == 0);
  CHECK(driver_calls == 0);

  REQUIRE(resolve_target_archs(request("compute_80;compute_90;8.6+PTX"), fixed_compiler({13, 0}), devices,
                               strict_policy{}, driver));
  CHECK(device_calls == 0);
  CHECK(driver_calls == 1);

  REQUIRE(resolve_target_archs(request("native"), fixed_compiler({13, 0}), devices, strict_policy{}, driver));
  CHECK(device_calls == 1);
  CHECK(driver_calls == 1);  // sm_90a needs no driver

  jit_policy verify;
  REQUIRE(resolve_target_archs(request("sm_90"), fixed_compiler({13, 0}), devices, verify, driver));
  CHECK(device_calls == 2);  // verify_on_devices asks for explicit lists too
}

TEST_CASE("a failing compiler source is the failure, with its own error", "[resolve]") {
  const auto r = resolve_target_archs(request("9.0"), failing_compiler{});
  REQUIRE_FALSE(r);
  CHECK(r.error().summary.code == errc::library_not_found);
  CHECK(r.error().diagnostics.empty());
}

TEST_CASE("the compiler's list decides baseline archs; the table decides variants", "[resolve][live]") {
  SECTION("an arch the list has but the table does not know is buildable") {
    const auto c = nvrtc({14, 0}, {90, 100, 120, 130});
    const auto v = check_buildable_by(arch_target{{13, 0}, arch_variant::baseline, arch_form::sass}, c);
    REQUIRE(v);
    CHECK(v->decided_by == source_kind::nvrtc);
    CHECK(table_is_older_than(c));
    CHECK(table_is_older_than(nvrtc({13, 0}, {150, 75, 90})));  // unsorted lists are looked up one by one
    CHECK_FALSE(table_is_older_than(nvrtc({13, 0}, {120, 75, 90})));
    CHECK_FALSE(table_is_older_than(nvrtc({13, 0}, nvrtc_13_0)));
    CHECK(table_is_older_than(nvrtc({13, 0}, {75, 80, 85})));  // 8.5 is in no table row
  }
  SECTION("an arch the table claims but the list lacks is rejected by the compiler") {
    std::vector<int> without_88 = nvrtc_13_0;
    without_88.erase(std::find(without_88.begin(), without_88.end(), 88));
    const auto v = check_buildable_by(CUARCH_ARCH("sm_88"), nvrtc({13, 0}, without_88));
    REQUIRE_FALSE(v);
    CHECK(v.error().code == errc::rejected_by_compiler);
    CHECK(v.error().source == source_kind::nvrtc);
    CHECK(v.error().location.view() == "/opt/cuda/lib64/libnvrtc.so.13");
    CHECK(v.error().message().find("sm_88 is not supported by the compiler, CUDA 13.0") != std::string::npos);
  }
  SECTION("when list and table agree, the table's reason is kept") {
    const auto v = check_buildable_by(CUARCH_ARCH("sm_70"), nvrtc({13, 0}, nvrtc_13_0));
    REQUIRE_FALSE(v);
    CHECK(v.error().code == errc::removed_in_toolkit);
  }
  SECTION("a release newer than the table keeps every variant the newest known release builds") {
    const auto c = nvrtc({14, 0}, {75, 80, 90, 100, 120, 130});
    CHECK(check_buildable_by(CUARCH_ARCH("sm_120a"), c));
    CHECK(check_buildable_by(CUARCH_ARCH("sm_100f"), c));
    CHECK(check_buildable_by(CUARCH_ARCH("sm_90a"), c)->decided_by == source_kind::knowledge_table);
    CHECK(check_buildable_by(arch_target{{13, 0}, arch_variant::arch_specific, arch_form::sass}, c).error().code ==
          errc::unknown_arch);
    CHECK(check_buildable_by(arch_target{{9, 0}, arch_variant::family_specific, arch_form::sass}, c).error().code ==
          errc::variant_not_defined);
  }
  SECTION("a variant still needs its first release when the table knows the compiler") {
    const auto v = check_buildable_by(CUARCH_ARCH("sm_100f"), nvrtc({12, 8}, {75, 80, 86, 87, 89, 90, 100, 101, 120}));
    REQUIRE_FALSE(v);
    CHECK(v.error().code == errc::needs_newer_toolkit);
    CHECK(v.error().required == cuda_version{12, 9});
  }
  SECTION(
      "the list overrides only what it knows better: a listed arch is not removed; an unlisted variant is explained") {
    // A 13.0 compiler that still lists sm_101 (the table says 13.0 renamed it sm_110): its variants stay buildable.
    const auto c = nvrtc({13, 0}, {90, 100, 101, 120});
    CHECK(check_buildable_by(CUARCH_ARCH("sm_101a"), c)->decided_by == source_kind::knowledge_table);
    CHECK(check_buildable_by(CUARCH_ARCH("sm_101"), c)->decided_by == source_kind::nvrtc);
    CHECK(check_buildable_by(CUARCH_ARCH("sm_101a"), nvrtc({13, 0}, nvrtc_13_0)).error().code ==
          errc::renamed_in_toolkit);
    const auto unknown = check_buildable_by(arch_target{{13, 0}, arch_variant::arch_specific, arch_form::sass},
                                            nvrtc({14, 0}, {130}));
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == errc::unknown_arch);
    CHECK(unknown.error().message().find(
              "the compiler lists sm_130, but cuarch's table cannot tell whether its 'a' variant exists") !=
          std::string::npos);
  }
  SECTION("without a list, the table decides") {
    CHECK(check_buildable_by(CUARCH_ARCH("sm_120a"),
                             compiler_info{source_kind::knowledge_table, {12, 4}, "", std::nullopt})
              .error()
              .code == errc::needs_newer_toolkit);
    const cuda_version newest = newest_known_toolkit();
    CHECK_FALSE(table_is_older_than(compiler_info{source_kind::nvcc, newest, "", std::nullopt}));
    CHECK(table_is_older_than(compiler_info{source_kind::nvcc, {newest.major, newest.minor + 1, -1}, "", std::nullopt}));
  }
}

TEST_CASE("diagnostics name each token, where it was, and what it became", "[resolve][diagnostics]") {
  const auto r = resolve_target_archs(request("9.0a compute_100;Hopper", arch_dialect::torch), fixed_compiler({13, 0}));
  REQUIRE_FALSE(r);  // compute_100 is not torch spelling
  CHECK(r.error().summary.code == errc::malformed_token);
  CHECK(r.error().summary.position == 5);

  const auto ok = resolve_target_archs(request("9.0a 8.6+PTX;Hopper", arch_dialect::torch), fixed_compiler({13, 0}));
  REQUIRE(ok);
  CHECK(names(ok->targets) == "sm_86 compute_86 sm_90 compute_90 sm_90a");
  REQUIRE(ok->diagnostics.size() == 5);
  CHECK(ok->diagnostics[0].input.view() == "9.0a");
  CHECK(ok->diagnostics[0].position == 0);
  CHECK(ok->diagnostics[1].input.view() == "8.6+PTX");
  CHECK(ok->diagnostics[1].position == 5);
  CHECK(ok->diagnostics[2].requested == CUARCH_ARCH("compute_86"));
  CHECK(ok->diagnostics[3].input.view() == "Hopper");
  CHECK(ok->diagnostics[3].position == 13);
  for (const auto& d : ok->diagnostics) {
    CHECK(d.outcome == resolution_outcome::kept);
    CHECK_FALSE(d.reason);
    CHECK(d.decided_by == source_kind::knowledge_table);
  }
  CHECK(ok->diagnostics[0].message() == "'9.0a' at position 0: sm_90a kept");
}

TEST_CASE("a strict failure carries every per-target reason", "[resolve][failure]") {
  const auto r = resolve_target_archs(request("sm_70;sm_101;9.0a;sm_120a"), fixed_compiler({12, 4}));
  REQUIRE_FALSE(r);
  const resolution_failure& f = r.error();
  CHECK(f.summary.code == errc::nothing_resolved);
  REQUIRE(f.diagnostics.size() == 4);
  CHECK(f.diagnostics[0].outcome == resolution_outcome::kept);        // sm_70 builds with 12.4
  CHECK(f.diagnostics[1].reason->code == errc::needs_newer_toolkit);  // sm_101: 12.8
  CHECK(f.diagnostics[2].outcome == resolution_outcome::kept);
  CHECK(f.diagnostics[3].reason->code == errc::needs_newer_toolkit);  // sm_120a: 12.8
  const std::string m = f.message();
  CHECK(m.find("strict policy, 2 of 4 rejected") != std::string::npos);
  CHECK(m.find("sm_101 needs CUDA >= 12.8 (have 12.4)") != std::string::npos);
  CHECK(m.find("sm_120a needs CUDA >= 12.8 (have 12.4)") != std::string::npos);
  CHECK(m.find("sm_70 kept") == std::string::npos);  // the failure lists rejected requests only
}

TEST_CASE("best effort drops, reports, and still fails when nothing remains", "[resolve][policy]") {
  const auto r = resolve_target_archs(request("sm_70;sm_120a"), fixed_compiler({12, 4}), no_devices{},
                                      best_effort_policy{});
  REQUIRE(r);
  CHECK(names(r->targets) == "sm_70");
  REQUIRE(r->diagnostics.size() == 2);
  CHECK(r->diagnostics[1].outcome == resolution_outcome::rejected);
  CHECK(r->diagnostics[1].reason->code == errc::needs_newer_toolkit);

  const auto none = resolve_target_archs(request("sm_120a;sm_100"), fixed_compiler({12, 4}), no_devices{},
                                         best_effort_policy{});
  REQUIRE_FALSE(none);
  CHECK(none.error().summary.code == errc::nothing_resolved);
  CHECK(none.error().message().find("best-effort policy, 2 of 2 rejected") != std::string::npos);
}

TEST_CASE("renames are followed only when the policy says so", "[resolve][policy]") {
  resolve_policy follow;
  follow.follow_renames = true;
  const auto r = resolve_target_archs(request("sm_101f"), fixed_compiler({13, 0}), no_devices{}, follow);
  REQUIRE(r);
  CHECK(names(r->targets) == "sm_110f");
  CHECK(r->diagnostics[0].outcome == resolution_outcome::transformed);
  CHECK(r->diagnostics[0].reason->code == errc::renamed_in_toolkit);
  CHECK(r->diagnostics[0].message().find("sm_101f -> sm_110f, because sm_101f was renamed sm_110f in CUDA 13.0") !=
        std::string::npos);

  const auto strict = resolve_target_archs(request("sm_101f"), fixed_compiler({13, 0}));
  REQUIRE_FALSE(strict);
  CHECK(strict.error().diagnostics[0].reason->replacement == CUARCH_ARCH("sm_110f"));
}

TEST_CASE("the native variant is configurable, for every device or per device", "[resolve][native]") {
  resolve_policy baseline;
  baseline.native_preferences = *parse_native_variant_spec("baseline");
  const auto b = resolve_target_archs(request("native"), fixed_compiler({13, 0}), fixed_devices{{9, 0}, {12, 0}},
                                      baseline);
  REQUIRE(b);
  CHECK(names(b->targets) == "sm_90 sm_120");

  resolve_policy family;
  family.native_preferences = *parse_native_variant_spec("f");
  const auto f = resolve_target_archs(request("native"), fixed_compiler({13, 0}), fixed_devices{{9, 0}, {12, 1}},
                                      family);
  REQUIRE(f);
  CHECK(names(f->targets) == "sm_90 sm_121f");  // no f for 9.0: baseline, by design (kept)
  CHECK(f->diagnostics[0].outcome == resolution_outcome::kept);

  resolve_policy family_for_blackwell;  // family code for 10.x, baseline elsewhere
  family_for_blackwell.native_preferences = *parse_native_variant_spec("10=f,default=baseline");
  const auto custom = resolve_target_archs(request("native"), fixed_compiler({13, 0}), fixed_devices{{9, 0}, {10, 3}},
                                           family_for_blackwell);
  REQUIRE(custom);
  CHECK(names(custom->targets) == "sm_90 sm_103f");
}

TEST_CASE("verify_on_devices: explicit targets must load on a device, and every device must load something",
          "[resolve][verify]") {
  jit_policy jit;
  const auto refused = resolve_target_archs(request("sm_120a"), fixed_compiler({13, 0}), fixed_devices{{9, 0}}, jit,
                                            fixed_driver({13, 0}));
  REQUIRE_FALSE(refused);
  REQUIRE(refused.error().diagnostics.size() == 1);
  CHECK(refused.error().diagnostics[0].reason->code == errc::cannot_load_on_device);
  CHECK(refused.error().diagnostics[0].reason->device == compute_capability{9, 0});

  const auto partial = resolve_target_archs(request("sm_90a"), fixed_compiler({13, 0}), fixed_devices{{9, 0}, {12, 0}},
                                            jit, fixed_driver({13, 0}));
  REQUIRE_FALSE(partial);  // the 12.0 device is left with nothing
  REQUIRE(partial.error().diagnostics.size() == 2);
  CHECK(partial.error().diagnostics[1].device->cc == compute_capability{12, 0});
  CHECK(partial.error().diagnostics[1].reason->code == errc::cannot_load_on_device);

  const auto both = resolve_target_archs(request("sm_90a;compute_90"), fixed_compiler({13, 0}),
                                         fixed_devices{{9, 0}, {12, 0}}, jit, fixed_driver({13, 0}));
  REQUIRE(both);
  CHECK(names(both->targets) == "compute_90 sm_90a");
}

TEST_CASE("the resolver type binds sources and policy; CTAD picks them up", "[resolve][resolver]") {
  const resolver jit(fixed_compiler({13, 0}, nvrtc_13_0), fixed_devices{{9, 0}}, jit_policy{}, fixed_driver({13, 0}));
  const auto r = jit.resolve(request("native"));
  REQUIRE(r);
  CHECK(names(r->targets) == "sm_90a");
  CHECK(r->compiler_kind == source_kind::nvrtc);
  CHECK(r->compiler_version == cuda_version{13, 0});
  CHECK_FALSE(r->table_older_than_compiler);
  static_assert(std::is_same_v<decltype(jit), const resolver<fixed_compiler, fixed_devices, fixed_driver>>);

  const resolver build(fixed_compiler({12, 8}));
  const auto b = build.resolve(request("all-major"));
  REQUIRE(b);
  CHECK(names(b->targets) == "sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_120 compute_120");
  const auto n = build.resolve(request("native"));
  REQUIRE_FALSE(n);
  CHECK(n.error().summary.code == errc::no_device);
}

TEST_CASE("resolution by value skips the compiler source", "[resolve]") {
  const compiler_info c = nvrtc({13, 0}, nvrtc_13_0);
  const auto r = resolve_target_archs(request("9.0a;compute_90"), c);
  REQUIRE(r);
  CHECK(names(r->targets) == "compute_90 sm_90a");
  CHECK(r->diagnostics[1].decided_by == source_kind::nvrtc);
}

TEST_CASE("a refusal says 'no target could be resolved' only when none was", "[resolve][failure][edges]") {
  // strict: sm_70 builds, sm_120a does not; the policy refuses the whole request.
  const auto some = resolve_target_archs(request("sm_70;sm_120a"), fixed_compiler({12, 4}));
  REQUIRE_FALSE(some);
  CHECK(some.error().summary.code == errc::nothing_resolved);
  CHECK(some.error().message().find("no target could be resolved") == std::string::npos);
  CHECK(some.error().message().find("strict policy, 1 of 2 rejected") != std::string::npos);
  // best-effort keeps device 0's target, but device 1 is left with nothing: refused, and not "none".
  const auto device_left = resolve_target_archs(request("native"), fixed_compiler({13, 0}),
                                                fixed_devices({{9, 0}, {7, 0}}), best_effort_policy{});
  REQUIRE_FALSE(device_left);
  CHECK(device_left.error().message().find("no target could be resolved") == std::string::npos);
  CHECK(device_left.error().message().find("1 of 2 rejected") != std::string::npos);
  // every target rejected: the words are true.
  const auto none = resolve_target_archs(request("sm_120a;sm_100"), fixed_compiler({12, 4}));
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("no target could be resolved for 'sm_120a;sm_100'") != std::string::npos);
}
