// What a JIT library pays per call when it asks cuarch's sources again in one process, against the
// same questions asked of the libraries directly, in the same program (so the ratio, not the
// absolute time, is the figure; docs/performance.md). Targets: repeated nvrtc_library_source (+
// cuda_runtime_source) <= 1.1x the bare calls; nvrtc_library_source::from_loader() <= 2 us.
//   CUARCH_BENCH_NVRTC / CUARCH_BENCH_CUDART name the libraries (default: CUDA 13.0 here).
// Every benchmark reports the heap allocations of one iteration ("allocs").
#include <cuarch/sources/nvrtc_source.hpp>
#include <cuarch/sources/runtime_source.hpp>

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

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

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
const std::string nvrtc_path = env_or("CUARCH_BENCH_NVRTC", "/usr/local/cuda/lib64/libnvrtc.so.13");
const std::string cudart_path = env_or("CUARCH_BENCH_CUDART", "/usr/local/cuda/lib64/libcudart.so.13");

template <class F>
F* symbol(void* lib, const char* name) {
  void* p = lib ? dlsym(lib, name) : nullptr;
  F* f = nullptr;
  std::memcpy(&f, &p, sizeof f);
  return f;
}

/// The bare calls a JIT library would make itself: nvrtcVersion, nvrtcGetNumSupportedArchs,
/// nvrtcGetSupportedArchs (into a vector, as cuarch returns one) and cudaRuntimeGetVersion, on
/// libraries it opened once.
struct bare_libraries {
  void* nvrtc = dlopen(nvrtc_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* cudart = dlopen(cudart_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  int (*version)(int*, int*) = symbol<int(int*, int*)>(nvrtc, "nvrtcVersion");
  int (*count)(int*) = symbol<int(int*)>(nvrtc, "nvrtcGetNumSupportedArchs");
  int (*archs)(int*) = symbol<int(int*)>(nvrtc, "nvrtcGetSupportedArchs");
  int (*runtime)(int*) = symbol<int(int*)>(cudart, "cudaRuntimeGetVersion");
  bool ok() const { return version && count && archs && runtime; }
};

template <class F>
void measure(benchmark::State& state, F&& f) {
  long long before = 0, after = 0;
  for (auto _ : state) {
    before = allocations.load(std::memory_order_relaxed);
    const bool ok = f();
    after = allocations.load(std::memory_order_relaxed);
    if (!ok) {
      state.SkipWithError("a call failed (is the library there? CUARCH_BENCH_NVRTC / CUARCH_BENCH_CUDART)");
      break;
    }
  }
  state.counters["allocs"] = static_cast<double>(after - before);
}

void bare_nvrtc(benchmark::State& state) {
  static const bare_libraries b;
  if (!b.ok()) return state.SkipWithError("cannot open the libraries");
  measure(state, [&] {
    int major = 0, minor = 0, n = 0;
    if (b.version(&major, &minor) != 0 || b.count(&n) != 0 || n <= 0) return false;
    std::vector<int> archs(static_cast<std::size_t>(n));
    if (b.archs(archs.data()) != 0) return false;
    benchmark::DoNotOptimize(archs.data());
    return true;
  });
}
void bare_nvrtc_cudart(benchmark::State& state) {
  static const bare_libraries b;
  if (!b.ok()) return state.SkipWithError("cannot open the libraries");
  measure(state, [&] {
    int major = 0, minor = 0, n = 0, rt = 0;
    if (b.version(&major, &minor) != 0 || b.count(&n) != 0 || n <= 0) return false;
    std::vector<int> archs(static_cast<std::size_t>(n));
    if (b.archs(archs.data()) != 0 || b.runtime(&rt) != 0) return false;
    benchmark::DoNotOptimize(archs.data());
    return true;
  });
}
void source_nvrtc(benchmark::State& state) {
  const cuarch::nvrtc_library_source nvrtc(nvrtc_path);
  measure(state, [&] {
    auto c = nvrtc.compiler();
    benchmark::DoNotOptimize(c);
    return c.has_value();
  });
}
void source_nvrtc_cudart(benchmark::State& state) {
  const cuarch::nvrtc_library_source nvrtc(nvrtc_path);
  const cuarch::cuda_runtime_source cudart(cudart_path);
  measure(state, [&] {
    auto c = nvrtc.compiler();
    auto r = cudart.observe();
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(r);
    return c.has_value() && r.has_value();
  });
}
void source_nvrtc_observe(benchmark::State& state) {  // the report's view: observation with provenance
  const cuarch::nvrtc_library_source nvrtc(nvrtc_path);
  measure(state, [&] {
    auto o = nvrtc.observe();
    benchmark::DoNotOptimize(o);
    return o.has_value();
  });
}
void bare_dlopen_noload(benchmark::State& state) {  // the floor of "is it loaded": one loader lookup
  static const bare_libraries b;
  if (!b.ok()) return state.SkipWithError("cannot open the libraries");
  measure(state, [&] {
    void* h = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!h) return false;
    dlclose(h);
    return true;
  });
}
void bare_nvrtc_cudart_stat(benchmark::State& state) {  // the bare calls plus the one re-validation a source makes
  static const bare_libraries b;
  if (!b.ok()) return state.SkipWithError("cannot open the libraries");
  measure(state, [&] {
    struct stat st {};
    if (::stat(nvrtc_path.c_str(), &st) != 0 || ::stat(cudart_path.c_str(), &st) != 0) return false;
    int major = 0, minor = 0, n = 0, rt = 0;
    if (b.version(&major, &minor) != 0 || b.count(&n) != 0 || n <= 0) return false;
    std::vector<int> archs(static_cast<std::size_t>(n));
    if (b.archs(archs.data()) != 0 || b.runtime(&rt) != 0) return false;
    benchmark::DoNotOptimize(archs.data());
    return true;
  });
}
void from_loader(benchmark::State& state) {  // constructed and asked per call, as a JIT library would
  measure(state, [&] {
    auto c = cuarch::nvrtc_library_source::from_loader().compiler();
    benchmark::DoNotOptimize(c);
    return c.has_value();
  });
}

}  // namespace

BENCHMARK(bare_nvrtc);
BENCHMARK(source_nvrtc);
BENCHMARK(source_nvrtc_observe);
BENCHMARK(bare_nvrtc_cudart);
BENCHMARK(source_nvrtc_cudart);
BENCHMARK(bare_nvrtc_cudart_stat);
BENCHMARK(bare_dlopen_noload);
BENCHMARK(from_loader);
