// analysis: find_disagreements(), every disagreement between sources (finding_kind lists them) and
// what each means for the user. Disagreement is reported, never resolved: detect()'s roles stay.
#pragma once

#include <algorithm>
#include <utility>
#include <string_view>

#include "../core/arch.hpp"
#include "../core/arch_table.hpp"
#include "../core/compatibility.hpp"
#include "../resolve/compiler_rules.hpp"
#include "report.hpp"  // the declarations

// This header defines an entry point; in a compiled-mode TU it would define it a second time.
#if !CUARCH_DEFINITIONS
#  error \
      "this header defines an entry point compiled into cuarch::compiled (CUARCH_COMPILED): include <cuarch/doctor/report.hpp> instead"
#endif

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// "nvcc 12.4.131 (PATH: /usr/bin/nvcc)"
inline std::string label(const candidate& c) {
  const std::string version = c.result ? " " + to_text(c.result->version).str() : "";
  return std::string(to_string(c.source)) + version + " (" + c.origin + ": " + c.path + ")";
}

inline bool answered(const candidate* c) { return c && c->result; }
inline std::string release_of(const candidate* c) { return release_text(c->result->version); }
inline bool same_release(const candidate* a, const candidate* b) {
  return a->result->version.release() == b->result->version.release();
}

/// The route by which `x` (a candidate or a toolkit root) was met under `prefix` ("CUDA_HOME=/opt/cuda"),
/// first or again; null if it was not.
template <class Found>
const std::string* found_via(const Found& x, std::string_view prefix) {
  if (starts_with(x.origin, prefix)) return &x.origin;
  const auto it = std::find_if(x.also_found_via.begin(), x.also_found_via.end(),
                               [&](const std::string& v) { return starts_with(v, prefix); });
  return it == x.also_found_via.end() ? nullptr : &*it;
}

/// The nvcc of the toolkit whose real path is `root` that answered, or null.
inline const candidate* nvcc_in(const detection& d, const std::string& root) {
  for (const auto& c : d.candidates)
    if (c.source == source_kind::nvcc && c.result && !root.empty() && c.toolkit_root == root) return &c;
  return nullptr;
}

/// "8.6, 12.0": the devices' compute capabilities, in their order or sorted.
inline std::string cc_list(std::vector<device_info> devs, bool sorted = false) {
  if (sorted)
    std::sort(devs.begin(), devs.end(), [](const device_info& a, const device_info& b) { return a.cc < b.cc; });
  std::string s;
  for (const auto& dev : devs) s.append(s.empty() ? "" : ", ").append(to_text(dev.cc).view());
  return s;
}

/// The site-packages directory a wheel file lives in, or empty.
inline std::string site_packages_home(const std::string& path) {
  for (const char* marker : {"/nvidia/", "/triton/"}) {
    const std::size_t at = path.find(marker);
    if (at != std::string::npos) return path.substr(0, at);
  }
  return {};
}

/// Why `compiler` cannot build machine code for `cc` (empty if it can), in check_buildable_by's words
/// less its fix. Without a supported-arch list, a toolkit newer than the table cannot be told no.
inline std::string cannot_build(const compiler_info& compiler, const compute_capability& cc) {
  const auto verdict = check_buildable_by(arch_target{cc, arch_variant::baseline, arch_form::sass}, compiler);
  if (verdict) return {};
  if (verdict.error().code == errc::unknown_arch && !compiler.supported_sm_numbers &&
      newest_known_toolkit() < compiler.version.release())
    return {};
  const std::string words = verdict.error().message();
  return words.substr(0, words.find("; fix: "));
}

class analyzer {
 public:
  explicit analyzer(const detection& d)
      : d_(d),
        jit_(d.chosen(d.jit_compiler)),
        off_(d.chosen(d.offline_compiler)),
        rt_(d.chosen(d.runtime)),
        drv_(d.chosen(d.driver)) {}

  std::vector<finding> run() {
    roles();
    compilers_vs_each_other();
    cuda_home_vs_others();
    compilers_vs_driver();
    environment_problems();
    against_toolkit_files();
    runtime_and_driver();
    runtime_vs_nvrtc();
    compile_time();
    devices();
    other_candidates();
    table_age();
    return sorted();
  }

  /// Only the passes whose findings can bear on one resolution (front_door/resolve_warnings.hpp keeps
  /// some of their kinds): a resolve does not pay for the doctor's whole analysis.
  std::vector<finding> bearing_on_a_resolution() {
    cuda_home_vs_others();
    compilers_vs_driver();
    environment_problems();
    against_toolkit_files();
    runtime_and_driver();
    other_candidates();
    return sorted();
  }

 private:
  std::vector<finding> sorted() {
    std::stable_sort(out_.begin(), out_.end(), [](const finding& a, const finding& b) { return a.level > b.level; });
    return std::move(out_);
  }

  void add(finding_kind kind, severity level, std::string what, std::string meaning,
           std::vector<const candidate*> cs = {}) {
    finding f{kind, level, std::move(what), std::move(meaning), {}};
    for (const candidate* c : cs)
      if (c) f.candidates.push_back(static_cast<std::size_t>(c - d_.candidates.data()));
    out_.push_back(std::move(f));
  }

  void roles() {
    struct role {
      const selection& sel;
      finding_kind kind;
      const char* name;
      severity missing;
      const char* meaning;
    };
    const role all[] = {
        {d_.jit_compiler, finding_kind::no_nvrtc, "JIT compiler (NVRTC)", severity::warning,
         "nothing can be JIT-compiled here; cuarch can only validate against a version you give it"},
        {d_.offline_compiler, finding_kind::no_nvcc, "offline compiler (nvcc)", severity::info,
         "offline builds (CMake, setup.py) cannot run here until nvcc is installed"},
        {d_.driver, finding_kind::no_driver, "driver (libcuda.so.1)", severity::info,
         "nothing can be loaded or run here, and 'native' cannot be resolved: pass the target devices explicitly (--device-cc)"},
        {d_.runtime, finding_kind::no_runtime, "CUDA runtime (libcudart)", severity::info,
         "no framework runtime to compare the driver with"},
    };
    for (const auto& r : all) {
      if (r.sel.index || !r.sel.failure) continue;
      const bool sticky = r.sel.given_and_failed;
      add(sticky ? finding_kind::explicit_source_failed : r.kind, sticky ? severity::problem : r.missing,
          std::string("no ") + r.name + ": " + r.sel.failure->message(), sticky ? r.sel.why : std::string(r.meaning));
    }
  }

  void compilers_vs_each_other() {
    if (!answered(jit_) || !answered(off_) || same_release(jit_, off_)) return;
    add(finding_kind::nvcc_vs_nvrtc, severity::warning,
        "offline " + label(*off_) + " and JIT " + label(*jit_) + " are different releases",
        "a JIT that calls NVRTC (CuPy, jitify, cuda.core) builds with NVRTC " + release_of(jit_) +
            "; offline builds and a JIT that runs nvcc (FlashInfer, PyTorch extensions: $CUDA_HOME/bin/nvcc) build with nvcc " +
            release_of(off_) +
            ": they build different target sets, so decide each one's targets from the compiler it "
            "runs (cuarch resolve --compiler nvrtc|nvcc); to make them agree, put one toolkit's bin first on PATH and set CUDA_HOME to the same toolkit.",
        {off_, jit_});
  }

  /// The first toolkit root met under `prefix`, and that route in words. What the root records, never
  /// the environment read again: a detection's `env` need not be the one its roots came from.
  std::pair<const toolkit_root*, std::string> root_via(std::string_view prefix) const {
    for (const auto& r : d_.toolkit_roots)
      if (const std::string* via = found_via(r, prefix)) return {&r, *via};
    return {};
  }

  /// $CUDA_HOME against $CUDA_PATH, against the first nvcc on PATH, and against a compiler named
  /// explicitly (an option, CUARCH_NVCC/CUARCH_NVRTC, CUDACXX) of another release: PyTorch extensions
  /// and FlashInfer build with $CUDA_HOME/bin/nvcc all the same.
  void cuda_home_vs_others() {
    const candidate* on_path = d_.nvcc_on_path ? &d_.candidates[*d_.nvcc_on_path] : nullptr;
    const auto [home, home_via] = root_via("CUDA_HOME=");
    const auto [cuda_path, cuda_path_via] = root_via("CUDA_PATH=");
    if (home && cuda_path && home != cuda_path && !home->problem && !cuda_path->problem)
      add(finding_kind::cuda_home_vs_cuda_path, severity::warning,
          home_via + " and " + cuda_path_via + " are different toolkits (" + home->real_path + " vs " +
              cuda_path->real_path + ")",
          "tools disagree on which one they read (PyTorch and cuda-pathfinder prefer CUDA_HOME, Windows tools CUDA_PATH); set both to one toolkit");
    if (!home || home->problem) return;
    const candidate* home_nvcc = nvcc_in(d_, home->real_path);
    if (answered(on_path) && on_path->toolkit_root != home->real_path) {
      const std::string& path_root = on_path->toolkit_root;
      const bool versions_differ = home_nvcc && home_nvcc->result->version != on_path->result->version;
      add(finding_kind::cuda_home_vs_path, versions_differ ? severity::warning : severity::info,
          home_via +
              (home_nvcc ? " holds nvcc " + to_text(home_nvcc->result->version).str() : std::string(" holds no nvcc")) +
              ", but the first nvcc on PATH is " + on_path->path + " (nvcc " + to_text(on_path->result->version).str() +
              (path_root.empty() ? std::string() : ", toolkit " + path_root) + ")",
          "builds that use CUDA_HOME (PyTorch extensions, FlashInfer) and builds that run `nvcc` from PATH (CMake, Makefiles) use different toolkits; "
          "point both at the toolkit you mean",
          {home_nvcc, on_path});
    }
    for (const auto& c : d_.candidates)  // what says its release: its nvcc, else its first version file
      if (!home_nvcc && c.toolkit_root == home->real_path && c.result && c.source == source_kind::toolkit_files &&
          (c.describes == source_kind::none || c.describes == source_kind::nvcc))
        home_nvcc = &c;
    if (!home_nvcc) return;
    for (const candidate* c : {off_, jit_}) {
      if (!answered(c) || c->toolkit_root == home->real_path) continue;
      const bool named = c->how == discovery::explicit_argument ||
                         (c->how == discovery::environment && !starts_with(c->origin, "CUDA_HOME=") &&
                          !starts_with(c->origin, "CUDA_PATH=") && !starts_with(c->origin, "CONDA_PREFIX="));
      if (!named || same_release(c, home_nvcc)) continue;
      add(finding_kind::override_vs_cuda_home, severity::warning,
          label(*c) + " was named explicitly, but " + home_via + " holds CUDA " + release_of(home_nvcc) + " (" +
              home_nvcc->path + ")",
          "PyTorch extensions and FlashInfer build with $CUDA_HOME/bin/nvcc, not with the compiler named here: set CUDA_HOME to "
          "the named compiler's toolkit, or drop the override",
          {c, home_nvcc});
    }
  }

  /// A governing compiler of a newer major release than the driver: minor-version compatibility
  /// does not cross majors, so even its machine code may not load here.
  void compilers_vs_driver() {
    if (!answered(drv_)) return;
    for (const candidate* c : {off_, jit_}) {
      if (!answered(c) || driver_runs_code_of(drv_->result->version, c->result->version)) continue;
      add(finding_kind::compiler_newer_than_driver, severity::warning,
          label(*c) + " is a newer major release than the driver, which serves CUDA " +
              release_text(drv_->result->version),
          "minor-version compatibility does not cross major releases: code it builds may not load here; update the driver, or compile "
          "with a CUDA " +
              std::to_string(drv_->result->version.major) + ".x toolkit",
          {c, drv_});
    }
  }

  void environment_problems() {
    for (const auto& r : d_.toolkit_roots) {
      if (!r.problem) continue;
      const bool from_env = r.how == discovery::environment;
      std::string used;
      if (off_) used = "nvcc " + off_->path;
      if (jit_) used += std::string(used.empty() ? "" : " and ") + "NVRTC " + jit_->path;
      add(from_env ? finding_kind::invalid_environment : finding_kind::invalid_toolkit_root,
          from_env ? severity::warning : severity::problem, r.origin + ": " + r.problem->message(),
          from_env
              ? "tools that read it (PyTorch extensions, FlashInfer, CMake's FindCUDAToolkit) fail or guess; cuarch did not use it (a role it would have answered fails instead of falling back)" +
                    (used.empty() ? std::string() : " and used " + used + " instead") + ". Fix or unset the variable."
              : std::string("the toolkit root you named cannot be used; pass an existing toolkit directory"));
    }
    for (const auto& p : d_.python_environments)
      if (p.problem)
        add(finding_kind::invalid_python_environment,
            p.how == discovery::environment ? severity::warning : severity::problem,
            p.origin + ": " + p.problem->message(), "no pip wheels or Triton install could be read from it");
  }

  /// A compiler or library against its own toolkit's (or wheel's) files: nvcc vs its headers, etc.
  void against_toolkit_files() {
    for (const auto& c : d_.candidates) {
      if (!c.result) continue;
      if (c.source != source_kind::nvcc && c.source != source_kind::nvrtc && c.source != source_kind::cuda_runtime)
        continue;
      const std::string wheel_home = site_packages_home(c.path);
      for (const auto& f : d_.candidates) {
        if (!f.result || (f.source != source_kind::toolkit_files && f.source != source_kind::python_wheel)) continue;
        const bool same_toolkit = !c.toolkit_root.empty() && f.toolkit_root == c.toolkit_root;
        const bool same_wheels = !wheel_home.empty() && f.source == source_kind::python_wheel &&
                                 parent_dir(f.path) == wheel_home;
        if (!same_toolkit && !same_wheels) continue;
        if (f.describes != source_kind::none && f.describes != c.source) continue;
        if (same_release(&f, &c)) continue;
        const bool header = ends_with(f.path, "cuda.h");
        const bool nvcc = c.source == source_kind::nvcc;
        add(header && nvcc                   ? finding_kind::nvcc_vs_headers
            : nvcc                           ? finding_kind::nvcc_vs_toolkit_files
            : c.source == source_kind::nvrtc ? finding_kind::nvrtc_vs_toolkit_files
                                             : finding_kind::runtime_vs_toolkit_files,
            severity::warning,
            label(c) + " but " + f.path + " says " + to_text(f.result->version).str() + " (" + f.result->raw + ")",
            header && nvcc
                ? "code compiled by this nvcc sees the headers of another release: toolkits were mixed in one directory (or the nvcc is a "
                  "wrapper for another toolkit); reinstall one toolkit cleanly"
            : header
                ? "code JIT-compiled with this library and the toolkit's include/ directory comes from two releases; use one toolkit's "
                  "headers and libraries together"
                : "the files next to it describe another release: the installation was mixed or partly upgraded; reinstall it",
            {&c, &f});
      }
    }
  }

  void runtime_and_driver() {
    if (!answered(drv_)) return;
    const cuda_version driver = drv_->result->version.release();
    if (answered(rt_) && driver < rt_->result->version.release()) {
      const cuda_version runtime = rt_->result->version.release();
      const bool major = runtime.major > driver.major;
      const toolkit_row* row = find_toolkit_row(runtime);
      add(finding_kind::runtime_vs_driver, major ? severity::problem : severity::warning,
          label(*rt_) + " is newer than the driver, which serves CUDA " + release_text(driver) +
              (major ? " (" + drv_->result->raw + ")" : std::string()),
          major ? "minor-version compatibility does not cross major versions: programs using this runtime fail with cudaErrorInsufficientDriver. "
                  "Update the driver" +
                      (row && row->min_driver.major ? " to " + to_text(row->min_driver).str() + " or newer"
                                                    : std::string()) +
                      ", or use a CUDA " + std::to_string(driver.major) + ".x runtime"
                : "it runs through minor-version compatibility, but APIs newer than CUDA " + release_text(driver) +
                      " fail with cudaErrorCallRequiresNewerDriver, and PTX built by CUDA " + release_text(runtime) +
                      " cannot be JIT-compiled by this driver",
          {rt_, drv_});
    }
    for (const candidate* comp : {jit_, off_}) {
      if (!answered(comp)) continue;
      const arch_target any_ptx{{7, 5}, arch_variant::baseline, arch_form::ptx};
      const auto jit = check_driver_can_jit(any_ptx, comp->result->version, driver);
      if (jit) continue;
      const error& e = jit.error();
      const bool known = e.ptx_required.major != 0 && e.ptx_supported.major != 0;
      add(finding_kind::ptx_too_new_for_driver, severity::problem,
          label(*comp) + (known ? " emits PTX ISA " + to_text(e.ptx_required).str() + ", but the driver (CUDA " +
                                      release_text(driver) + ") JITs PTX ISA up to " + to_text(e.ptx_supported).str()
                                : " is newer than the driver (CUDA " + release_text(driver) + ")"),
          "PTX (compute_XY) from this compiler fails to load with CUDA_ERROR_UNSUPPORTED_PTX_VERSION; ship machine code (sm_XY) for each device, "
          "or update the driver to one serving CUDA " +
              release_of(comp) + " or newer",
          {comp, drv_});
    }
  }

  /// The runtime a framework links against the JIT compiler: information, since JIT targets follow NVRTC.
  void runtime_vs_nvrtc() {
    if (!answered(rt_) || !answered(jit_) || same_release(rt_, jit_)) return;
    add(finding_kind::runtime_vs_nvrtc, severity::info,
        label(*rt_) + " and JIT " + label(*jit_) + " are different releases",
        "a framework built for CUDA " + release_of(rt_) + " JIT-compiles with NVRTC " + release_of(jit_) +
            ": JIT targets follow NVRTC, not the framework's CUDA version",
        {rt_, jit_});
  }

  void compile_time() {
    const candidate* ct = nullptr;
    for (const auto& c : d_.candidates)
      if (c.source == source_kind::compile_time && c.result) ct = &c;
    if (!ct) return;
    if (answered(jit_) && !same_release(jit_, ct))
      add(finding_kind::compile_time_vs_nvrtc, severity::warning,
          "this program was compiled against CUDA " + release_of(ct) + " headers (" + ct->path + ") but loads " +
              label(*jit_),
          "code that uses NVRTC or driver APIs of its compile-time release may meet a library of another release; build against the NVRTC you load, "
          "or load the NVRTC you built against",
          {ct, jit_});
    if (answered(rt_) && rt_->result->version.major != ct->result->version.major)
      add(finding_kind::compile_time_vs_runtime, severity::warning,
          "compile-time CUDA " + release_of(ct) + " and " + label(*rt_) + " are different major releases",
          "a program built against one major release's headers and run with another's runtime is unsupported",
          {ct, rt_});
  }

  void devices() {
    if (d_.given_devices && *d_.given_devices && d_.driver_devices && *d_.driver_devices) {
      const std::string given = cc_list(**d_.given_devices, true), seen = cc_list(**d_.driver_devices, true);
      if (given != seen)
        add(finding_kind::given_devices_vs_driver, severity::warning,
            "the given devices (" + given + ") are not the GPUs the driver shows (" + seen + ")",
            "targets are resolved for the given list: code built for it may not run on this machine's GPUs (intended for a build machine?)");
    }
    // A driver older than the first release that supports a GPU it shows runs nothing on it
    // (check_driver_drives_device: a CUDA 12.4 driver and a Blackwell GPU). Once per cc.
    if (answered(drv_) && d_.driver_devices && *d_.driver_devices) {
      const auto& shown = **d_.driver_devices;
      for (const auto& dev : shown) {
        if (std::any_of(shown.data(), &dev, [&](const device_info& x) { return x.cc == dev.cc; })) continue;
        const auto drives = check_driver_drives_device(dev.cc, drv_->result->version);
        if (drives) continue;
        const std::string words = drives.error().message();  // the rule and its fix, worded once (core/error.hpp)
        add(finding_kind::driver_cannot_drive_device, severity::problem,
            label(*drv_) + " shows device " + std::to_string(dev.ordinal) + " (" + to_text(dev.cc).str() +
                (dev.name.empty() ? "" : ", " + printable(dev.name)) + "), but " +
                words.substr(0, words.find("; fix: ")),
            "no CUDA code runs on that GPU under this driver, whatever it was built for; " +
                words.substr(words.find("; fix: ") + 2),
            {drv_});
      }
    }
    const auto devs = d_.devices();
    if (!devs) return;
    if (std::any_of(devs->begin(), devs->end(), [&](const device_info& x) { return x.cc != devs->front().cc; }))
      add(finding_kind::mixed_devices, severity::info,
          "the devices have different compute capabilities (" + cc_list(*devs) + ")",
          "one target set must cover every device: native resolution builds for each compute capability present");
    std::vector<const candidate*> compilers{jit_, off_};
    for (const auto& c : d_.candidates)  // Triton builds with its bundled ptxas
      if (c.source == source_kind::ptxas && c.compiler && c.path.find("/triton/") != std::string::npos)
        compilers.push_back(&c);
    for (const candidate* comp : compilers) {
      if (!comp || !comp->compiler) continue;
      for (const auto& dev : *devs) {
        if (std::any_of(devs->data(), &dev, [&](const device_info& x) { return x.cc == dev.cc; }))
          continue;  // once per cc
        const std::string why = cannot_build(*comp->compiler, dev.cc);
        if (why.empty()) continue;
        const std::string role = comp == compilers[0] ? "JIT" : comp == compilers[1] ? "offline" : "Triton";
        add(finding_kind::device_not_buildable, severity::problem,
            role + " " + label(*comp) + " cannot build machine code for device " + std::to_string(dev.ordinal) + " (" +
                to_text(dev.cc).str() + (dev.name.empty() ? "" : ", " + dev.name) + "): " + why,
            role == "JIT"
                ? "JIT compilation for this GPU fails (or falls back to PTX of an older arch, if the driver can JIT it); load a newer NVRTC"
            : role == "offline"
                ? "offline builds for this GPU fail with this nvcc; use a newer toolkit for them"
                : "Triton kernels cannot be built for this GPU with the bundled ptxas; set TRITON_PTXAS_PATH to a newer ptxas",
            {comp});
      }
    }
  }

  /// Candidates of another release than the one governing their role, and those that failed.
  void other_candidates() {
    for (const auto& [gov, other] :
         {std::pair{jit_, finding_kind::other_nvrtc}, std::pair{off_, finding_kind::other_nvcc},
          std::pair{rt_, finding_kind::other_runtime}, std::pair{drv_, finding_kind::other_driver}}) {
      if (!gov) continue;
      for (const auto& c : d_.candidates) {
        if (&c == gov || c.source != gov->source) continue;
        if (!c.result) {
          const bool before = &c < gov;
          add(before ? finding_kind::candidate_failed : finding_kind::candidate_failed_unused,
              before ? severity::warning : severity::info,
              std::string(to_string(c.source)) + " at " + c.path + " (" + c.origin +
                  ") failed: " + c.result.error().message(),
              before ? "it ranks before the one used (" + gov->path + "); whatever relies on it fails"
                     : "not used; listed so nothing is hidden",
              {&c, gov});  // both: a resolve judged by `gov` reports the failure that ranks above it
        } else if (!same_release(&c, gov)) {
          add(other, severity::info, "also found " + label(c) + "; " + label(*gov) + " governs",
              "a process or build that picks the other one (another PATH, CUDA_HOME, loader path or Python environment) targets another release",
              {&c, gov});
        }
      }
    }
  }

  void table_age() {
    for (const candidate* c : {jit_, off_})
      if (answered(c) && newest_known_toolkit() < c->result->version.release())
        add(finding_kind::table_older_than_compiler, severity::info,
            label(*c) + " is newer than cuarch's table (which ends at CUDA " + release_text(newest_known_toolkit()) + ")",
            "live answers (nvrtcGetSupportedArchs) decide; where only the table can answer (a/f variants), update cuarch",
            {c});
  }

  const detection& d_;
  const candidate *const jit_, *const off_, *const rt_, *const drv_;  // what governs each role, or null
  std::vector<finding> out_;
};

}  // namespace detail

CUARCH_FUNC std::vector<finding> find_disagreements(const detection& d) { return detail::analyzer(d).run(); }

CUARCH_END_NAMESPACE
