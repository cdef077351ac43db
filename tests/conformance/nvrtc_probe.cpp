// nvrtc_probe: ask one real NVRTC library what it supports, print ONE line.
//
// Plain C++17, no CUDA headers: the few NVRTC entry points used here are
// declared below and resolved with dlopen()/dlsym(), so one binary probes any
// NVRTC release (11.x libnvrtc.so.11.2, 12.x libnvrtc.so.12, 13.x libnvrtc.so.13).
//
// Build:  g++ -std=c++17 -O1 -Wall -Wextra -o nvrtc_probe tests/conformance/nvrtc_probe.cpp -ldl
// Usage:  nvrtc_probe /ABS/PATH/libnvrtc.so.N RELEASE ORIGIN
//   e.g.  nvrtc_probe /usr/local/cuda/lib64/libnvrtc.so.13 13.0.88 local:/usr/local/cuda
//
// Output (stdout, one tab-separated line):
//   release  origin  nvrtc_version  ptx_isa  default_target  supported_archs  accepted
// * nvrtc_version   nvrtcVersion() as "M.m"
// * ptx_isa         ".version" of the PTX from --gpu-architecture=compute_<newest supported>
//                   (newest = max of nvrtcGetSupportedArchs, or of the accepted plain
//                   compute_NN when that symbol is missing)
// * default_target  ".target" of the PTX compiled with no option at all
// * supported_archs nvrtcGetSupportedArchs() comma-separated, "-" if the symbol is missing
// * accepted        every --gpu-architecture=<form><NN><variant> that compiles the trivial
//                   kernel, form in {compute_, sm_}, NN in 10..159, variant in {"", a, f};
//                   sorted by (NN, compute_ before sm_, "" < a < f)
// Notes about oddities (an accepted compute_ target whose PTX .target differs, supported
// archs that are not accepted, ...) go to stderr prefixed "note:". Exit status 0 on
// success, 2 on usage errors, 3 on any NVRTC failure other than a rejected option.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

// ---- the NVRTC ABI subset (stable for years; nvrtcGetSupportedArchs is newer and optional) ----
using nvrtcResult = int;  // enum in nvrtc.h; 0 == NVRTC_SUCCESS
constexpr nvrtcResult kSuccess = 0;
constexpr nvrtcResult kInvalidOption = 5;   // NVRTC_ERROR_INVALID_OPTION
constexpr nvrtcResult kCompilation = 6;     // NVRTC_ERROR_COMPILATION (some releases report
                                            // an unknown arch this way, with a log line)
constexpr nvrtcResult kBuiltinFailure = 7;  // NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: 11.2 says
                                            // "failed to load builtins for compute_53"; counted
                                            // as not accepted (the default compile, which must
                                            // succeed, proves the builtins library itself loads)
using nvrtcProgram = struct _nvrtcProgram*;

using FnGetErrorString = const char* (*)(nvrtcResult);
using FnVersion = nvrtcResult (*)(int*, int*);
using FnGetNumSupportedArchs = nvrtcResult (*)(int*);
using FnGetSupportedArchs = nvrtcResult (*)(int*);
using FnCreateProgram = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                        const char* const*);
using FnDestroyProgram = nvrtcResult (*)(nvrtcProgram*);
using FnCompileProgram = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using FnGetPTXSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using FnGetPTX = nvrtcResult (*)(nvrtcProgram, char*);
using FnGetProgramLogSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using FnGetProgramLog = nvrtcResult (*)(nvrtcProgram, char*);

struct Nvrtc {
  void* handle = nullptr;
  FnGetErrorString getErrorString = nullptr;
  FnVersion version = nullptr;
  FnGetNumSupportedArchs getNumSupportedArchs = nullptr;  // may be missing (< 11.2)
  FnGetSupportedArchs getSupportedArchs = nullptr;        // may be missing (< 11.2)
  FnCreateProgram createProgram = nullptr;
  FnDestroyProgram destroyProgram = nullptr;
  FnCompileProgram compileProgram = nullptr;
  FnGetPTXSize getPTXSize = nullptr;
  FnGetPTX getPTX = nullptr;
  FnGetProgramLogSize getProgramLogSize = nullptr;
  FnGetProgramLog getProgramLog = nullptr;
};

Nvrtc g;

const char kKernel[] = "extern \"C\" __global__ void k(int*p){*p=1;}\n";

[[noreturn]] void die(int code, const std::string& msg) {
  std::fprintf(stderr, "nvrtc_probe: %s\n", msg.c_str());
  std::exit(code);
}

std::string errstr(nvrtcResult r) {
  const char* s = g.getErrorString ? g.getErrorString(r) : nullptr;
  return std::string(s ? s : "?") + " (" + std::to_string(r) + ")";
}

void check(nvrtcResult r, const char* what) {
  if (r != kSuccess) die(3, std::string(what) + " failed: " + errstr(r));
}

template <class F>
F sym(const char* name, bool required) {
  dlerror();
  void* p = dlsym(g.handle, name);
  if (!p && required) die(3, std::string("missing symbol ") + name);
  return reinterpret_cast<F>(p);
}

std::string programLog(nvrtcProgram prog) {
  size_t n = 0;
  if (g.getProgramLogSize(prog, &n) != kSuccess || n == 0) return {};
  std::string log(n, '\0');
  if (g.getProgramLog(prog, &log[0]) != kSuccess) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct CompileResult {
  nvrtcResult status = kSuccess;
  std::string ptx;  // filled only when wantPtx and the compile succeeded
  std::string log;  // program log (warnings on success, errors on failure)
};

// One program per compile; always destroyed.
CompileResult compile(const char* option, bool wantPtx) {
  nvrtcProgram prog = nullptr;
  check(g.createProgram(&prog, kKernel, "probe.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  CompileResult res;
  const char* opts[1] = {option};
  res.status = g.compileProgram(prog, option ? 1 : 0, option ? opts : nullptr);
  if (res.status == kSuccess && wantPtx) {
    size_t n = 0;
    check(g.getPTXSize(prog, &n), "nvrtcGetPTXSize");
    res.ptx.assign(n, '\0');
    if (n) check(g.getPTX(prog, &res.ptx[0]), "nvrtcGetPTX");
  }
  res.log = programLog(prog);
  check(g.destroyProgram(&prog), "nvrtcDestroyProgram");
  return res;
}

// Value of the first PTX directive line ".<name> VALUE" (first token, trailing comma cut).
std::string ptxDirective(const std::string& ptx, const char* name) {
  const std::string key = std::string(".") + name;
  size_t pos = 0;
  while (pos < ptx.size()) {
    size_t eol = ptx.find('\n', pos);
    if (eol == std::string::npos) eol = ptx.size();
    std::string line = ptx.substr(pos, eol - pos);
    pos = eol + 1;
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line.compare(0, key.size(), key) != 0) continue;
    if (line.size() > key.size() && line[key.size()] != ' ' && line[key.size()] != '\t') continue;
    size_t vb = line.find_first_not_of(" \t", key.size());
    if (vb == std::string::npos) return {};
    size_t ve = line.find_first_of(" \t,\r", vb);
    return line.substr(vb, ve == std::string::npos ? std::string::npos : ve - vb);
  }
  return {};
}

std::string firstLine(const std::string& s) {
  size_t e = s.find('\n');
  return e == std::string::npos ? s : s.substr(0, e);
}

// The line of a log that says why it failed: the first containing "error", else the first.
std::string errorLine(const std::string& log) {
  size_t pos = 0;
  while (pos < log.size()) {
    size_t eol = log.find('\n', pos);
    if (eol == std::string::npos) eol = log.size();
    std::string line = log.substr(pos, eol - pos);
    if (line.find("error") != std::string::npos) return line;
    pos = eol + 1;
  }
  return firstLine(log);
}

// Group candidate names by message, keeping first-seen order.
using Groups = std::vector<std::pair<std::string, std::vector<std::string>>>;
void addToGroup(Groups& groups, const std::string& msg, const std::string& name) {
  auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == msg; });
  if (it == groups.end()) groups.push_back({msg, {name}});
  else it->second.push_back(name);
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s /ABS/PATH/libnvrtc.so.N RELEASE ORIGIN\n", argv[0]);
    return 2;
  }
  const std::string lib = argv[1], release = argv[2], origin = argv[3];
  if (lib.empty() || lib[0] != '/') die(2, "library path must be absolute: '" + lib + "'");
  for (const std::string& f : {release, origin})
    if (f.empty() || f.find_first_of("\t\n") != std::string::npos)
      die(2, "release/origin must be non-empty and contain no tab or newline");

  g.handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!g.handle) {
    const char* e = dlerror();
    die(3, std::string("dlopen failed: ") + (e ? e : "?"));
  }
  g.getErrorString = sym<FnGetErrorString>("nvrtcGetErrorString", true);
  g.version = sym<FnVersion>("nvrtcVersion", true);
  g.getNumSupportedArchs = sym<FnGetNumSupportedArchs>("nvrtcGetNumSupportedArchs", false);
  g.getSupportedArchs = sym<FnGetSupportedArchs>("nvrtcGetSupportedArchs", false);
  g.createProgram = sym<FnCreateProgram>("nvrtcCreateProgram", true);
  g.destroyProgram = sym<FnDestroyProgram>("nvrtcDestroyProgram", true);
  g.compileProgram = sym<FnCompileProgram>("nvrtcCompileProgram", true);
  g.getPTXSize = sym<FnGetPTXSize>("nvrtcGetPTXSize", true);
  g.getPTX = sym<FnGetPTX>("nvrtcGetPTX", true);
  g.getProgramLogSize = sym<FnGetProgramLogSize>("nvrtcGetProgramLogSize", true);
  g.getProgramLog = sym<FnGetProgramLog>("nvrtcGetProgramLog", true);

  int major = 0, minor = 0;
  check(g.version(&major, &minor), "nvrtcVersion");

  std::vector<int> supported;
  const bool haveSupported = g.getNumSupportedArchs && g.getSupportedArchs;
  if (haveSupported) {
    int n = 0;
    check(g.getNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
    if (n < 0 || n > 4096) die(3, "nvrtcGetNumSupportedArchs returned " + std::to_string(n));
    supported.assign(static_cast<size_t>(n), 0);
    if (n) check(g.getSupportedArchs(supported.data()), "nvrtcGetSupportedArchs");
  }

  // Default target: no option at all. Must succeed, else the library setup is broken
  // (e.g. libnvrtc-builtins not found) and every "rejection" below would be bogus.
  CompileResult def = compile(nullptr, true);
  if (def.status != kSuccess) die(3, "default compile failed: " + errstr(def.status) + ": " + errorLine(def.log));
  const std::string defaultTarget = ptxDirective(def.ptx, "target");
  if (defaultTarget.empty()) die(3, "no .target in default PTX");

  // Candidate sweep.
  static const char* const kForms[2] = {"compute_", "sm_"};
  static const char* const kVariants[3] = {"", "a", "f"};
  std::vector<std::string> accepted;
  std::vector<int> acceptedPlainCompute, acceptedPlainSm;
  Groups rejections, warnings;
  for (int nn = 10; nn <= 159; ++nn) {
    for (int form = 0; form < 2; ++form) {
      for (int v = 0; v < 3; ++v) {
        const std::string name = std::string(kForms[form]) + std::to_string(nn) + kVariants[v];
        const std::string opt = "--gpu-architecture=" + name;
        const bool isCompute = form == 0;
        CompileResult r = compile(opt.c_str(), isCompute);
        if (r.status == kSuccess) {
          accepted.push_back(name);
          if (!r.log.empty()) addToGroup(warnings, firstLine(r.log), name);
          if (v == 0) (isCompute ? acceptedPlainCompute : acceptedPlainSm).push_back(nn);
          if (isCompute) {
            const std::string t = ptxDirective(r.ptx, "target");
            const std::string want = "sm_" + std::to_string(nn) + kVariants[v];
            if (t != want) std::fprintf(stderr, "note: %s accepted, PTX .target is '%s'\n", name.c_str(), t.c_str());
          }
        } else if (r.status == kInvalidOption || r.status == kCompilation || r.status == kBuiltinFailure) {
          // Rejected. Keep the distinct messages so anything odd is visible on stderr.
          addToGroup(rejections, errstr(r.status) + ": " + errorLine(r.log), name);
        } else {
          die(3, opt + ": unexpected " + errstr(r.status) + ": " + errorLine(r.log));
        }
      }
    }
  }

  // PTX ISA of the newest architecture.
  int newest = -1;
  if (!supported.empty()) newest = *std::max_element(supported.begin(), supported.end());
  else if (!acceptedPlainCompute.empty()) newest = acceptedPlainCompute.back();
  std::string ptxIsa = "-";
  if (newest >= 0) {
    const std::string opt = "--gpu-architecture=compute_" + std::to_string(newest);
    CompileResult r = compile(opt.c_str(), true);
    if (r.status != kSuccess) die(3, opt + " failed: " + errstr(r.status) + ": " + errorLine(r.log));
    ptxIsa = ptxDirective(r.ptx, "version");
    if (ptxIsa.empty()) die(3, "no .version in PTX for " + opt);
  }

  // Cross-checks, reported on stderr only.
  // The two usual ways to say "unknown architecture" are summarised ("note: rejected"),
  // anything else is listed in full ("note: failed").
  for (const auto& rj : rejections) {
    const bool usual = rj.first.find("invalid value for --gpu-architecture") != std::string::npos ||
                       rj.first.find("--nv_arch") != std::string::npos;
    if (usual) {
      std::fprintf(stderr, "note: rejected %zu candidates (first %s, last %s) with %s\n", rj.second.size(),
                   rj.second.front().c_str(), rj.second.back().c_str(), rj.first.c_str());
    } else {
      std::fprintf(stderr, "note: failed %s with %s\n", joinNames(rj.second).c_str(), rj.first.c_str());
    }
  }
  if (!def.log.empty()) std::fprintf(stderr, "note: default compile warned: %s\n", firstLine(def.log).c_str());
  for (const auto& w : warnings)
    std::fprintf(stderr, "note: accepted with a warning: %s: %s\n", joinNames(w.second).c_str(), w.first.c_str());
  if (haveSupported) {
    if (!std::is_sorted(supported.begin(), supported.end()))
      std::fprintf(stderr, "note: nvrtcGetSupportedArchs is not sorted ascending\n");
    for (int s : supported) {
      if (!std::binary_search(acceptedPlainSm.begin(), acceptedPlainSm.end(), s))
        std::fprintf(stderr, "note: supported arch %d but sm_%d rejected\n", s, s);
      if (!std::binary_search(acceptedPlainCompute.begin(), acceptedPlainCompute.end(), s))
        std::fprintf(stderr, "note: supported arch %d but compute_%d rejected\n", s, s);
    }
    std::vector<int> sortedSupported = supported;
    std::sort(sortedSupported.begin(), sortedSupported.end());
    for (int s : acceptedPlainSm)
      if (!std::binary_search(sortedSupported.begin(), sortedSupported.end(), s))
        std::fprintf(stderr, "note: sm_%d accepted but not in nvrtcGetSupportedArchs\n", s);
    for (int s : acceptedPlainCompute)
      if (!std::binary_search(sortedSupported.begin(), sortedSupported.end(), s))
        std::fprintf(stderr, "note: compute_%d accepted but not in nvrtcGetSupportedArchs\n", s);
  }

  auto join = [](const auto& items) {
    std::string out;
    for (const auto& it : items) {
      if (!out.empty()) out += ',';
      if constexpr (std::is_same_v<std::decay_t<decltype(it)>, int>) out += std::to_string(it);
      else out += it;
    }
    return out.empty() ? std::string("-") : out;
  };

  std::printf("%s\t%s\t%d.%d\t%s\t%s\t%s\t%s\n", release.c_str(), origin.c_str(), major, minor, ptxIsa.c_str(),
              defaultTarget.c_str(), haveSupported ? join(supported).c_str() : "-", join(accepted).c_str());
  // dlclose deliberately skipped: some NVRTC releases do not unload cleanly.
  return std::fflush(stdout) == 0 ? 0 : 3;
}
