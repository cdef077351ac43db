// Warm resolution (DESIGN §7: <= 1 us, no allocation beyond the result). "Warm" = the sources
// have already been asked (the compiler described by value, devices given): what a JIT library
// pays per kernel launch configuration once detection is cached. Every benchmark reports the heap
// allocations of one resolve ("allocs"): the result's diagnostics vector is the one expected.
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

// ---- allocation counting (this program only) --------------------------------------------------
namespace {
std::atomic<long long> allocations{0};
}  // namespace
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace cuarch;

const std::vector<int> nvrtc_13_0 = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

compiler_info table_13_0() { return compiler_info{source_kind::knowledge_table, {13, 0, -1}, "", std::nullopt}; }
compiler_info live_13_0() { return compiler_info{source_kind::nvrtc, {13, 0, 88}, "/usr/local/cuda/lib64/libnvrtc.so.13", nvrtc_13_0}; }

arch_request request(std::string_view list) {
  arch_request r;
  r.list = list;
  r.overrides = env_override::none;  // the environment is read per resolve when allowed; see env_override_read
  return r;
}

/// Runs f() per iteration and reports allocations per iteration.
template <class F>
void measure(benchmark::State& state, F&& f) {
  long long before = 0, after = 0;
  for (auto _ : state) {
    before = allocations.load(std::memory_order_relaxed);
    auto r = f();
    after = allocations.load(std::memory_order_relaxed);
    if (!r) state.SkipWithError("resolution failed");
    benchmark::DoNotOptimize(r);
  }
  state.counters["allocs"] = static_cast<double>(after - before);
}

void explicit_list_table(benchmark::State& state) {
  const compiler_info c = table_13_0();
  const arch_request r = request("9.0a;10.0");
  measure(state, [&] { return resolve_target_archs(r, c); });
}
void explicit_list_live(benchmark::State& state) {
  const compiler_info c = live_13_0();
  const arch_request r = request("9.0a;10.0;12.0+PTX");
  measure(state, [&] { return resolve_target_archs(r, c); });
}
void explicit_list_with_driver(benchmark::State& state) {
  const compiler_info c = live_13_0();
  const arch_request r = request("sm_90a;compute_90");
  const fixed_driver driver({13, 0});
  measure(state, [&] { return resolve_target_archs(r, c, no_devices{}, strict_policy{}, driver); });
}
void native_one_device(benchmark::State& state) {
  const compiler_info c = live_13_0();
  const arch_request r = request("native");
  const fixed_devices devices{{9, 0}};  // its devices() copies the list: one more allocation
  measure(state, [&] { return resolve_target_archs(r, c, devices); });
}
void native_mixed_ptx_fallback(benchmark::State& state) {
  const compiler_info c{source_kind::knowledge_table, {12, 4, -1}, "", std::nullopt};
  const arch_request r = request("native");
  const fixed_devices devices{{8, 6}, {12, 0}};
  measure(state, [&] { return resolve_target_archs(r, c, devices, jit_policy{}, fixed_driver({12, 8})); });
}
void all_targets(benchmark::State& state) {
  const compiler_info c = table_13_0();
  const arch_request r = request("all");
  measure(state, [&] { return resolve_target_archs(r, c); });
}
void resolver_fixed_sources(benchmark::State& state) {
  // Through the resolver type: fixed_compiler::compiler() copies compiler_info (its list allocates).
  const resolver res(fixed_compiler({13, 0}, nvrtc_13_0), fixed_devices{{9, 0}}, jit_policy{}, fixed_driver({13, 0}));
  const arch_request r = request("native");
  measure(state, [&] { return res.resolve(r); });
}
void env_override_read(benchmark::State& state) {
  // The default request reads CUARCH_ARCHS (unset here: the request stays "9.0a").
  const compiler_info c = table_13_0();
  arch_request r;
  r.list = "9.0a";
  measure(state, [&] { return resolve_target_archs(r, c); });
}
void cache_key(benchmark::State& state) {
  const compiler_info c = live_13_0();
  const auto set = target_set::from({arch_target{{9, 0}, arch_variant::arch_specific, arch_form::sass}});
  for (auto _ : state) {
    auto k = jit_cache_key(c, *set);
    benchmark::DoNotOptimize(k);
  }
}

}  // namespace

BENCHMARK(explicit_list_table);
BENCHMARK(explicit_list_live);
BENCHMARK(explicit_list_with_driver);
BENCHMARK(native_one_device);
BENCHMARK(native_mixed_ptx_fallback);
BENCHMARK(all_targets);
BENCHMARK(resolver_fixed_sources);
BENCHMARK(env_override_read);
BENCHMARK(cache_key);
