// detect: finds every CUDA compiler, runtime, driver, toolkit and device this process could use,
// asks each one for its version, and records all of them with their provenance — the ones not
// chosen and the ones that failed included. It then names, per role, the candidate that governs
// and why. It resolves nothing silently: report.hpp lists where the candidates disagree.
//
// Discovery order, per component. Deterministic: it depends only on detect_options, the
// environment snapshot and the file system. A file reached along several routes (symlinks, lib64
// -> lib, /usr/local/cuda -> /usr/local/cuda-13.0) is one candidate, identified by its real path,
// listing every route in also_found_via; toolkit roots are identified the same way.
//
//   tier                                 NVRTC        CUDA runtime   driver        nvcc          ptxas
//   1 explicit argument (sticky)         nvrtc_path   cudart_path    libcuda_path  nvcc_path     ptxas_path
//   2 environment (sticky)               CUARCH_NVRTC CUARCH_CUDART  CUARCH_LIBCUDA CUARCH_NVCC, CUARCH_PTXAS,
//                                                                                  CUDACXX       TRITON_PTXAS_PATH
//   3 already loaded in this process     libnvrtc.so.* libcudart.so.* libcuda.so.*  -             -
//     (by the application: libraries cuarch itself loaded and keeps are not counted)
//   4 explicit toolkit root (cuda_home)  lib64, lib, targets/*/lib                  bin/nvcc      bin/ptxas
//   5 explicit python_prefixes           pip wheels: nvidia/cu13/lib, nvidia/cuda_nvrtc/lib,    nvidia/cu13/bin, nvidia/cuda_nvcc/bin,
//                                        nvidia/cuda_runtime/lib                                 triton/backends/nvidia/bin (ptxas)
//   6 $CUDA_HOME, then $CUDA_PATH        as tier 4                                  as tier 4
//   7 search                             loader (libX.so.<major>, newest first;     PATH, in order (the first
//                                        libcuda.so.1 only)                         is what a shell runs)
//   8 $VIRTUAL_ENV, $CONDA_PREFIX        as tier 5, and the conda prefix as a toolkit root
//   9 default locations                  /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda (never for the driver)
//
// The first candidate that answers governs its role: NVRTC the JIT compile path, nvcc the offline
// compile path, libcuda the load path (the runtime is what a framework in this process links).
// "Sticky": when an explicit argument or CUARCH_* variable names a file and asking it fails, that
// failure is the role's answer — cuarch never falls back past what the caller demanded. Libraries
// are never loaded from the current directory or a relative path unless the caller passed that
// path (a relative value in a variable is refused as invalid_environment). The driver is never
// taken from a toolkit (its lib64/stubs/libcuda.so fails every call with CUDA_ERROR_STUB_LIBRARY).
//
// Toolkit files (version.json, version.txt, cuda.h, dist-info, conda-meta) are read from every
// toolkit root met: cuda_home, $CUDA_HOME, $CUDA_PATH, the conda prefix, the defaults, and the
// toolkit around every compiler and library found. Devices: device_ccs when given (the driver's
// devices are still asked and recorded, to be compared); otherwise the driver's. The compile-time
// CUDA_VERSION is recorded when the caller passes CUARCH_COMPILE_TIME_OBSERVATION().
//
// Thread safety: detect() may run in several threads at once (library handles are shared under
// a mutex; nothing else is shared). It reads the environment only through `environment`. Nothing
// is cached unless the caller asks: detection_cache holds one result and re-detects on refresh().
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../sources/device_source.hpp"
#include "../sources/driver_source.hpp"
#include "../sources/posix/dynamic_library.hpp"
#include "../sources/environment.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../sources/nvcc_source.hpp"
#include "../sources/nvrtc_source.hpp"
#include "../core/observation.hpp"
#include "../sources/runtime_source.hpp"
#include "../core/source_kind.hpp"
#include "../sources/toolkit_files.hpp"
#include "../sources/wheel_layout.hpp"

CUARCH_BEGIN_NAMESPACE

/// What to look at. Empty strings mean "not given".
struct detect_options {
  // Explicit arguments: looked at first; a failing one is the answer for its role.
  std::string nvrtc_path, nvcc_path, cudart_path, libcuda_path, ptxas_path;
  std::string cuda_home;                     // an explicit toolkit root
  std::vector<std::string> python_prefixes;  // Python environments to scan (pip nvidia-* wheels, Triton)
  std::optional<std::vector<compute_capability>> device_ccs;  // explicit devices (build machines without GPUs)
  std::optional<expected<observation, error>> compile_time;   // CUARCH_COMPILE_TIME_OBSERVATION()
  std::optional<environment> env;            // default: environment::from_process()

  // Places beyond the explicit arguments and the environment variables.
  bool already_loaded = true;     // libraries already mapped into this process
  bool loader_search = true;      // the dynamic loader's search for libraries
  bool path_search = true;        // $PATH for programs
  bool default_locations = true;  // /usr/local/cuda and friends
  std::vector<std::string> default_roots;  // empty: /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda

  bool query_devices = true;  // cuInit + device queries through the chosen driver
  bool probe_ptxas = false;   // also find and run ptxas
  std::chrono::milliseconds tool_timeout = default_tool_timeout;
};

/// One place a component was found, and what asking it gave.
struct candidate {
  source_kind source = source_kind::none;    // nvrtc, cuda_runtime, driver, nvcc, ptxas, toolkit_files, python_wheel, compile_time
  source_kind describes = source_kind::none; // toolkit_files / python_wheel: the component the file is about (none: the toolkit)
  discovery how = discovery::explicit_argument;
  std::string origin;     // the route, in words: "CUDA_HOME=/opt/cuda", "PATH", "loader search for libnvrtc.so.13"
  std::string path;       // as found
  std::string real_path;  // symlinks resolved: the identity
  std::string toolkit_root;  // real path of the toolkit it belongs to, if any
  std::vector<std::string> also_found_via;
  expected<observation, error> result;    // what asking it gave (every candidate found is asked)
  std::optional<compiler_info> compiler;  // NVRTC / nvcc / ptxas that answered
  bool chosen = false;
};

/// Which candidate governs a role, and why; or why none does.
struct selection {
  std::optional<std::size_t> index;  // into detection::candidates
  std::string why;
  std::optional<error> failure;      // set when no candidate governs
};

/// A toolkit directory met during discovery.
struct toolkit_root {
  std::string path, real_path;
  discovery how = discovery::explicit_argument;
  std::string origin;
  std::vector<std::string> also_found_via;
  std::optional<error> problem;  // points nowhere, is not a toolkit, relative value, ...
};

/// A Python environment scanned for wheels.
struct python_environment {
  std::string prefix;
  discovery how = discovery::explicit_argument;
  std::string origin;
  std::vector<std::string> site_packages;
  std::optional<error> problem;
};

/// Everything detect() found.
struct detection {
  std::vector<candidate> candidates;
  std::vector<toolkit_root> toolkit_roots;
  std::vector<python_environment> python_environments;
  selection jit_compiler;      // NVRTC: the JIT compile path
  selection offline_compiler;  // nvcc: the offline compile path
  selection runtime;           // libcudart: what a framework in this process links
  selection driver;            // libcuda: the load path
  std::optional<std::size_t> nvcc_on_path;  // the nvcc a shell runs: the first one on PATH (candidate index)
  std::optional<std::vector<device_info>> given_devices;
  std::optional<expected<std::vector<device_info>, error>> driver_devices;  // nullopt: not asked
  environment env;             // the snapshot detection read
  std::chrono::microseconds elapsed{0};

  const candidate* chosen(const selection& s) const { return s.index ? &candidates[*s.index] : nullptr; }

  /// The compiler of a role, as resolution wants it; the role's failure otherwise.
  expected<compiler_info, error> compiler_of(const selection& s) const {
    if (const candidate* c = chosen(s); c && c->compiler) return *c->compiler;
    return unexpected(s.failure ? *s.failure : detail::make_error(errc::library_not_found, source_kind::none));
  }
  /// The driver's observation, or why there is none.
  expected<observation, error> driver_version() const {
    if (const candidate* c = chosen(driver)) return c->result;
    return unexpected(driver.failure ? *driver.failure : detail::make_error(errc::library_not_found, source_kind::driver));
  }
  /// The devices that count: the given list, else the driver's. No device is a no_device error
  /// telling the user to pass a list — never a default architecture.
  expected<std::vector<device_info>, error> devices() const {
    if (given_devices) return *given_devices;
    if (driver_devices && *driver_devices) return **driver_devices;
    error e = detail::make_error(errc::no_device, source_kind::driver);
    const error* why = driver_devices ? &driver_devices->error() : driver.failure ? &*driver.failure : nullptr;
    if (why) {
      e.location = why->location;
      e.native_status = why->native_status;
      if (why->code == errc::no_device) {
        e.raw = why->raw.view();
      } else {
        e.raw.append("the driver could not be asked: ").append(to_string(why->code)).append(" - ").append(why->raw.view());
      }
    } else {
      e.raw = "the driver was not asked for devices";
    }
    return unexpected(e);
  }
};

/// detection's roles in the source shapes resolution takes (compiler(), devices(), driver_version()).
struct detected_jit_compiler {
  const detection* d;
  expected<compiler_info, error> compiler() const { return d->compiler_of(d->jit_compiler); }
};
struct detected_offline_compiler {
  const detection* d;
  expected<compiler_info, error> compiler() const { return d->compiler_of(d->offline_compiler); }
};
struct detected_devices {
  const detection* d;
  expected<std::vector<device_info>, error> devices() const { return d->devices(); }
};
struct detected_driver {
  const detection* d;
  expected<observation, error> driver_version() const { return d->driver_version(); }
};

namespace detail {

/// A place to look, before looking.
struct search_spec {
  discovery how = discovery::explicit_argument;
  std::string origin;
  std::string path;    // a file; or empty with soname set (loader search)
  std::string soname;
  bool sticky = false;
  bool allow_relative = false;
  std::optional<error> problem;  // known to be wrong before asking (e.g. a relative variable)
};

inline bool same_real(const std::string& a, const std::string& b) { return !a.empty() && a == b; }

/// A variable naming a file or directory: relative values are refused (cuarch does not look in
/// the current directory on a variable's word).
inline std::optional<error> check_variable_path(const std::string& name, const std::string& value, source_kind src) {
  if (!value.empty() && value.front() == '/') return std::nullopt;
  error e = make_error(errc::invalid_environment, src);
  e.subject = value;
  e.location = name;
  e.raw = "a relative path: cuarch does not load or run anything from the current directory; use an absolute path";
  return e;
}

/// Files named prefix* in a directory, one per real file, SONAME before full-version names.
inline std::vector<std::string> versioned_files(const std::string& dir, std::string_view prefix) {
  std::vector<std::string> hits;
  for (const auto& name : list_dir(dir))
    if (starts_with(name, prefix) && name.find(".alt.") == std::string::npos) hits.push_back(name);
  std::sort(hits.begin(), hits.end(), [&](const std::string& a, const std::string& b) { return soname_before(a, b, prefix.size()); });
  std::vector<std::string> out, reals;
  for (const auto& h : hits) {
    const std::string p = join(dir, h);
    const std::string r = real_path(p);
    if (std::find(reals.begin(), reals.end(), r) != reals.end()) continue;
    reals.push_back(r);
    out.push_back(p);
  }
  return out;
}

/// The library directories of a toolkit root.
inline std::vector<std::string> library_dirs(const std::string& root) {
  std::vector<std::string> dirs{join(root, "lib64"), join(root, "lib")};
  for (const auto& t : list_dir(join(root, "targets"))) dirs.push_back(join(root, "targets/" + t + "/lib"));
  return dirs;
}

/// /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda: those that exist.
inline std::vector<std::string> default_toolkit_roots() {
  std::vector<std::string> roots{"/usr/local/cuda"};
  std::vector<std::pair<cuda_version, std::string>> versioned;
  for (const auto& name : list_dir("/usr/local")) {
    if (!starts_with(name, "cuda-")) continue;
    if (const auto v = parse_cuda_version(std::string_view(name).substr(5))) versioned.emplace_back(*v, "/usr/local/" + name);
  }
  std::sort(versioned.begin(), versioned.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
  for (auto& v : versioned) roots.push_back(std::move(v.second));
  roots.emplace_back("/opt/cuda");
  std::vector<std::string> out;
  for (auto& r : roots)
    if (is_directory(r)) out.push_back(std::move(r));
  return out;
}

/// The program a tiny wrapper script hands over to: the target of its final `exec /abs/path "$@"`
/// line (Debian's /usr/bin/nvcc, /usr/local/bin/nvcc shims). Empty for anything else.
inline std::string exec_wrapper_target(const std::string& path) {
  if (path.empty()) return {};
  const auto text = read_small_file(path, source_kind::none, 4096);
  if (!text || text->compare(0, 2, "#!") != 0) return {};
  std::string_view rest(*text), last;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = trim(rest.substr(0, nl));
    if (!line.empty() && line.front() != '#') last = line;
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  if (!starts_with(last, "exec ")) return {};
  std::string_view target = trim(last.substr(5));
  const std::size_t space = target.find(' ');
  const std::string_view args = space == std::string_view::npos ? std::string_view() : trim(target.substr(space + 1));
  target = target.substr(0, space);
  if (target.empty() || target.front() != '/' || !(args.empty() || args == "\"$@\"" || args == "$@")) return {};
  const std::string real = real_path(std::string(target));
  return real != path ? real : std::string();
}

/// How the caller names a component explicitly (for "not found" errors).
constexpr std::string_view option_hint(source_kind kind) noexcept {
  switch (kind) {
    case source_kind::nvrtc: return "detect_options::nvrtc_path, CUARCH_NVRTC, or the doctor's --nvrtc";
    case source_kind::cuda_runtime: return "detect_options::cudart_path, CUARCH_CUDART, or --cudart";
    case source_kind::driver: return "detect_options::libcuda_path, CUARCH_LIBCUDA, or --libcuda";
    case source_kind::nvcc: return "detect_options::nvcc_path, CUARCH_NVCC, CUDACXX, or --nvcc";
    case source_kind::ptxas: return "detect_options::ptxas_path, CUARCH_PTXAS, or --ptxas";
    default: return "an explicit path";
  }
}

inline std::string describe_how(discovery how) {
  switch (how) {
    case discovery::explicit_argument: return "given explicitly";
    case discovery::environment: return "named by the environment";
    case discovery::path_search: return "first on PATH: what a build or shell runs";
    case discovery::already_loaded: return "already loaded in this process: what its code calls";
    case discovery::loader_search: return "what the dynamic loader finds (LD_LIBRARY_PATH, ld.so.cache)";
    case discovery::default_location: return "the default install location";
    case discovery::python_site_packages: return "a pip wheel in the Python environment";
    case discovery::linked: return "linked into this program";
    case discovery::compile_time: return "compile time";
  }
  return "";
}

/// Builds a detection step by step; one per detect() call, so nothing is shared between threads.
class detector {
 public:
  explicit detector(const detect_options& o) : opts_(o), env_(o.env ? *o.env : environment::from_process()) {}

  detection run() {
    const auto start = std::chrono::steady_clock::now();
    d_.env = env_;
    collect_roots();
    collect_python();
    run_libraries(source_kind::nvrtc, nvrtc_specs(), &d_.jit_compiler, "libnvrtc");
    run_libraries(source_kind::cuda_runtime, runtime_specs(), &d_.runtime, "libcudart");
    run_libraries(source_kind::driver, driver_specs(), &d_.driver, "libcuda.so.1");
    run_tools(source_kind::nvcc, tool_specs(source_kind::nvcc), &d_.offline_compiler, "nvcc");
    if (opts_.probe_ptxas) run_tools(source_kind::ptxas, tool_specs(source_kind::ptxas), nullptr, "ptxas");
    add_roots_of_candidates();
    observe_roots();
    observe_wheels();
    if (opts_.compile_time) {
      candidate c;
      c.source = source_kind::compile_time;
      c.how = discovery::compile_time;
      c.origin = "CUARCH_COMPILE_TIME_OBSERVATION()";
      c.result = *opts_.compile_time;
      if (c.result) c.path = c.result->location;
      d_.candidates.push_back(std::move(c));
    }
    detect_devices();
    d_.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    return std::move(d_);
  }

 private:
  // ---- toolkit roots and Python environments ------------------------------------------------
  void add_root(const std::string& path, discovery how, const std::string& origin, const std::string& variable = {}) {
    toolkit_root r;
    r.path = path;
    r.how = how;
    r.origin = origin;
    if (!variable.empty()) r.problem = check_variable_path(variable, path, source_kind::toolkit_files);
    if (!r.problem) {
      r.real_path = real_path(path);
      if (r.real_path.empty() || !is_directory(r.real_path)) {
        error e = make_error(variable.empty() ? errc::file_unreadable : errc::invalid_environment, source_kind::toolkit_files);
        e.subject = path;
        e.location = variable.empty() ? path : variable;
        e.raw = exists(path) ? "not a directory" : "no such directory";
        r.problem = e;
      }
    }
    if (!r.problem)
      for (auto& existing : d_.toolkit_roots)
        if (same_real(existing.real_path, r.real_path)) {
          if (how_found_ != root_route::derived) existing.also_found_via.push_back(origin);  // "toolkit of X" adds nothing new
          return;
        }
    d_.toolkit_roots.push_back(std::move(r));
  }

  void collect_roots() {
    if (!opts_.cuda_home.empty()) {
      std::string p = opts_.cuda_home;
      if (p.front() != '/') p = current_directory() + "/" + p;  // the caller passed it: relative is allowed
      add_root(p, discovery::explicit_argument, "explicit toolkit root " + p);
    }
    root_explicit_end_ = d_.toolkit_roots.size();
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
      if (const auto v = env_.get_nonempty(var)) add_root(*v, discovery::environment, std::string(var) + "=" + *v, var);
    root_env_end_ = d_.toolkit_roots.size();
    if (const auto conda = env_.get_nonempty("CONDA_PREFIX"))
      if (conda->front() == '/' && (looks_like_toolkit_root(*conda) || is_directory(join(*conda, "conda-meta"))))
        add_root(*conda, discovery::environment, "CONDA_PREFIX=" + *conda);
    if (opts_.default_locations) {
      const auto defaults = opts_.default_roots.empty() ? default_toolkit_roots() : opts_.default_roots;
      for (const auto& r : defaults) add_root(r, discovery::default_location, "default location " + r);
    }
  }

  void add_python(const std::string& prefix, discovery how, const std::string& origin, const std::string& variable) {
    python_environment p;
    p.prefix = prefix;
    p.how = how;
    p.origin = origin;
    if (!variable.empty()) p.problem = check_variable_path(variable, prefix, source_kind::python_wheel);
    if (!p.problem) {
      if (!is_directory(prefix)) {
        error e = make_error(variable.empty() ? errc::file_unreadable : errc::invalid_environment, source_kind::python_wheel);
        e.subject = prefix;
        e.location = variable.empty() ? prefix : variable;
        e.raw = "no such directory";
        p.problem = e;
      } else {
        p.site_packages = site_packages_of(prefix);
        if (p.site_packages.empty() && variable.empty()) {
          error e = make_error(errc::file_unreadable, source_kind::python_wheel);
          e.subject = prefix;
          e.location = prefix;
          e.raw = "no lib/python3.*/site-packages here, and not a site-packages directory itself";
          p.problem = e;
        }
      }
    }
    d_.python_environments.push_back(std::move(p));
  }

  void collect_python() {
    for (const auto& prefix : opts_.python_prefixes) {
      std::string p = prefix;
      if (!p.empty() && p.front() != '/') p = current_directory() + "/" + p;
      add_python(p, discovery::explicit_argument, "python prefix " + p, {});
    }
    explicit_pythons_ = d_.python_environments.size();
    for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
      if (const auto v = env_.get_nonempty(var)) add_python(*v, discovery::environment, std::string(var) + "=" + *v, var);
  }

  /// Wheel files of one component in the Python environments [from, to).
  void wheel_specs(std::vector<search_spec>& out, source_kind component, std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to && i < d_.python_environments.size(); ++i) {
      const auto& env = d_.python_environments[i];
      for (const auto& sp : env.site_packages)
        for (const auto& f : scan_site_packages(sp).files)
          if (f.component == component) {
            search_spec s;
            s.how = discovery::python_site_packages;
            s.origin = f.package + " in " + sp;
            s.path = f.path;
            out.push_back(std::move(s));
          }
    }
  }

  /// Library files of one kind in the toolkit roots [from, to).
  void root_library_specs(std::vector<search_spec>& out, std::string_view prefix, std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to && i < d_.toolkit_roots.size(); ++i) {
      const auto& r = d_.toolkit_roots[i];
      if (r.problem) continue;
      for (const auto& dir : library_dirs(r.path))
        for (const auto& f : versioned_files(dir, prefix)) {
          search_spec s;
          s.how = r.how;
          s.origin = r.origin;
          s.path = f;
          out.push_back(std::move(s));
        }
    }
  }

  // ---- plans: where each component is looked for, in order -----------------------------------
  void explicit_spec(std::vector<search_spec>& out, const std::string& path, const char* what) const {
    if (path.empty()) return;
    search_spec s;
    s.how = discovery::explicit_argument;
    s.origin = std::string("explicit ") + what;
    s.path = path;
    s.sticky = true;
    s.allow_relative = true;
    out.push_back(std::move(s));
  }
  void variable_spec(std::vector<search_spec>& out, const char* var, source_kind src, bool sticky = true) const {
    const auto v = env_.get_nonempty(var);
    if (!v) return;
    search_spec s;
    s.how = discovery::environment;
    s.origin = std::string(var) + "=" + *v;
    s.path = *v;
    s.sticky = sticky;
    s.problem = check_variable_path(var, *v, src);
    out.push_back(std::move(s));
  }
  void loaded_specs(std::vector<search_spec>& out, std::string_view prefix) const {
    if (!opts_.already_loaded) return;
    for (const auto& p : loaded_library_paths(prefix)) {
      if (held_by_cuarch(real_path(p))) continue;  // cuarch's own load (an earlier detection), not the application's
      search_spec s;
      s.how = discovery::already_loaded;
      s.origin = "already loaded in this process";
      s.path = p;
      out.push_back(std::move(s));
    }
  }
  void loader_specs(std::vector<search_spec>& out, const std::vector<std::string>& sonames) const {
    if (!opts_.loader_search) return;
    for (const auto& name : sonames) {
      search_spec s;
      s.how = discovery::loader_search;
      s.origin = "loader search for " + name;
      s.soname = name;
      out.push_back(std::move(s));
    }
  }

  /// Tiers 4-9 for a library kind: explicit root, explicit pythons, CUDA_HOME/CUDA_PATH, loader,
  /// environment pythons and the conda prefix, defaults.
  std::vector<search_spec> library_plan(std::vector<search_spec> out, source_kind component, std::string_view prefix,
                                        const std::vector<std::string>& sonames) const {
    root_library_specs(out, prefix, 0, root_explicit_end_);
    wheel_specs(out, component, 0, explicit_pythons_);
    root_library_specs(out, prefix, root_explicit_end_, root_env_end_);
    loader_specs(out, sonames);
    wheel_specs(out, component, explicit_pythons_, d_.python_environments.size());
    root_library_specs(out, prefix, root_env_end_, d_.toolkit_roots.size());
    return out;
  }

  // Tiers 1-3 of a library: the explicit argument, its CUARCH_* variable, what is already loaded.
  std::vector<search_spec> first_library_specs(const std::string& explicit_path, const char* what, const char* variable,
                                               source_kind kind, const char* soname_prefix) const {
    std::vector<search_spec> out;
    explicit_spec(out, explicit_path, what);
    variable_spec(out, variable, kind);
    loaded_specs(out, soname_prefix);
    return out;
  }
  std::vector<search_spec> nvrtc_specs() const {
    return library_plan(first_library_specs(opts_.nvrtc_path, "NVRTC library", "CUARCH_NVRTC", source_kind::nvrtc, "libnvrtc.so."),
                        source_kind::nvrtc, "libnvrtc.so.", nvrtc_sonames());
  }
  std::vector<search_spec> runtime_specs() const {
    return library_plan(first_library_specs(opts_.cudart_path, "CUDA runtime library", "CUARCH_CUDART", source_kind::cuda_runtime,
                                            "libcudart.so."),
                        source_kind::cuda_runtime, "libcudart.so.", cudart_sonames());
  }
  std::vector<search_spec> driver_specs() const {  // never from a toolkit root: its libcuda is a stub
    auto out = first_library_specs(opts_.libcuda_path, "driver library", "CUARCH_LIBCUDA", source_kind::driver, "libcuda.so.");
    loader_specs(out, {std::string(driver_soname)});
    return out;
  }

  std::vector<search_spec> tool_specs(source_kind kind) const {
    const char* name = kind == source_kind::nvcc ? "nvcc" : "ptxas";
    std::vector<search_spec> out;
    if (kind == source_kind::nvcc) {
      explicit_spec(out, opts_.nvcc_path, "nvcc");
      variable_spec(out, "CUARCH_NVCC", kind);
      variable_spec(out, "CUDACXX", kind);
    } else {
      explicit_spec(out, opts_.ptxas_path, "ptxas");
      variable_spec(out, "CUARCH_PTXAS", kind);
      variable_spec(out, "TRITON_PTXAS_PATH", kind, false);
    }
    auto root_tools = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to && i < d_.toolkit_roots.size(); ++i) {
        const auto& r = d_.toolkit_roots[i];
        const std::string f = join(r.path, std::string("bin/") + name);
        if (r.problem || !is_file(f)) continue;
        search_spec s;
        s.how = r.how;
        s.origin = r.origin;
        s.path = f;
        out.push_back(std::move(s));
      }
    };
    if (kind == source_kind::ptxas)  // the ptxas beside each nvcc found: what that nvcc runs
      for (const auto& c : d_.candidates)
        if (c.source == source_kind::nvcc && !c.real_path.empty()) {
          search_spec s;
          s.how = c.how;
          s.origin = "beside nvcc " + c.path;
          s.path = join(parent_dir(c.real_path), "ptxas");
          if (is_file(s.path)) out.push_back(std::move(s));
        }
    root_tools(0, root_explicit_end_);
    wheel_specs(out, kind, 0, explicit_pythons_);
    root_tools(root_explicit_end_, root_env_end_);
    if (opts_.path_search)
      if (const auto path = env_.get("PATH"))
        for (const auto& dir : split_path_list(*path)) {
          search_spec s;
          s.how = discovery::path_search;
          s.origin = "PATH " + (dir.empty() ? std::string("(empty entry)") : dir);
          s.path = join(dir.empty() ? std::string(".") : dir, name);
          if (!is_file(s.path) || ::access(s.path.c_str(), X_OK) != 0) continue;
          if (dir.empty() || dir.front() != '/') {  // PATH entry relative to the current directory
            error e = make_error(errc::invalid_environment, kind);
            e.subject = dir;
            e.location = "PATH";
            e.raw.append("entry '").append(dir).append("' is relative and holds ").append(name).append("; cuarch does not run programs from the current directory");
            s.problem = e;
          }
          out.push_back(std::move(s));
        }
    wheel_specs(out, kind, explicit_pythons_, d_.python_environments.size());
    root_tools(root_env_end_, d_.toolkit_roots.size());
    return out;
  }

  // ---- asking the candidates -----------------------------------------------------------------
  /// Folds a candidate into an earlier one with the same real path; true if it was a duplicate.
  bool merge_duplicate(source_kind kind, const std::string& real, const std::string& origin) {
    for (std::size_t i = 0; i < d_.candidates.size(); ++i) {
      candidate& c = d_.candidates[i];
      if (c.source != kind || !same_real(c.real_path, real)) continue;
      if (origin != c.origin && std::find(c.also_found_via.begin(), c.also_found_via.end(), origin) == c.also_found_via.end())
        c.also_found_via.push_back(origin);
      last_merged_ = i;
      return true;
    }
    return false;
  }

  static void fail_spec(candidate& c, error e) { c.result = unexpected(std::move(e)); }

  void choose(selection* sel, std::size_t index, bool& done, const char* role) {
    if (!sel || done) return;
    const candidate& c = d_.candidates[index];
    if (c.result) {
      d_.candidates[index].chosen = true;
      sel->index = index;
      sel->why = c.origin + ": " + describe_how(c.how) + "; the first " + role + " in cuarch's discovery order that answered";
      if (!failed_before_.empty()) sel->why += " (before it, " + failed_before_ + " failed)";
      done = true;
    } else if (sticky_) {
      sel->failure = c.result.error();
      sel->why = c.origin + " was given and failed; cuarch does not fall back to another " + std::string(role);
      done = true;
    } else {
      if (!failed_before_.empty()) failed_before_ += ", ";
      failed_before_ += c.origin;
    }
  }

  void finish(selection* sel, bool done, source_kind kind, const char* what, std::size_t first_index) {
    failed_before_.clear();
    const auto reset_miss = [this] { loader_miss_.reset(); };
    struct on_exit {
      decltype(reset_miss)& f;
      ~on_exit() { f(); }
    } guard{reset_miss};
    if (!sel || done) return;
    error e = make_error(kind == source_kind::nvcc || kind == source_kind::ptxas ? errc::file_unreadable : errc::library_not_found, kind);
    e.subject = what;
    bool any = false;
    for (std::size_t i = first_index; i < d_.candidates.size(); ++i)
      if (d_.candidates[i].source == kind) any = true;
    if (!any && loader_miss_) {
      // Nothing anywhere; the loader's own words say best why the usual place failed.
      e = *loader_miss_;
      e.subject = what;
      e.location = "loader search" + std::string(opts_.default_locations ? " and every other place in the discovery order" : "");
      sel->why = std::string("no ") + what + " found";
    } else if (any) {
      // Every candidate failed: the first failure is the most telling (it is the highest tier).
      for (std::size_t i = first_index; i < d_.candidates.size(); ++i)
        if (d_.candidates[i].source == kind && !d_.candidates[i].result) {
          e = d_.candidates[i].result.error();
          break;
        }
      sel->why = std::string("every ") + what + " found failed";
    } else {
      const bool program = kind == source_kind::nvcc || kind == source_kind::ptxas;
      e.location = "explicit arguments, environment, toolkit roots, Python environments" +
                   std::string(program ? (opts_.path_search ? ", PATH" : "") : (opts_.loader_search ? ", loader search" : "")) +
                   std::string(opts_.default_locations ? ", default locations" : "");
      e.raw.append("not found anywhere cuarch looked (to name it: ").append(option_hint(kind)).append(")");
      sel->why = std::string("no ") + what + " found";
    }
    sel->failure = e;
  }

  // The frame both kinds of search share: one candidate per spec, in order; a spec that could not
  // even be tried is a failed candidate; `ask` fills the candidate and returns false when it is
  // not one (the loader has no such name, or the file is already a candidate by another route).
  template <class Ask>
  void run_specs(source_kind kind, const std::vector<search_spec>& specs, selection* sel, const char* what, Ask&& ask) {
    bool done = false;
    const std::size_t first = d_.candidates.size();
    for (const auto& s : specs) {
      candidate c;
      c.source = kind;
      c.how = s.how;
      c.origin = s.origin;
      c.path = s.path.empty() ? s.soname : s.path;
      sticky_ = s.sticky;
      if (s.problem) {
        fail_spec(c, *s.problem);
      } else if (!ask(s, c)) {
        continue;
      }
      // The first nvcc on PATH is what a shell would run: remembered even when it failed.
      if (kind == source_kind::nvcc && s.how == discovery::path_search && !d_.nvcc_on_path) d_.nvcc_on_path = d_.candidates.size();
      d_.candidates.push_back(std::move(c));
      choose(sel, d_.candidates.size() - 1, done, what);
    }
    sticky_ = false;
    finish(sel, done, kind, what, first);
  }

  void run_libraries(source_kind kind, const std::vector<search_spec>& specs, selection* sel, const char* what) {
    run_specs(kind, specs, sel, what, [&](const search_spec& s, candidate& c) {
      const auto lib = !s.path.empty() ? load_library_file(s.path, kind, s.allow_relative ? library_path_policy::allow_relative : library_path_policy::absolute_only)
                                       : load_library_by_name(s.soname, kind);
      if (!lib) {
        if (s.path.empty() && lib.error().code == errc::library_not_found) {  // the loader has no such SONAME: not a candidate
          if (!loader_miss_) loader_miss_ = lib.error();
          return false;
        }
        c.real_path = s.path.empty() ? std::string() : real_path(s.path);
        if (!c.real_path.empty() && merge_duplicate(kind, c.real_path, s.origin)) return false;
        fail_spec(c, lib.error());
        return true;
      }
      c.real_path = lib->path();
      if (s.path.empty()) c.path = lib->path();
      if (merge_duplicate(kind, c.real_path, s.origin)) return false;
      c.toolkit_root = toolkit_root_of(c.real_path);
      if (kind == source_kind::nvrtc) {
        auto p = probe_nvrtc_library(*lib, c.path, s.how);
        if (p) {
          c.result = p->seen;
          c.compiler = std::move(p->info);
        } else {
          c.result = unexpected(p.error());
        }
      } else if (kind == source_kind::cuda_runtime) {
        c.result = probe_cudart_library(*lib, c.path, s.how);
      } else {
        c.result = driver_library_source(lib->path(), s.how, library_path_policy::absolute_only).driver_version();
        if (c.result) c.result->location = c.path;
      }
      return true;
    });
  }

  void run_tools(source_kind kind, const std::vector<search_spec>& specs, selection* sel, const char* what) {
    run_specs(kind, specs, sel, what, [&](const search_spec& s, candidate& c) {
      std::string abs = s.path;
      if (s.allow_relative && !abs.empty() && abs.front() != '/') abs = current_directory() + "/" + abs;
      c.real_path = real_path(abs);
      if (const std::string target = exec_wrapper_target(c.real_path); !target.empty()) {
        c.real_path = target;  // a wrapper script (`exec /opt/cuda/bin/nvcc "$@"`) is the program it runs
        c.origin += " (wrapper script for " + target + ")";
      }
      if (!c.real_path.empty() && merge_duplicate(kind, c.real_path, c.origin)) {
        if (kind == source_kind::nvcc && s.how == discovery::path_search && !d_.nvcc_on_path) d_.nvcc_on_path = last_merged_;
        return false;  // already a candidate by another route; still the first nvcc on PATH if it is
      }
      c.toolkit_root = c.real_path.empty() ? std::string() : toolkit_root_of(c.real_path);
      auto p = probe_tool_version(abs, kind, s.how, opts_.tool_timeout,
                                  s.allow_relative ? library_path_policy::allow_relative : library_path_policy::absolute_only);
      if (p) {
        p->seen.location = s.path;
        c.result = p->seen;
        c.compiler = std::move(p->info);
      } else {
        c.result = unexpected(p.error());
      }
      return true;
    });
  }

  // ---- toolkit files, wheels, devices --------------------------------------------------------
  void add_roots_of_candidates() {
    how_found_ = root_route::derived;
    const std::size_t n = d_.candidates.size();
    for (std::size_t i = 0; i < n; ++i) {
      const candidate& c = d_.candidates[i];
      if (c.toolkit_root.empty()) continue;
      add_root(c.toolkit_root, c.how, "toolkit of " + std::string(to_string(c.source)) + " " + c.path);
    }
    how_found_ = root_route::searched;
  }

  void observe_roots() {
    for (const auto& r : d_.toolkit_roots) {
      if (r.problem) continue;
      for (auto& o : observe_toolkit_root(r.path, r.how)) {
        candidate c;
        c.source = source_kind::toolkit_files;
        c.how = r.how;
        c.origin = r.origin;
        c.toolkit_root = r.real_path;
        if (o) {
          c.source = o->seen.source;
          c.describes = o->describes;
          c.path = o->seen.location;
          c.real_path = real_path(c.path);
          c.result = std::move(o->seen);
        } else {
          c.path = r.path;
          c.result = unexpected(o.error());
        }
        d_.candidates.push_back(std::move(c));
      }
    }
  }

  void observe_wheels() {
    for (const auto& env : d_.python_environments)
      for (const auto& sp : env.site_packages)
        for (auto& o : scan_site_packages(sp).dist_infos) {
          candidate c;
          c.source = source_kind::python_wheel;
          c.describes = o.describes;
          c.how = discovery::python_site_packages;
          c.origin = env.origin;
          c.path = o.seen.location;
          c.real_path = real_path(c.path);
          c.result = std::move(o.seen);
          d_.candidates.push_back(std::move(c));
        }
  }

  void detect_devices() {
    if (opts_.device_ccs) {
      const auto given = explicit_device_source(*opts_.device_ccs).devices();
      if (given) d_.given_devices = *given;
    }
    if (!opts_.query_devices) return;
    if (const candidate* c = d_.chosen(d_.driver)) {
      d_.driver_devices = driver_device_source(driver_library_source(c->real_path, c->how, library_path_policy::absolute_only)).devices();
    } else if (d_.driver.failure) {
      d_.driver_devices = unexpected(*d_.driver.failure);
    }
  }

  const detect_options& opts_;
  environment env_;
  detection d_;
  std::size_t root_explicit_end_ = 0;  // toolkit_roots [0, this): the explicit root
  std::size_t root_env_end_ = 0;       // [root_explicit_end_, this): $CUDA_HOME, $CUDA_PATH; then conda, defaults
  std::size_t explicit_pythons_ = 0;  // python_environments [0, explicit_pythons_): explicit prefixes
  bool sticky_ = false;
  std::string failed_before_;
  std::optional<error> loader_miss_;  // the first "no such SONAME" of the current component
  std::size_t last_merged_ = 0;       // the candidate merge_duplicate folded into
  enum class root_route { searched, derived } how_found_ = root_route::searched;  // derived: the toolkit around a candidate
};

}  // namespace detail

/// Finds and asks every source; see the discovery order at the top of this header. Never throws;
/// every failure is inside the result, attached to the candidate or role it concerns.
inline detection detect(const detect_options& options = {}) { return detail::detector(options).run(); }

/// A detection kept for reuse, only because the caller asked for it. Thread-safe: the first get()
/// detects (concurrent callers wait for that one run); refresh() detects again.
class detection_cache {
 public:
  explicit detection_cache(detect_options options = {}) : options_(std::move(options)) {}

  std::shared_ptr<const detection> get() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!cached_) cached_ = std::make_shared<const detection>(detect(options_));
    return cached_;
  }
  std::shared_ptr<const detection> refresh() {
    auto fresh = std::make_shared<const detection>(detect(options_));
    std::lock_guard<std::mutex> lock(mutex_);
    cached_ = fresh;
    return fresh;
  }

 private:
  std::mutex mutex_;
  detect_options options_;
  std::shared_ptr<const detection> cached_;
};

CUARCH_END_NAMESPACE
