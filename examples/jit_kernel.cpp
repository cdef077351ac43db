// jit_kernel: a JIT kernel library in one file. Resolve the targets for the GPUs of this process,
// compile a real kernel with NVRTC for each target, load it with the driver API, launch it and
// check every number it computed.
//
//   jit_kernel                       native: the visible GPUs (an H200 gets sm_90a)
//   jit_kernel --archs compute_90    explicit targets, verified against the GPUs before compiling
//   jit_kernel --archs sm_120a       on an H200: refused before compiling, with the reason
//   options: --policy strict|best-effort  --native-variant a|f|baseline
//
// The three sources plug into cuarch::resolver: NVRTC as linked (version, supported archs, real
// path), and the driver API for devices and the driver version. The driver library is loaded with
// dlopen, so on a machine without a driver the program still starts and fails with a typed error
// (library_not_found) instead of a loader message.
//
// Exit status: 0 every target compiled, loaded and computed correctly; 1 resolution refused or a
// step failed (the reason is printed); 2 bad usage; 77 no usable driver or GPU (skipped).
//
// Build: c++ -std=c++17 -Iinclude -I/usr/local/cuda/include examples/jit_kernel.cpp
//        -L/usr/local/cuda/lib64 -lnvrtc -ldl -o jit_kernel
#include <cuarch/core/decode.hpp>
#include <cuarch/sources/device_source.hpp>
#include <cuarch/sources/driver_source.hpp>
#include <cuarch/sources/nvrtc_source.hpp>
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <cuda.h>  // types and prototypes only: the functions come from dlopen("libcuda.so.1")
#include <dlfcn.h>
#include <nvrtc.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

// ---- the kernel --------------------------------------------------------------------------------

// y = a * x + y, and which code path ran: __CUDA_ARCH__, and the arch- / family-specific macros
// that only `a` / `f` targets define. Inputs are small integers, so float results are exact with
// or without FMA contraction, and every value can be checked for equality.
constexpr const char* kernel_source = R"(
extern "C" __global__ void saxpy_probe(float a, const float* x, float* y, unsigned n, int* arch_info) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) {
    arch_info[0] = __CUDA_ARCH__;
#ifdef __CUDA_ARCH_SPECIFIC__
    arch_info[1] = __CUDA_ARCH_SPECIFIC__;
#else
    arch_info[1] = 0;
#endif
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
    arch_info[2] = __CUDA_ARCH_FAMILY_SPECIFIC__;
#else
    arch_info[2] = 0;
#endif
  }
}
)";
constexpr unsigned element_count = 1u << 20;
constexpr float factor = 3.0f;
float x_at(unsigned i) { return static_cast<float>(i % 1024u); }
float y_at(unsigned i) { return static_cast<float>(2u * (i % 7u)); }

// ---- the driver API, loaded at run time, for what cuarch does not do: load modules and launch ---

#define JIT_STR2(x) #x
#define JIT_STR(x) JIT_STR2(x)  // the exported name after cuda.h's versioning macros (cuMemAlloc_v2)

struct driver_api {
  void* handle = nullptr;
  std::string path;
  decltype(&cuInit) init = nullptr;
  decltype(&cuDeviceGet) device_get = nullptr;
  decltype(&cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&cuDevicePrimaryCtxRelease) primary_ctx_release = nullptr;
  decltype(&cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&cuModuleLoadDataEx) module_load_data_ex = nullptr;
  decltype(&cuModuleGetFunction) module_get_function = nullptr;
  decltype(&cuModuleUnload) module_unload = nullptr;
  decltype(&cuMemAlloc) mem_alloc = nullptr;
  decltype(&cuMemFree) mem_free = nullptr;
  decltype(&cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&cuLaunchKernel) launch_kernel = nullptr;
  decltype(&cuGetErrorName) get_error_name = nullptr;
};

constexpr auto driver = cuarch::source_kind::driver;
constexpr std::string_view libcuda = "libcuda.so.1";

/// Loads libcuda.so.1 once per process (by soname: the loader's search, as every CUDA program does)
/// and calls cuInit. The outcome, success or the typed error, is kept for later calls.
const cuarch::expected<const driver_api*, cuarch::error>& load_driver() {
  static const cuarch::expected<const driver_api*, cuarch::error> loaded =
      []() -> cuarch::expected<const driver_api*, cuarch::error> {
    static driver_api api;
    api.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api.handle) {
      const char* why = dlerror();
      return cuarch::unexpected(cuarch::errors::library_not_found(driver, libcuda, libcuda, why ? why : "dlopen failed"));
    }
    bool missing = false;
    std::string missing_name;
    auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api.handle, name));
      if (!fn && !missing) {
        missing = true;
        missing_name = name;
      }
    };
#define JIT_BIND(member, function) bind(api.member, JIT_STR(function))
    JIT_BIND(init, cuInit);
    JIT_BIND(device_get, cuDeviceGet);
    JIT_BIND(primary_ctx_retain, cuDevicePrimaryCtxRetain);
    JIT_BIND(primary_ctx_release, cuDevicePrimaryCtxRelease);
    JIT_BIND(ctx_set_current, cuCtxSetCurrent);
    JIT_BIND(ctx_synchronize, cuCtxSynchronize);
    JIT_BIND(module_load_data_ex, cuModuleLoadDataEx);
    JIT_BIND(module_get_function, cuModuleGetFunction);
    JIT_BIND(module_unload, cuModuleUnload);
    JIT_BIND(mem_alloc, cuMemAlloc);
    JIT_BIND(mem_free, cuMemFree);
    JIT_BIND(memcpy_htod, cuMemcpyHtoD);
    JIT_BIND(memcpy_dtoh, cuMemcpyDtoH);
    JIT_BIND(launch_kernel, cuLaunchKernel);
    JIT_BIND(get_error_name, cuGetErrorName);
#undef JIT_BIND
    if (missing) return cuarch::unexpected(cuarch::errors::symbol_not_found(driver, missing_name, libcuda));
    Dl_info info{};
    char real[PATH_MAX];
    if (dladdr(reinterpret_cast<void*>(api.init), &info) && info.dli_fname && realpath(info.dli_fname, real))
      api.path = real;
    const CUresult r = api.init(0);
    if (r == CUDA_ERROR_NO_DEVICE)
      return cuarch::unexpected(cuarch::errors::no_device(driver, "cuInit: CUDA_ERROR_NO_DEVICE", "cuInit", libcuda));
    if (r != CUDA_SUCCESS)
      return cuarch::unexpected(cuarch::errors::library_call_failed(driver, "cuInit(0)", static_cast<int>(r), libcuda));
    return &api;
  }();
  return loaded;
}

std::string cu_error_name(const driver_api& api, CUresult r) {
  const char* name = nullptr;
  if (api.get_error_name(r, &name) != CUDA_SUCCESS || !name) return "CUresult " + std::to_string(static_cast<int>(r));
  return name;
}

// ---- NVRTC, as linked --------------------------------------------------------------------------

struct compiled_image {
  cuarch::arch_target target;
  std::string bytes;  // cubin, or NUL-terminated PTX
};

/// One NVRTC compile for one target; the log is part of the error.
bool compile(const cuarch::nvrtc_compile& c, compiled_image& out) {
  const std::string name(cuarch::to_text(c.target).view());
  nvrtcProgram program = nullptr;
  if (const nvrtcResult r = nvrtcCreateProgram(&program, kernel_source, "saxpy_probe.cu", 0, nullptr, nullptr);
      r != NVRTC_SUCCESS) {
    std::fprintf(stderr, "jit_kernel: %s: nvrtcCreateProgram: %s\n", name.c_str(), nvrtcGetErrorString(r));
    return false;
  }
  std::vector<const char*> options;
  for (const auto& o : c.options) options.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  std::size_t log_size = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    nvrtcGetProgramLog(program, &log[0]);
  }
  bool ok = r == NVRTC_SUCCESS;
  if (!ok) {
    std::fprintf(stderr, "jit_kernel: %s: NVRTC failed: %s\n%s\n", name.c_str(), nvrtcGetErrorString(r), log.c_str());
  } else {
    std::size_t size = 0;
    const bool sass = c.target.form == cuarch::arch_form::sass;
    const nvrtcResult s = sass ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size);
    out.target = c.target;
    out.bytes.assign(size, '\0');
    const nvrtcResult g = s != NVRTC_SUCCESS ? s
                          : sass             ? nvrtcGetCUBIN(program, &out.bytes[0])
                                             : nvrtcGetPTX(program, &out.bytes[0]);
    ok = g == NVRTC_SUCCESS && size > 0;
    if (!ok) std::fprintf(stderr, "jit_kernel: %s: NVRTC gave no %s\n", name.c_str(), sass ? "cubin" : "PTX");
    else std::printf("jit_kernel: %s: NVRTC compiled %s (%zu bytes)\n", name.c_str(), sass ? "a cubin" : "PTX", size);
  }
  nvrtcDestroyProgram(&program);
  return ok;
}

/// Loads the image on one device (the driver JITs PTX), launches, and checks every value and the
/// code path the kernel reports.
bool run_on(const driver_api& api, const cuarch::device_info& device, const compiled_image& image) {
  const std::string name(cuarch::to_text(image.target).view());
  const std::string where = "device " + std::to_string(device.ordinal) + " (" + device.name + ", cc " +
                            std::string(cuarch::to_text(device.cc).view()) + ")";
  auto fail = [&](const char* step, CUresult r) {
    std::fprintf(stderr, "jit_kernel: %s on %s: %s failed: %s\n", name.c_str(), where.c_str(), step,
                 cu_error_name(api, r).c_str());
    return false;
  };
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (CUresult r = api.device_get(&dev, device.ordinal); r != CUDA_SUCCESS) return fail("cuDeviceGet", r);
  if (CUresult r = api.primary_ctx_retain(&ctx, dev); r != CUDA_SUCCESS) return fail("cuDevicePrimaryCtxRetain", r);
  struct release_ctx {
    const driver_api& api;
    CUdevice dev;
    ~release_ctx() { api.primary_ctx_release(dev); }
  } release{api, dev};
  if (CUresult r = api.ctx_set_current(ctx); r != CUDA_SUCCESS) return fail("cuCtxSetCurrent", r);

  char jit_log[4096] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {jit_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof jit_log))};
  CUmodule module = nullptr;
  if (CUresult r = api.module_load_data_ex(&module, image.bytes.data(), 2, opts, values); r != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s\n", jit_log);
    return fail("cuModuleLoadDataEx", r);
  }
  CUfunction fn = nullptr;
  CUdeviceptr x = 0, y = 0, info = 0;
  bool ok = false;
  std::vector<float> hx(element_count), hy(element_count), out(element_count);
  for (unsigned i = 0; i < element_count; ++i) {
    hx[i] = x_at(i);
    hy[i] = y_at(i);
  }
  int arch_info[3] = {-1, -1, -1};
  const std::size_t bytes = element_count * sizeof(float);
  CUresult r = api.module_get_function(&fn, module, "saxpy_probe");
  const char* step = "cuModuleGetFunction";
  if (r == CUDA_SUCCESS) {
    r = api.mem_alloc(&x, bytes);
    step = "cuMemAlloc";
  }
  if (r == CUDA_SUCCESS) { r = api.mem_alloc(&y, bytes); }
  if (r == CUDA_SUCCESS) { r = api.mem_alloc(&info, sizeof arch_info); }
  if (r == CUDA_SUCCESS) {
    r = api.memcpy_htod(x, hx.data(), bytes);
    step = "cuMemcpyHtoD";
  }
  if (r == CUDA_SUCCESS) { r = api.memcpy_htod(y, hy.data(), bytes); }
  if (r == CUDA_SUCCESS) {
    float a = factor;
    unsigned n = element_count;
    void* args[] = {&a, &x, &y, &n, &info};
    r = api.launch_kernel(fn, (element_count + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
    step = "cuLaunchKernel";
  }
  if (r == CUDA_SUCCESS) {
    r = api.ctx_synchronize();
    step = "cuCtxSynchronize";
  }
  if (r == CUDA_SUCCESS) {
    r = api.memcpy_dtoh(out.data(), y, bytes);
    step = "cuMemcpyDtoH";
  }
  if (r == CUDA_SUCCESS) { r = api.memcpy_dtoh(arch_info, info, sizeof arch_info); }
  if (r != CUDA_SUCCESS) {
    fail(step, r);
  } else {
    unsigned wrong = 0, first_wrong = 0;
    for (unsigned i = 0; i < element_count; ++i)
      if (out[i] != factor * x_at(i) + y_at(i) && wrong++ == 0) first_wrong = i;
    // The code path: __CUDA_ARCH__ of the target; the `a` macro only for `a`, the `f` macro for `f`.
    const int expected_arch = image.target.cc.cuda_arch_macro();
    const bool arch_ok = arch_info[0] == expected_arch &&
                         (image.target.variant == cuarch::arch_variant::arch_specific ? arch_info[1] == expected_arch
                                                                                      : arch_info[1] == 0) &&
                         (image.target.variant == cuarch::arch_variant::family_specific ? arch_info[2] == expected_arch
                          : image.target.variant == cuarch::arch_variant::baseline      ? arch_info[2] == 0
                                                                                        : true);
    if (wrong)
      std::fprintf(stderr, "jit_kernel: %s on %s: %u of %u values wrong (first at %u: %g, expected %g)\n", name.c_str(),
                   where.c_str(), wrong, element_count, first_wrong, static_cast<double>(out[first_wrong]),
                   static_cast<double>(factor * x_at(first_wrong) + y_at(first_wrong)));
    if (!arch_ok)
      std::fprintf(stderr,
                   "jit_kernel: %s on %s: the kernel ran as __CUDA_ARCH__=%d specific=%d family=%d, expected %d\n",
                   name.c_str(), where.c_str(), arch_info[0], arch_info[1], arch_info[2], expected_arch);
    ok = wrong == 0 && arch_ok;
    if (ok)
      std::printf(
          "jit_kernel: %s on %s: loaded%s, launched, %u values correct, __CUDA_ARCH__=%d arch-specific=%d family-specific=%d\n",
          name.c_str(), where.c_str(), image.target.form == cuarch::arch_form::sass ? "" : " (driver JIT of the PTX)",
          element_count, arch_info[0], arch_info[1], arch_info[2]);
  }
  if (x) api.mem_free(x);
  if (y) api.mem_free(y);
  if (info) api.mem_free(info);
  api.module_unload(module);
  return ok;
}

int usage(const char* why) {
  std::fprintf(
      stderr,
      "jit_kernel: %s\nusage: jit_kernel [--archs LIST|native] [--policy strict|best-effort] [--native-variant a|f|baseline]\n",
      why);
  return 2;
}

bool is_environment_failure(cuarch::errc c) {
  return c == cuarch::errc::library_not_found || c == cuarch::errc::symbol_not_found || c == cuarch::errc::no_device ||
         c == cuarch::errc::library_call_failed;
}

}  // namespace

int main(int argc, char** argv) {
  std::string archs = "native";
  // JIT: explicit targets are verified against the GPUs, and a GPU newer than NVRTC gets PTX if
  // the driver can JIT it.
  cuarch::jit_policy policy;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--archs" && value) {
      archs = argv[++i];
    } else if (a == "--policy" && value) {
      // The library owns the spellings: policy and variant names come from its name maps.
      const auto p = cuarch::parse_policy_name(argv[++i]);
      if (!p) return usage("--policy must be strict, best-effort, ptx-fallback or verify-devices");
      cuarch::apply_policy(*p, policy);
    } else if (a == "--native-variant" && value) {
      const auto v = cuarch::parse_native_variant_spec(argv[++i]);  // a, f, baseline, or chains and rules
      if (!v) return usage(v.error().message().c_str());
      policy.native_preferences = *v;
    } else {
      return usage(("unexpected argument '" + std::string(a) + "'").c_str());
    }
  }

  // cuarch's own sources: the NVRTC this program links, the devices through NVML (cuInit only where
  // NVML cannot answer; this program initialises CUDA itself to launch), the driver's version (dlopen).
  const cuarch::resolver jit(
      cuarch::linked_nvrtc_source(&nvrtcVersion, &nvrtcGetNumSupportedArchs, &nvrtcGetSupportedArchs),
      cuarch::system_device_source{}, policy, cuarch::driver_library_source::from_loader());
  cuarch::arch_request request;
  request.list = archs;  // CUARCH_ARCHS, when set, overrides it (reported below)
  const auto resolved = jit.resolve(request);
  if (!resolved) {
    const cuarch::resolution_failure& f = resolved.error();
    if (is_environment_failure(f.summary.code)) {
      std::fprintf(stderr, "jit_kernel: skipped: no usable GPU: error [%s]: %s\n",
                   std::string(cuarch::to_string(f.summary.code)).c_str(), f.message().c_str());
      return 77;
    }
    std::fprintf(stderr, "jit_kernel: refused before compiling: error [%s]: %s\n",
                 std::string(cuarch::to_string(f.summary.code)).c_str(), f.message().c_str());
    return 1;
  }
  const cuarch::resolution& r = *resolved;
  const auto compiler = jit.compiler_source().compiler();  // cached by NVRTC itself; only for the key
  if (!compiler) return 1;
  std::string names;
  for (const auto& t : r.targets) names += (names.empty() ? "" : " ") + std::string(cuarch::to_text(t).view());
  std::string asked = archs;
  if (r.origin.source == cuarch::source_kind::environment) {  // the variable overrode --archs
    const std::string variable(r.origin.variable);
    const char* value = std::getenv(variable.c_str());
    asked = variable + "=" + (value ? value : "") + " (from the environment)";
  }
  std::printf("jit_kernel: request %s -> targets: %s\n", asked.c_str(), names.c_str());
  for (const auto& d : r.diagnostics) std::printf("jit_kernel:   %s\n", d.message().c_str());
  const std::string key = cuarch::jit_cache_key(*compiler, r.targets);
  std::printf("jit_kernel: cache key %s (digest %s)\n", key.c_str(), cuarch::jit_cache_digest(key).c_str());

  for (const auto& t : r.targets)
    if (t.form == cuarch::arch_form::lto) {
      std::fprintf(stderr, "jit_kernel: %s is LTO IR, which needs nvJitLink; this example loads cubins and PTX\n",
                   std::string(cuarch::to_text(t).view()).c_str());
      return 1;
    }

  std::vector<compiled_image> images;
  for (const auto& c : cuarch::nvrtc_compiles(r.targets)) {
    compiled_image image;
    if (!compile(c, image)) return 1;
    images.push_back(std::move(image));
  }

  const auto& loaded = load_driver();
  if (!loaded) {
    std::fprintf(stderr, "jit_kernel: %s\n", loaded.error().message().c_str());
    return 77;
  }
  const auto devices = cuarch::driver_device_source{}.devices();
  if (!devices) {
    std::fprintf(stderr, "jit_kernel: %s\n", devices.error().message().c_str());
    return 77;
  }
  int launches = 0;
  bool all_ok = true;
  for (const auto& image : images)
    for (const auto& dev : *devices) {
      if (!cuarch::can_load(image.target, dev.cc)) continue;  // resolved for another of the devices
      all_ok = run_on(**loaded, dev, image) && all_ok;
      ++launches;
    }
  if (!all_ok || launches == 0) {
    std::fprintf(stderr, "jit_kernel: FAIL (%d launches)\n", launches);
    return 1;
  }
  std::printf("jit_kernel: PASS (%zu targets, %d launches)\n", images.size(), launches);
  return 0;
}
