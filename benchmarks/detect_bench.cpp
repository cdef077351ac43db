// What detect() costs when the caller needs one role, against detecting everything (the doctor's
// question) and against asking that one source directly, in the same program (docs/performance.md;
// target: a request pays only for its role). Warm: the libraries stay loaded between iterations, as
// in a JIT library that asks again; every detection still walks its discovery order from scratch.
// Runs against this machine's CUDA (CUDA_HOME, PATH, the loader): the figures are this machine's.
#include <cuarch/detect.hpp>
#include <cuarch/sources/nvcc_source.hpp>
#include <cuarch/sources/nvrtc_source.hpp>

#include <benchmark/benchmark.h>

namespace {

cuarch::detect_options one_role(cuarch::detect_role role) {
  cuarch::detect_options o;
  o.roles = role;
  o.mode = cuarch::detect_mode::first_answer;
  o.query_devices = false;
  return o;
}

void detect_every_role(benchmark::State& state) {
  for (auto _ : state) {
    auto d = cuarch::detect({});
    benchmark::DoNotOptimize(d);
  }
}

/// detect() asked for one compile role only, stopped at the candidate that governs it.
void detect_one_role(benchmark::State& state, cuarch::detect_role role, cuarch::selection cuarch::detection::*governing) {
  const auto options = one_role(role);
  for (auto _ : state) {
    auto d = cuarch::detect(options);
    if (!d.compiler_of(d.*governing)) state.SkipWithError("no compiler for this role on this machine");
    benchmark::DoNotOptimize(d);
  }
}

/// The JIT role's own cost: the NVRTC the loader finds, asked once per call (what detection's
/// answer comes down to when nothing else is named).
void nvrtc_source_alone(benchmark::State& state) {
  for (auto _ : state) {
    auto c = cuarch::nvrtc_library_source::from_loader().compiler();
    benchmark::DoNotOptimize(c);
  }
}

/// The offline role's own cost: `nvcc --version` of the nvcc detection chose, run once per call.
void nvcc_source_alone(benchmark::State& state) {
  const auto d = cuarch::detect(one_role(cuarch::detect_role::offline_compiler));
  const cuarch::candidate* c = d.chosen(d.offline_compiler);
  if (!c) {
    state.SkipWithError("no nvcc found on this machine");
    return;
  }
  for (auto _ : state) {
    auto v = cuarch::nvcc_compiler_source(c->path).compiler();
    benchmark::DoNotOptimize(v);
  }
}

/// The front door (resolve_here) for an explicit list on one compile path: the role's detection,
/// the compilers the user's tools would run (here the same toolkit, so nothing runs twice), the
/// resolution and its warnings. Against the role's source alone: what the front door adds.
void resolve_here_path(benchmark::State& state, cuarch::compile_path path) {
  cuarch::resolve_options o;
  o.archs = "9.0a;12.0";
  o.compiler = path;
  for (auto _ : state) {
    auto r = cuarch::resolve_here(o);
    if (!r.result) state.SkipWithError("the request did not resolve on this machine");
    benchmark::DoNotOptimize(r);
  }
}

}  // namespace

BENCHMARK(detect_every_role)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(detect_one_role, offline, cuarch::detect_role::offline_compiler, &cuarch::detection::offline_compiler)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(nvcc_source_alone)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(resolve_here_path, nvcc, cuarch::compile_path::nvcc)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(detect_one_role, jit, cuarch::detect_role::jit_compiler, &cuarch::detection::jit_compiler)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(nvrtc_source_alone)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(resolve_here_path, nvrtc, cuarch::compile_path::nvrtc)->Unit(benchmark::kMicrosecond);
