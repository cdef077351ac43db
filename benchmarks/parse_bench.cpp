// Parsing cost per token (target <= 50 ns per token: docs/performance.md), for each dialect and for whole lists.
// Parsing is constexpr and allocation-free; these figures are its run-time cost.
#include <cuarch/core/parse.hpp>

#include <benchmark/benchmark.h>

#include <string_view>

namespace {

/// Reports seconds per token (printed as e.g. "21.4n"): the inverse of tokens per second.
void per_token(benchmark::State& state, double tokens) {
  state.counters["s_per_token"] = benchmark::Counter(
      tokens, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void parse_list(benchmark::State& state, std::string_view input, cuarch::arch_dialect dialect, double tokens) {
  for (auto _ : state) {
    auto r = cuarch::parse_arch_list(input, dialect);
    benchmark::DoNotOptimize(r);
  }
  per_token(state, tokens);
}

void parse_one(benchmark::State& state, std::string_view token, cuarch::arch_dialect dialect) {
  for (auto _ : state) {
    auto r = cuarch::parse_arch_token(token, dialect);
    benchmark::DoNotOptimize(r);
  }
  per_token(state, 1);
}

}  // namespace

BENCHMARK_CAPTURE(parse_one, sm_90a, "sm_90a", cuarch::arch_dialect::generic);
BENCHMARK_CAPTURE(parse_one, dotted_12_0a, "12.0a", cuarch::arch_dialect::generic);
BENCHMARK_CAPTURE(parse_one, cmake_90a_real, "90a-real", cuarch::arch_dialect::cmake);
BENCHMARK_CAPTURE(parse_one, torch_8_6_ptx, "8.6+PTX", cuarch::arch_dialect::torch);

BENCHMARK_CAPTURE(parse_list, generic_7_tokens, "7.5;8.0;8.6;8.9;9.0a;10.0f;12.0+PTX", cuarch::arch_dialect::generic, 7);
BENCHMARK_CAPTURE(parse_list, torch_6_tokens, "7.5 8.0 8.6 9.0a 10.0 12.0+PTX", cuarch::arch_dialect::torch, 6);
BENCHMARK_CAPTURE(parse_list, cmake_6_tokens, "75-real;80-real;90a-real;100f;120-real;121", cuarch::arch_dialect::cmake,
                  6);
BENCHMARK_CAPTURE(parse_list, nvcc_3_flags,
                  "-gencode=arch=compute_90a,code=sm_90a -arch=sm_100 --gpu-architecture=compute_120",
                  cuarch::arch_dialect::nvcc, 3);
BENCHMARK_CAPTURE(parse_list, keyword_native, "native", cuarch::arch_dialect::generic, 1);
