// Warm resolution (target and figures: docs/performance.md; no allocation beyond the result). "Warm" = the sources
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
#include <optional>
#include <string>
#include <string_view>
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
compiler_info live_13_0() {
  return compiler_info{source_kind::nvrtc, {13, 0, 88}, "/usr/local/cuda/lib64/libnvrtc.so.13", nvrtc_13_0};
}

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

/// The baseline a JIT library would write by hand: split "9.0a;10.0;12.0+PTX", turn each token into
/// an sm number, keep it when the compiler's list has it, and build "sm_XY[a]" strings. No
/// provenance, no diagnostics, no table: the floor the resolver's ratio is measured against.
std::vector<std::string> handwritten_resolve(std::string_view list, const std::vector<int>& live) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const std::size_t end = list.find(';');
    std::string_view tok = list.substr(0, end);
    list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
    const bool ptx = tok.size() > 4 && tok.substr(tok.size() - 4) == "+PTX";
    if (ptx) tok.remove_suffix(4);
    const bool a = !tok.empty() && tok.back() == 'a';
    if (a) tok.remove_suffix(1);
    int major = 0, minor = 0;
    std::size_t i = 0;
    for (; i < tok.size() && tok[i] != '.'; ++i) major = major * 10 + (tok[i] - '0');
    if (i + 1 < tok.size()) minor = tok[i + 1] - '0';
    const int sm = major * 10 + minor;
    bool listed = false;
    for (const int l : live) listed = listed || l == sm;
    if (!listed) continue;
    out.push_back((ptx ? "compute_" : "sm_") + std::to_string(sm) + (a ? "a" : ""));
  }
  return out;
}
void handwritten_baseline(benchmark::State& state) {
  measure(state, [&] {
    auto v = handwritten_resolve("9.0a;10.0;12.0+PTX", nvrtc_13_0);
    return std::optional<std::vector<std::string>>(std::move(v));
  });
}
void handwritten_cache_key(benchmark::State& state) {  // path | full version | targets, by hand
  const std::string path = "/usr/local/cuda/lib64/libnvrtc.so.13";
  for (auto _ : state) {
    std::string k = path;
    k += '|';
    k += std::to_string(13);
    k += '.';
    k += std::to_string(0);
    k += '.';
    k += std::to_string(88);
    k += "|sm_90a";
    benchmark::DoNotOptimize(k);
  }
}

// "Is cuarch's table older than this compiler?" runs on every resolve: the former scan of the table
// per listed arch (kept here as the baseline) against the precomputed bitmap now used.
bool table_older_by_scan(const compiler_info& compiler) {
  if (newest_known_toolkit() < compiler.version.release()) return true;
  if (!compiler.supported_sm_numbers) return false;
  for (const int sm : *compiler.supported_sm_numbers)
    if (arch_index(compute_capability{sm / 10, sm % 10}) == not_found) return true;
  return false;
}
void table_older_scan(benchmark::State& state) {
  const compiler_info c = live_13_0();
  for (auto _ : state) {
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(table_older_by_scan(c));
  }
}
void table_older_bitmap(benchmark::State& state) {
  const compiler_info c = live_13_0();
  for (auto _ : state) {
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(table_is_older_than(c));
  }
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

BENCHMARK(handwritten_baseline);
BENCHMARK(explicit_list_table);
BENCHMARK(explicit_list_live);
BENCHMARK(explicit_list_with_driver);
BENCHMARK(native_one_device);
BENCHMARK(native_mixed_ptx_fallback);
BENCHMARK(all_targets);
BENCHMARK(resolver_fixed_sources);
BENCHMARK(env_override_read);
BENCHMARK(table_older_scan);
BENCHMARK(table_older_bitmap);
BENCHMARK(handwritten_cache_key);
BENCHMARK(cache_key);
