// What detection is asked (detect_options) and what it answers (detection: every candidate, and
// per role the one that governs, or why none does). Plain values: the walk that fills them is in
// walk.hpp, the order it walks in is plan.hpp.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "../core/environment.hpp"
#include "../sources/tool_timeout.hpp"

CUARCH_BEGIN_NAMESPACE

/// A question detection can answer. A request names only the roles it needs: the others are not
/// looked for at all (nothing loaded, nothing run, no file read for them).
enum class detect_role : unsigned {
  jit_compiler = 1u << 0,      // NVRTC: the JIT compile path
  offline_compiler = 1u << 1,  // nvcc: the offline compile path (and ptxas, when probe_ptxas)
  runtime = 1u << 2,           // libcudart
  driver = 1u << 3,            // libcuda.so.1
  devices = 1u << 4,           // the driver's devices (implies the driver role)
  toolkit_files = 1u << 5,     // version.json, version.txt, cuda.h, dist-info, conda-meta of every toolkit met
};

/// A set of roles. role_set::all() is the default: everything, as `cuarch doctor` wants it.
class role_set {
 public:
  constexpr role_set() noexcept = default;                                         // no role
  constexpr role_set(detect_role r) noexcept : bits_(static_cast<unsigned>(r)) {}  // NOLINT: a role is a set of one
  static constexpr role_set all() noexcept { return role_set(0x3Fu); }
  constexpr bool has(detect_role r) const noexcept { return (bits_ & static_cast<unsigned>(r)) != 0; }
  friend constexpr role_set operator|(role_set a, role_set b) noexcept { return role_set(a.bits_ | b.bits_); }
  friend constexpr bool operator==(role_set a, role_set b) noexcept { return a.bits_ == b.bits_; }

 private:
  explicit constexpr role_set(unsigned bits) noexcept : bits_(bits) {}
  unsigned bits_ = 0;
};
constexpr role_set operator|(detect_role a, detect_role b) noexcept { return role_set(a) | role_set(b); }

/// How far each role's walk goes.
enum class detect_mode : unsigned char {
  enumerate_all,  // ask every candidate of every role (the doctor: disagreements need them all)
  first_answer,   // stop a role at the candidate that governs it: lower tiers are not walked
  // first_answer, and past the answer the compilers the user's own tools would run (CUDACXX,
  // $CUDA_HOME/$CUDA_PATH, the first nvcc on PATH, an NVRTC already loaded), to compare verdicts.
  answer_and_tools,
};

/// The default bound on one whole detection: every probe shares it (a tool probe gets
/// min(tool_timeout, time left)); what is not reached in time is recorded as not probed.
inline constexpr std::chrono::milliseconds default_detection_deadline{10000};

/// A front end's word while cuarch may be slow (`cuarch`'s progress line): before each step that can
/// take long (a probe, a file read), `step` gets it in words ("probing /usr/bin/nvcc (--version)"),
/// on the thread that called detect() or inspect_here(). noexcept: a callback cannot throw into
/// cuarch. Unset (the default), nothing is built or called.
struct progress_hook {
  void (*step)(void* context, std::string_view what) noexcept = nullptr;
  void* context = nullptr;
  explicit operator bool() const noexcept { return step != nullptr; }
  void operator()(std::string_view what) const noexcept { step(context, what); }
};

/// What to look at. Empty strings mean "not given".
struct detect_options {
  // Explicit arguments: looked at first; a failing one is the answer for its role.
  std::string nvrtc_path, nvcc_path, cudart_path, libcuda_path, ptxas_path;
  std::string cuda_home;                     // an explicit toolkit root
  std::vector<std::string> python_prefixes;  // Python environments to scan (pip nvidia-* wheels, Triton)
  std::optional<std::vector<compute_capability>> device_ccs;  // explicit devices (build machines without GPUs)
  std::optional<expected<observation, error>> compile_time;   // CUARCH_COMPILE_TIME_OBSERVATION()
  // default: environment::from_process(). The programs detection runs (nvcc --version) get its
  // program_environment(): a hand-built one, with nothing inherited, is their whole environment.
  std::optional<environment> env;

  // Places beyond the explicit arguments and the environment variables.
  bool already_loaded = true;     // libraries the application mapped into this process (see already_loaded.hpp)
  bool loader_search = true;      // the dynamic loader's search for libraries
  bool path_search = true;        // $PATH for programs
  bool default_locations = true;  // /usr/local/cuda and friends
  // The places other tools' variables name: $CUDA_HOME, $CUDA_PATH, CUDACXX, TRITON_PTXAS_PATH,
  // $VIRTUAL_ENV, $CONDA_PREFIX. cuarch's own CUARCH_* variables are read whatever this says.
  bool environment_places = true;
  std::vector<std::string> default_roots;  // empty: /usr/local/cuda, /usr/local/cuda-X.Y (newest first), /opt/cuda

  // The driver's devices (with the devices role): NVML, which initialises no CUDA in this process;
  // cuInit through the chosen driver only where NVML cannot answer, unless cuinit_fallback is false
  // (a process that forks workers and must keep CUDA uninitialised: NVML's failure is the answer).
  bool query_devices = true;
  bool cuinit_fallback = true;
  bool probe_ptxas = false;  // also find and run ptxas (with the offline_compiler role)
  std::chrono::milliseconds tool_timeout = default_tool_timeout;  // one `nvcc --version`, at most

  // What the request needs, how far to look, and how long in all (defaults: what `cuarch doctor` asks).
  role_set roles = role_set::all();
  detect_mode mode = detect_mode::enumerate_all;
  std::chrono::milliseconds deadline = default_detection_deadline;  // from detect()'s start, for everything
  // Set by the caller (a front end's Ctrl-C, another thread) to stop: a running tool is killed with its
  // process group within about 20 ms (process_limits::cancel) and nothing more is asked, as past the deadline.
  const std::atomic<bool>* cancel = nullptr;
  progress_hook progress;  // told of each probe before it starts (see progress_hook); default: none
};

namespace detail {

/// Whether `a` and `b` ask detection the same question, so that one's answer is the other's
/// (front_door/warm_detection.hpp). Left out: the bounds (deadline, tool_timeout; an answer given in
/// time stands whatever the next caller's), the caller's hooks (cancel, progress), and what only a
/// never-kept question reads (compile_time; query_devices and cuinit_fallback, for the devices role).
inline bool same_question(const detect_options& a, const detect_options& b) {
  const auto vars = [](const detect_options& o) { return o.env ? o.env->vars() : std::vector<environment::variable>{}; };
  return a.nvrtc_path == b.nvrtc_path && a.nvcc_path == b.nvcc_path && a.cudart_path == b.cudart_path &&
         a.libcuda_path == b.libcuda_path && a.ptxas_path == b.ptxas_path && a.cuda_home == b.cuda_home &&
         a.python_prefixes == b.python_prefixes && a.device_ccs == b.device_ccs &&
         a.env.has_value() == b.env.has_value() && vars(a) == vars(b) && a.already_loaded == b.already_loaded &&
         a.loader_search == b.loader_search && a.path_search == b.path_search &&
         a.default_locations == b.default_locations && a.environment_places == b.environment_places &&
         a.default_roots == b.default_roots && a.probe_ptxas == b.probe_ptxas && a.roles == b.roles && a.mode == b.mode;
}

}  // namespace detail

/// One place a component was found, and what asking it gave.
struct candidate {
  source_kind source = source_kind::none;     // a component (nvrtc...ptxas), toolkit_files, python_wheel, compile_time
  source_kind describes = source_kind::none;  // toolkit_files / python_wheel: its component (none: the toolkit)
  discovery how = discovery::explicit_argument;
  std::string origin;          // the route, in words: "CUDA_HOME=/opt/cuda", "PATH", "loader search for libnvrtc.so.13"
  std::string path;            // as found
  std::string real_path{};     // symlinks resolved: the identity
  std::string toolkit_root{};  // real path of the toolkit it belongs to, if any
  std::vector<std::string> also_found_via{};
  expected<observation, error> result{};    // what asking it gave
  std::optional<compiler_info> compiler{};  // NVRTC / nvcc / ptxas that answered
  bool chosen = false;
  bool probed = true;  // false: found but not asked, because detection's deadline had passed (result says so)
};

/// Which candidate governs a role, and why; or why none does.
struct selection {
  std::optional<std::size_t> index;  // into detection::candidates
  std::string why;
  std::optional<error> failure;  // set when no candidate governs (and the role was asked)
  // An explicit argument, a sticky variable (CUARCH_*, CUDACXX) or a named toolkit root (cuda_home,
  // $CUDA_HOME, $CUDA_PATH: named_root_failed too) named this role's component and it failed:
  // `failure` says how, and cuarch did not fall back to another candidate.
  bool given_and_failed = false;
  bool named_root_failed = false;
  bool asked = true;                  // false: the role was not in detect_options::roles
  std::vector<std::string> searched;  // no candidate at all: every place looked in, in discovery order
};

/// A toolkit directory met during discovery.
struct toolkit_root {
  std::string path, real_path;
  discovery how = discovery::explicit_argument;
  std::string origin;
  std::vector<std::string> also_found_via{};
  std::optional<error> problem{};  // points nowhere, is not a toolkit, relative value, ...
  std::string note{};              // how cuarch read a named root it did not take verbatim (a bin directory)
};

/// A Python environment scanned for wheels.
struct python_environment {
  std::string prefix;
  discovery how = discovery::explicit_argument;
  std::string origin;
  std::vector<std::string> site_packages{};
  std::optional<error> problem{};
};

/// Everything detect() found.
struct detection {
  std::vector<candidate> candidates;
  std::vector<toolkit_root> toolkit_roots;
  std::vector<python_environment> python_environments;
  selection jit_compiler;                   // NVRTC: the JIT compile path
  selection offline_compiler;               // nvcc: the offline compile path
  selection runtime;                        // libcudart: what a framework in this process links
  selection driver;                         // libcuda: the load path
  std::optional<std::size_t> nvcc_on_path;  // the nvcc a shell runs: the first one on PATH (candidate index)
  std::optional<expected<std::vector<device_info>, error>> given_devices;  // an empty list is no_device, never "not given"
  std::optional<expected<std::vector<device_info>, error>> driver_devices;  // nullopt: not asked
  /// "NVML (<path>)", or "cuInit (<path>)" where NVML could not answer (devices_notes say why).
  std::string devices_via;
  std::vector<std::string> devices_notes;
  environment env;  // the snapshot detection read
  std::chrono::microseconds elapsed{0};
  bool deadline_passed = false;  // some candidates were not probed (candidate::probed == false)

  const candidate* chosen(const selection& s) const { return s.index ? &candidates[*s.index] : nullptr; }
  /// How `c` was found, in words; "first on PATH" only for the nvcc that is first on PATH.
  std::string_view how_found(const candidate& c) const {
    if (c.how != discovery::path_search) return describe_how(c.how);
    const bool first = nvcc_on_path && *nvcc_on_path < candidates.size() && &candidates[*nvcc_on_path] == &c;
    return first ? "first on PATH: what a build or shell runs" : "on PATH, after the first one (a shell runs the first)";
  }

  /// The compiler of a role, as resolution wants it; the role's failure otherwise.
  expected<compiler_info, error> compiler_of(const selection& s) const {
    if (const candidate* c = chosen(s); c && c->compiler) return *c->compiler;
    return unexpected(s.failure ? *s.failure : errors::library_not_found(source_kind::none, "a compiler"));
  }
  /// The driver's observation, or why there is none.
  expected<observation, error> driver_version() const {
    if (const candidate* c = chosen(driver)) return c->result;
    return unexpected(driver.failure ? *driver.failure : errors::library_not_found(source_kind::driver, "libcuda.so.1"));
  }
  /// The devices that count: the given list, else the driver's. No device is a no_device error
  /// telling the user to pass a list — never a default architecture.
  expected<std::vector<device_info>, error> devices() const {
    if (given_devices) return *given_devices;
    if (driver_devices && *driver_devices) return **driver_devices;
    error e = errors::no_device(source_kind::driver);
    const error* why = driver_devices ? &driver_devices->error() : driver.failure ? &*driver.failure : nullptr;
    if (!why) e.raw = "the driver was not asked for devices";
    else if (why->code == errc::no_device) e.raw = why->raw.view();
    else
      e.raw.append("the driver could not be asked: ").append(to_string(why->code)).append(" - ").append(why->raw.view());
    if (why) {
      e.location = why->location;
      e.native_status = why->native_status;
    }
    return unexpected(e);
  }
};

/// detection's roles in the source shapes resolution takes (compiler(), devices(), driver_version()).
template <selection detection::*Role>
struct detected_compiler {
  const detection* d;
  expected<compiler_info, error> compiler() const { return d->compiler_of(d->*Role); }
};
using detected_jit_compiler = detected_compiler<&detection::jit_compiler>;
using detected_offline_compiler = detected_compiler<&detection::offline_compiler>;
struct detected_devices {
  const detection* d;
  expected<std::vector<device_info>, error> devices() const { return d->devices(); }
};

CUARCH_END_NAMESPACE
