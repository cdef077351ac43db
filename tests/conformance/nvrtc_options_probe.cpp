// nvrtc_options_probe - every option set cuarch writes for NVRTC (nvrtc_compiles, resolve/outputs.hpp)
// compiled by a real libnvrtc (issue 17: the real tool is the oracle).
//   nvrtc_options_probe /ABS/PATH/libnvrtc.so.N
// For every target cuarch's table says that NVRTC's release (nvrtcVersion) builds (each variant and form: sm_, compute_,
// lto_), the options of its one-target set are passed to nvrtcCompileProgram with a one-kernel
// program; the compile must succeed and produce the output the form promises: CUBIN for sm_, PTX
// (and no CUBIN) for compute_, LTO IR for lto_. One line per target, then a summary line
// "compiled N of M". Exit 0 all compiled as promised, 1 any did not, 2 usage, 3 NVRTC unusable.
#include <cuarch/core/arch_table.hpp>
#include <cuarch/core/compatibility.hpp>
#include <cuarch/core/decode.hpp>
#include <cuarch/resolve/outputs.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using nvrtcResult = int;  // 0 == NVRTC_SUCCESS
using nvrtcProgram = struct _nvrtcProgram*;
using FnCreate = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
using FnDestroy = nvrtcResult (*)(nvrtcProgram*);
using FnCompile = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using FnSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using FnError = const char* (*)(nvrtcResult);
using FnVersion = nvrtcResult (*)(int*, int*);

struct nvrtc {
  FnCreate create = nullptr;
  FnDestroy destroy = nullptr;
  FnCompile compile = nullptr;
  FnSize ptx_size = nullptr, cubin_size = nullptr, lto_size = nullptr, log_size = nullptr;
  FnError error = nullptr;
};

const char kKernel[] = "extern \"C\" __global__ void k(int* p) { *p = 1; }\n";

// What one compile produced: the status and the sizes of each output (0: none).
struct outcome {
  nvrtcResult status = 0;
  size_t ptx = 0, cubin = 0, lto = 0;
};

outcome compile(const nvrtc& n, const std::vector<std::string>& options) {
  nvrtcProgram prog = nullptr;
  outcome o;
  if (n.create(&prog, kKernel, "k.cu", 0, nullptr, nullptr) != 0) {
    o.status = -1;
    return o;
  }
  std::vector<const char*> argv;
  for (const auto& s : options) argv.push_back(s.c_str());
  o.status = n.compile(prog, static_cast<int>(argv.size()), argv.data());
  if (o.status == 0) {
    if (n.ptx_size(prog, &o.ptx) != 0) o.ptx = 0;
    if (n.cubin_size(prog, &o.cubin) != 0) o.cubin = 0;
    if (n.lto_size(prog, &o.lto) != 0) o.lto = 0;
  }
  n.destroy(&prog);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s /ABS/PATH/libnvrtc.so.N\n", argv[0]);
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 3;
  }
  int major = 0, minor = 0;
  const auto version = reinterpret_cast<FnVersion>(dlsym(h, "nvrtcVersion"));
  const auto release = version && version(&major, &minor) == 0 ? cuarch::decode_nvrtc_version(major, minor)
                                                               : cuarch::decode_nvrtc_version(0, 0);
  if (!release) {
    std::fprintf(stderr, "%s: %s\n", argv[1], release.error().message().c_str());
    return 3;
  }
  std::printf("# NVRTC %d.%d at %s: the options of every target cuarch's table says it builds\n", major, minor, argv[1]);
  nvrtc n;
  n.create = reinterpret_cast<FnCreate>(dlsym(h, "nvrtcCreateProgram"));
  n.destroy = reinterpret_cast<FnDestroy>(dlsym(h, "nvrtcDestroyProgram"));
  n.compile = reinterpret_cast<FnCompile>(dlsym(h, "nvrtcCompileProgram"));
  n.ptx_size = reinterpret_cast<FnSize>(dlsym(h, "nvrtcGetPTXSize"));
  n.cubin_size = reinterpret_cast<FnSize>(dlsym(h, "nvrtcGetCUBINSize"));
  n.lto_size = reinterpret_cast<FnSize>(dlsym(h, "nvrtcGetLTOIRSize"));
  if (!n.lto_size) n.lto_size = reinterpret_cast<FnSize>(dlsym(h, "nvrtcGetNVVMSize"));  // its name before 12.0
  n.error = reinterpret_cast<FnError>(dlsym(h, "nvrtcGetErrorString"));
  if (!n.create || !n.destroy || !n.compile || !n.ptx_size || !n.cubin_size || !n.lto_size || !n.error) {
    std::fprintf(stderr, "%s lacks an NVRTC entry point this probe needs\n", argv[1]);
    return 3;
  }
  int total = 0, good = 0;
  for (const auto& row : cuarch::arch_table) {
    for (const auto v :
         {cuarch::arch_variant::baseline, cuarch::arch_variant::arch_specific, cuarch::arch_variant::family_specific}) {
      for (const auto f : {cuarch::arch_form::sass, cuarch::arch_form::ptx, cuarch::arch_form::lto}) {
        const cuarch::arch_target t{row.cc, v, f};
        if (!cuarch::variant_exists(t.cc, v) || !cuarch::check_buildable(t, *release)) continue;
        const auto set = cuarch::target_set::from({t});
        if (!set) continue;
        for (const auto& c : cuarch::nvrtc_compiles(*set)) {
          ++total;
          const outcome o = compile(n, c.options);
          std::string opts;
          for (const auto& s : c.options) opts += (opts.empty() ? "" : " ") + s;
          // What the form promises: machine code, PTX alone, or LTO IR.
          const bool as_promised = o.status == 0 && (f == cuarch::arch_form::sass  ? o.cubin > 0
                                                     : f == cuarch::arch_form::ptx ? o.ptx > 0 && o.cubin == 0
                                                                                   : o.lto > 0);
          good += as_promised ? 1 : 0;
          std::printf("%s\t%s\t%s\tptx=%zu cubin=%zu ltoir=%zu\t%s\n", as_promised ? "ok" : "FAIL",
                      std::string(cuarch::to_text(c.target).view()).c_str(), opts.c_str(), o.ptx, o.cubin, o.lto,
                      o.status == 0 ? "NVRTC_SUCCESS" : n.error(o.status));
        }
      }
    }
  }
  std::printf("compiled %d of %d as promised\n", good, total);
  return good == total && total > 0 ? 0 : 1;
}
