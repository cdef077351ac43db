// The walk: for each role the request needs, go down discovery_plan (plan.hpp), turn each tier into
// the places it names, ask each place and let the role's choice (selection.hpp) decide; then, if
// asked, the toolkit files and wheels of every toolkit met, and the devices.
// Bounded by one clock (detect_options::deadline): a program gets min(tool_timeout, time left); a
// library load cannot be interrupted, so the clock is read before each one. Past the deadline every
// remaining place is still recorded, probed == false with errc::deadline_exceeded: never skipped.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "../sources/device_source.hpp"
#include "../sources/driver_source.hpp"
#include "../core/environment.hpp"
#include "../sources/nvcc_source.hpp"
#include "../sources/nvrtc_source.hpp"
#include "../sources/posix/dynamic_library.hpp"
#include "../sources/runtime_source.hpp"
#include "../sources/toolkit_files.hpp"
#include "../sources/wheel_layout.hpp"
#include "already_loaded.hpp"
#include "places.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "selection.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

class detector {
 public:
  explicit detector(const detect_options& o)
      : opts_(o),
        env_(o.env ? *o.env : environment::from_process()),
        end_(std::chrono::steady_clock::now() + std::max(o.deadline, std::chrono::milliseconds(0))) {}

  detection run() {
    const auto start = std::chrono::steady_clock::now();
    application_libraries::instance().snapshot();  // before this detection loads anything
    d_.env = env_;
    collect_roots();
    collect_python();
    const role_set roles = opts_.roles;
    role(nvrtc_component, d_.jit_compiler, roles.has(detect_role::jit_compiler));
    role(runtime_component, d_.runtime, roles.has(detect_role::runtime));
    role(driver_component, d_.driver, roles.has(detect_role::driver) || roles.has(detect_role::devices));
    role(nvcc_component, d_.offline_compiler, roles.has(detect_role::offline_compiler));
    if (opts_.probe_ptxas && roles.has(detect_role::offline_compiler)) walk(ptxas_component, nullptr);
    if (roles.has(detect_role::toolkit_files)) {
      for (const candidate& c : d_.candidates)  // the toolkit around each component found
        if (!c.toolkit_root.empty())
          add_root(c.toolkit_root, c.how, "toolkit of " + std::string(to_string(c.source)) + " " + c.path,
                   tier::around_candidate);
      observe_roots();
      observe_wheels();
    }
    if (const auto& seen = opts_.compile_time) {
      const std::string path = *seen ? (*seen)->location : std::string();
      add(source_kind::compile_time, discovery::compile_time, "CUARCH_COMPILE_TIME_OBSERVATION()", path).result = *seen;
    }
    detect_devices(roles.has(detect_role::devices));
    d_.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    return std::move(d_);
  }

 private:
  // ---- the one clock: less than a millisecond left is none (no probe fits); cancelled is passed -----
  std::chrono::milliseconds left() const {
    if (opts_.cancel && opts_.cancel->load()) return std::chrono::milliseconds(0);
    const auto l = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - std::chrono::steady_clock::now());
    return std::max(l, std::chrono::milliseconds(0));
  }
  bool passed() const { return left().count() <= 0; }
  /// A place met after the deadline: what would have been asked, and where.
  error not_probed(source_kind kind, std::string_view what, std::string_view where) const {
    const std::string why = "deadline " + std::to_string(opts_.deadline.count()) + " ms from the start of detection";
    return errors::deadline_exceeded(kind, what, where, why);
  }

  candidate& add(source_kind source, discovery how, const std::string& origin, const std::string& path) {
    return d_.candidates.emplace_back(candidate{source, source_kind::none, how, origin, path});
  }

  void role(const component_info& comp, selection& sel, bool asked) {
    if (asked) return walk(comp, &sel);
    sel.asked = false;
    sel.why = "not asked: detect_options::roles does not include the " + std::string(comp.role_words) + " role";
  }

  void walk(const component_info& comp, selection* sel) {
    role_choice choice(d_, comp, sel);
    std::vector<std::string> looked;  // every place met, in words; said only where no compiler is found (finish)
    const bool tools = opts_.mode == detect_mode::answer_and_tools;
    const auto enough = [&] { return opts_.mode != detect_mode::enumerate_all && choice.decided(); };
    const bool compiler = comp.kind == source_kind::nvrtc || comp.kind == source_kind::nvcc;
    for (const plan_row& row : discovery_plan) {
      if ((row.components & comp.bit) == 0) continue;
      if (enough() && !tools) break;                                 // first_answer: the role has its answer
      if (enough() && !what_a_tool_runs(comp, row.where)) continue;  // answer_and_tools: only what the user's tools run
      // A compiler decides what can be built: a named toolkit's must be the one, or an error. (The
      // runtime is only reported, the driver never comes from a toolkit root.)
      if (sel && compiler && (row.where == tier::explicit_root || row.where == tier::environment_root)) {
        named_roots(row.where, comp, choice, looked);
        continue;
      }
      for (const search_spec& s : places(row.where, comp, looked)) {
        if (enough() && !tools) break;
        if (enough() && !what_a_tool_runs(comp, row.where, &s)) continue;
        visit(comp, s, choice);
      }
    }
    choice.finish(opts_, std::move(looked));
  }

  /// Past a role's answer (detect_mode::answer_and_tools), what the user's own tools run: CUDACXX,
  /// $CUDA_HOME/$CUDA_PATH and the first nvcc on PATH; an NVRTC already loaded. Without `s`: the tier.
  bool what_a_tool_runs(const component_info& comp, tier where, const search_spec* s = nullptr) const {
    if (comp.kind == source_kind::nvrtc) return where == tier::already_loaded;
    if (comp.kind != source_kind::nvcc) return false;
    if (where == tier::variable) return !s || detail::starts_with(s->origin, "CUDACXX=");
    if (where == tier::search) return !s || !d_.nvcc_on_path;  // the first on PATH only
    return where == tier::environment_root;
  }

  /// The toolkit roots the caller named (--cuda-home; $CUDA_HOME, then $CUDA_PATH), one at a time.
  /// A named root that does not exist, lacks the component or whose component fails is the role's
  /// answer: cuarch never moves on to a toolkit the caller did not name (PATH, /usr/local/cuda).
  void named_roots(tier where, const component_info& comp, role_choice& choice, std::vector<std::string>& looked) {
    for (std::size_t i = 0; i < d_.toolkit_roots.size(); ++i) {
      if (root_tiers_[i] != where) continue;
      const toolkit_root& r = d_.toolkit_roots[i];
      std::vector<search_spec> specs;
      if (!r.problem) root_places(specs, r, comp, looked);
      for (auto& spec : specs) {
        spec.sticky = true;  // the caller named this toolkit: its failure is the answer
        visit(comp, spec, choice);
      }
      if (!specs.empty()) continue;
      const std::string variable = r.how == discovery::environment ? r.origin.substr(0, r.origin.find('='))
                                                                   : std::string();
      const std::string named = variable.empty()
                                    ? "the toolkit root given explicitly (detect_options::cuda_home, --cuda-home) " +
                                          echoed(r.path, path_words)
                                    : variable + "=" + echoed(r.path, path_words);
      const std::string wanted = comp.program ? "bin/" + std::string(comp.file_prefix)
                                              : std::string(comp.file_prefix) + "* in lib64, lib or targets/*/lib";
      error e = r.problem ? *r.problem
                          : errors::file_unreadable(comp.kind, join(r.path, comp.program ? wanted : "lib64"),
                                                    variable.empty() ? r.path : variable, "it has no " + wanted);
      const std::string no_fallback = "; cuarch does not fall back to another " + std::string(comp.role_words);
      e.raw.append(no_fallback);
      choice.refuse(e, named + (r.problem ? " is not a usable toolkit root" : " has no " + std::string(comp.role_words)) +
                           no_fallback);
    }
  }

  void visit(const component_info& comp, const search_spec& s, role_choice& choice) {
    candidate c{comp.kind, source_kind::none, s.how, s.origin, s.path.empty() ? s.soname : s.path};
    if (s.problem) {
      c.result = unexpected(*s.problem);
    } else if (passed()) {  // found, not asked: unless the file is already a candidate by another route
      if (!s.path.empty()) c.real_path = real_path(s.path);
      if (merge_duplicate(comp.kind, c.real_path, s.origin)) return;
      c.probed = false;
      c.result = unexpected(not_probed(
          comp.kind, s.path.empty() ? "loader search for " + s.soname : std::string(comp.role_words), c.path));
    } else if (!(comp.program ? ask_program(comp, s, c) : ask_library(comp, s, c, choice))) {
      return;
    }
    note_nvcc_on_path(comp, s, d_.candidates.size());
    d_.candidates.push_back(std::move(c));
    choice.consider(d_.candidates.size() - 1, s.sticky);
  }

  /// The first nvcc on PATH is what a shell would run: remembered even when it failed.
  void note_nvcc_on_path(const component_info& comp, const search_spec& s, std::size_t index) {
    if (comp.kind == source_kind::nvcc && s.how == discovery::path_search && !d_.nvcc_on_path) d_.nvcc_on_path = index;
  }

  /// Folds a candidate into an earlier one with the same real path; its index if it was a duplicate.
  std::optional<std::size_t> merge_duplicate(source_kind kind, const std::string& real, const std::string& origin) {
    if (real.empty()) return std::nullopt;
    for (std::size_t i = 0; i < d_.candidates.size(); ++i) {
      candidate& c = d_.candidates[i];
      if (c.source != kind || c.real_path != real) continue;
      if (origin != c.origin &&
          std::find(c.also_found_via.begin(), c.also_found_via.end(), origin) == c.also_found_via.end())
        c.also_found_via.push_back(origin);
      return i;
    }
    return std::nullopt;
  }

  /// Loads and asks a library; false when it is not a candidate (no such SONAME, or one already by another route).
  bool ask_library(const component_info& comp, const search_spec& s, candidate& c, role_choice& choice) {
    const source_kind kind = comp.kind;
    if (opts_.progress) opts_.progress("loading " + c.path);
    const auto lib = application_libraries::instance().load(c.path, [&] {
      return !s.path.empty() ? load_library_file(s.path, kind, s.policy) : load_library_by_name(s.soname, kind, &env_);
    });
    if (!lib && s.path.empty() && lib.error().code == errc::library_not_found) {
      choice.loader_missed(lib.error());  // the loader has no such SONAME: not a candidate
      return false;
    }
    if (lib) c.real_path = lib->path();
    else if (!s.path.empty()) c.real_path = real_path(s.path);
    if (lib && s.path.empty()) c.path = lib->path();
    if (merge_duplicate(kind, c.real_path, s.origin)) return false;
    if (!lib) {
      c.result = unexpected(lib.error());
      return true;
    }
    c.toolkit_root = toolkit_root_of(c.real_path);
    if (kind == source_kind::nvrtc) {
      take_compiler(c, probe_nvrtc_library(*lib, c.path, s.how));
    } else if (kind == source_kind::cuda_runtime) {
      c.result = probe_cudart_library(*lib, c.path, s.how);
    } else {
      c.result = driver_library_source(lib->path(), s.how, library_path_policy::absolute_only).driver_version();
      if (c.result) c.result->location = c.path;
    }
    return true;
  }

  /// Runs `<program> --version` within the time left; false when it is already a candidate by another route.
  bool ask_program(const component_info& comp, const search_spec& s, candidate& c) {
    const std::string abs = s.policy == library_path_policy::allow_relative ? absolute_path(s.path) : s.path;
    c.real_path = real_path(abs);
    if (const std::string target = exec_wrapper_target(c.real_path); !target.empty()) {
      c.real_path = target;  // a wrapper script (`exec /opt/cuda/bin/nvcc "$@"`) is the program it runs
      c.origin += " (wrapper script for " + target + ")";
    }
    if (const auto dup = merge_duplicate(comp.kind, c.real_path, c.origin)) {
      note_nvcc_on_path(comp, s, *dup);  // already a candidate by another route; still the first nvcc on PATH if it is
      return false;
    }
    c.toolkit_root = toolkit_root_of(c.real_path);
    const auto timeout = std::min(opts_.tool_timeout, left());
    if (opts_.progress) opts_.progress("probing " + abs + " (--version)");
    auto p = probe_tool_version(abs, comp.kind, s.how, timeout, s.policy, opts_.cancel,
                                &env_);  // the tool runs in this resolution's environment
    if (p) p->seen.location = s.path;
    take_compiler(c, std::move(p));
    return true;
  }

  /// What a compiler's probe gave: its observation and compiler_info, or its error.
  template <class Probe>
  static void take_compiler(candidate& c, Probe p) {
    if (!p) return void(c.result = unexpected(p.error()));
    c.result = std::move(p->seen);
    c.compiler = std::move(p->info);
  }

  // ---- what a tier names, for one component; `looked` gets each place in words ---------------------
  std::vector<search_spec> places(tier where, const component_info& comp, std::vector<std::string>& looked) const {
    std::vector<search_spec> out;
    switch (where) {
      case tier::explicit_argument:
        if (const std::string& path = opts_.*comp.explicit_path; !path.empty()) {
          search_spec& s = out.emplace_back(discovery::explicit_argument, std::string(comp.explicit_words), path);
          s.sticky = true;
          s.policy = library_path_policy::allow_relative;
          looked.push_back(path + " (given explicitly)");
        }
        break;
      case tier::variable:
        for (const auto& var : comp.variables)
          if (const auto v = var.name.empty() || !(opts_.environment_places || starts_with(var.name, "CUARCH_"))
                                 ? std::nullopt
                                 : env_.get_nonempty(var.name)) {
            search_spec& s = out.emplace_back(discovery::environment,
                                              std::string(var.name) + "=" + echoed(*v, path_words), *v);
            s.sticky = var.sticky;
            s.problem = check_variable_path(std::string(var.name), *v, comp.kind);
            looked.push_back(*v + " (" + std::string(var.name) + ")");
          }
        break;
      case tier::already_loaded:
        if (!opts_.already_loaded) break;
        looked.push_back("the " + std::string(comp.file_prefix) + "* libraries already loaded in this process");
        for (const auto& p : application_libraries::instance().paths(comp.file_prefix))
          out.emplace_back(discovery::already_loaded, "already loaded in this process", p);
        break;
      case tier::beside_nvcc:
        for (const auto& c : d_.candidates)
          if (c.source == source_kind::nvcc && !c.real_path.empty())
            if (std::string ptxas = join(parent_dir(c.real_path), "ptxas"); is_file(ptxas))
              out.emplace_back(c.how, "beside nvcc " + c.path, std::move(ptxas));
        break;
      case tier::explicit_root:
      case tier::environment_root:
      case tier::conda_root:
      case tier::default_root:
      case tier::around_candidate:
        for (std::size_t i = 0; i < d_.toolkit_roots.size(); ++i)
          if (root_tiers_[i] == where) root_places(out, d_.toolkit_roots[i], comp, looked);
        break;
      case tier::explicit_python:
      case tier::environment_python: wheel_places(out, where, comp.kind, looked); break;
      case tier::search:
        if (comp.program) {
          path_places(out, comp, looked);
        } else if (opts_.loader_search) {
          const std::vector<std::string> names = comp.loader_names();
          looked.push_back(
              "the dynamic loader (LD_LIBRARY_PATH=" + env_.get_nonempty("LD_LIBRARY_PATH").value_or("<unset>") +
              ", /etc/ld.so.cache) for " + soname_words(names));
          for (const auto& name : names)
            out.emplace_back(discovery::loader_search, "loader search for " + name, "").soname = name;
        }
        break;
    }
    return out;
  }

  /// The component's files in one toolkit root.
  void root_places(std::vector<search_spec>& out, const toolkit_root& r, const component_info& comp,
                   std::vector<std::string>& looked) const {
    if (r.problem) {
      looked.push_back(echoed(r.path, path_words) + " (" + r.origin + ": " + std::string(r.problem->raw.view()) + ")");
    } else if (comp.program) {
      looked.push_back(join(r.path, "bin") + " (" + r.origin + ")");
      const std::string f = join(r.path, "bin/" + std::string(comp.file_prefix));
      if (is_file(f)) out.emplace_back(r.how, r.origin, f);
    } else {
      std::string dirs;
      for (const auto& dir : library_dirs(r.path)) {
        dirs.append(dirs.empty() ? "" : ", ").append(dir);
        for (const auto& f : versioned_files(dir, comp.file_prefix)) out.emplace_back(r.how, r.origin, f);
      }
      looked.push_back(dirs + " (" + r.origin + ")");
    }
  }

  void wheel_places(std::vector<search_spec>& out, tier where, source_kind component,
                    std::vector<std::string>& looked) const {
    for (const python_environment& p : d_.python_environments) {
      if ((p.how == discovery::explicit_argument ? tier::explicit_python : tier::environment_python) != where) continue;
      if (p.problem)
        looked.push_back(echoed(p.prefix, path_words) + " (" + p.origin + ": " + std::string(p.problem->raw.view()) +
                         ")");
      for (const auto& sp : p.site_packages) {
        looked.push_back(sp + " (pip wheels, " + p.origin + ")");
        for (const auto& f : scanned(sp).files)
          if (f.component == component)
            out.emplace_back(discovery::python_site_packages, f.package + " in " + sp, f.path);
      }
    }
  }

  /// One site-packages directory's wheels, listed once: every role's walk and the toolkit files ask.
  const wheel_scan& scanned(const std::string& sp) const {
    for (const auto& s : scans_)
      if (s.first == sp) return s.second;
    return scans_.emplace_back(sp, scan_site_packages(sp)).second;
  }

  void path_places(std::vector<search_spec>& out, const component_info& comp, std::vector<std::string>& looked) const {
    if (!opts_.path_search) return;
    const auto path = env_.get("PATH");
    if (!path) {
      looked.emplace_back("PATH (not set)");
      return;
    }
    const std::string name(comp.file_prefix);
    for (const auto& dir : split_path_list(*path)) {
      const std::string at = dir.empty() ? "." : dir;  // an empty entry is the current directory
      looked.push_back(at + " (PATH)");
      search_spec s(discovery::path_search, "PATH " + (dir.empty() ? std::string("(empty entry)") : dir),
                    join(at, name));
      if (!is_file(s.path) || ::access(s.path.c_str(), X_OK) != 0) continue;
      if (dir.empty() || dir.front() != '/')  // PATH entry relative to the current directory
        s.problem = errors::invalid_environment(comp.kind, "PATH", dir,
                                                "entry '" + dir + "' is relative and holds " + name +
                                                    "; cuarch does not run programs from the current directory");
      out.push_back(std::move(s));
    }
  }

  // ---- toolkit roots and Python environments, each tagged with its tier ---------------------
  void add_root(const std::string& path, discovery how, const std::string& origin, tier where,
                const std::string& variable = {}) {
    toolkit_root r{path, {}, how, origin};
    if (!variable.empty()) r.problem = check_variable_path(variable, path, source_kind::toolkit_files);
    if (!r.problem) {
      r.real_path = real_path(path);
      const bool named = where == tier::explicit_root || where == tier::environment_root;
      if (named && !r.real_path.empty() && file_name(r.real_path) == "bin" && !looks_like_toolkit_root(r.real_path) &&
          looks_like_toolkit_root(parent_dir(r.real_path))) {
        // "CUDA_HOME=/usr/local/cuda/bin": the intent is plain, and saying so beats refusing.
        r.path = parent_dir(r.real_path);
        r.real_path = real_path(r.path);
        r.note = origin + " is a toolkit's bin directory; cuarch uses its parent " + r.path +
                 " as the toolkit root (set it to that to silence this note)";
      }
      if (r.real_path.empty() || !is_directory(r.real_path)) {
        // Named by flag or by variable, a root that is not there is the same failure (the same
        // code and exit status); the variable's name says where the path came from.
        r.problem = errors::file_unreadable(source_kind::toolkit_files, path, variable.empty() ? path : variable,
                                            why_no_directory(path));
      }
    }
    if (!r.problem)
      for (auto& existing : d_.toolkit_roots)
        if (!r.real_path.empty() && existing.real_path == r.real_path) {
          if (where != tier::around_candidate)
            existing.also_found_via.push_back(origin);  // "toolkit of X" adds nothing new
          return;
        }
    d_.toolkit_roots.push_back(std::move(r));
    root_tiers_.push_back(where);
  }

  void collect_roots() {
    if (!opts_.cuda_home.empty()) {
      const std::string p = absolute_path(opts_.cuda_home);  // the caller passed it: relative is allowed
      add_root(p, discovery::explicit_argument, "explicit toolkit root " + echoed(p, path_words), tier::explicit_root);
    }
    if (opts_.environment_places) {
      for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const auto v = env_.get_nonempty(var))
          add_root(*v, discovery::environment, std::string(var) + "=" + echoed(*v, path_words), tier::environment_root,
                   var);
      if (const auto conda = env_.get_nonempty("CONDA_PREFIX"))
        if (conda->front() == '/' && (looks_like_toolkit_root(*conda) || is_directory(join(*conda, "conda-meta"))))
          add_root(*conda, discovery::environment, "CONDA_PREFIX=" + *conda, tier::conda_root);
    }
    if (opts_.default_locations) {
      const auto defaults = opts_.default_roots.empty() ? default_toolkit_roots() : opts_.default_roots;
      for (const auto& r : defaults)
        add_root(r, discovery::default_location, "default location " + r, tier::default_root);
    }
  }

  /// A Python environment given explicitly (`variable` empty) or by a variable.
  void add_python(const std::string& prefix, const std::string& variable = {}) {
    const bool given = variable.empty();
    python_environment p{prefix, given ? discovery::explicit_argument : discovery::environment,
                         (given ? "python prefix " : variable + "=") + echoed(prefix, path_words)};
    if (!given) p.problem = check_variable_path(variable, prefix, source_kind::python_wheel);
    if (!p.problem) {
      if (const std::string why = why_no_directory(prefix); !why.empty()) {
        p.problem = given ? errors::file_unreadable(source_kind::python_wheel, prefix, prefix, why)
                          : errors::invalid_environment(source_kind::python_wheel, variable, prefix, why);
      } else {
        p.site_packages = site_packages_of(prefix);
        if (p.site_packages.empty() && given)
          p.problem = errors::file_unreadable(
              source_kind::python_wheel, prefix, prefix,
              "no lib/python3.*/site-packages here, and not a site-packages directory itself");
      }
    }
    d_.python_environments.push_back(std::move(p));
  }

  void collect_python() {
    for (const auto& prefix : opts_.python_prefixes) add_python(absolute_path(prefix));
    if (opts_.environment_places)
      for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
        if (const auto v = env_.get_nonempty(var)) add_python(*v, var);
  }

  void observe_roots() {
    for (const auto& r : d_.toolkit_roots) {
      if (r.problem) continue;
      const bool late = passed();  // then one candidate, not probed, stands for the version files
      auto files = late ? std::vector<expected<file_observation, error>>() : observe_toolkit_root(r.path, r.how);
      if (late)
        files.emplace_back(unexpected(not_probed(source_kind::toolkit_files, "the toolkit's version files", r.path)));
      for (auto& o : files) {
        candidate& c = o ? add_file(std::move(*o), r.how, r.origin)
                         : add(source_kind::toolkit_files, r.how, r.origin, r.path);
        c.toolkit_root = r.real_path;
        c.probed = !late;
        if (!o) c.result = unexpected(o.error());
      }
    }
  }

  void observe_wheels() {
    for (const auto& env : d_.python_environments)
      for (const auto& sp : env.site_packages)
        for (const auto& o : scanned(sp).dist_infos) add_file(o, discovery::python_site_packages, env.origin);
  }

  /// A version file (or a dist-info name) as a candidate: what it says, of which component.
  candidate& add_file(file_observation o, discovery how, const std::string& origin) {
    candidate& c = add(o.seen.source, how, origin, o.seen.location);
    c.describes = o.describes;
    c.real_path = real_path(c.path);
    c.result = std::move(o.seen);
    return c;
  }

  void detect_devices(bool asked) {
    if (opts_.device_ccs) d_.given_devices = fixed_devices(*opts_.device_ccs).devices();
    if (!asked || !opts_.query_devices) return;
    if (const candidate* c = d_.chosen(d_.driver)) {
      if (passed()) {
        d_.driver_devices = unexpected(not_probed(source_kind::driver, "the driver's devices", c->real_path));
        return;
      }
      // NVML first: reading devices must not initialise CUDA here (a child forked later could not
      // use it); the chosen driver answers through cuInit only where NVML cannot. NVML is the chosen
      // driver's own, the libnvidia-ml.so.1 beside its libcuda (a driver installs both in one
      // directory, containers mount both into one), so a driver named by a path or by
      // LD_LIBRARY_PATH is never described by another driver's NVML.
      nvml_device_source nvml(join(parent_dir(c->real_path), "libnvidia-ml.so.1"), c->how);
      nvml.with_environment(device_visibility_env::from(env_));  // the one snapshot, not getenv
      const system_device_source devices(
          std::move(nvml), driver_library_source(c->real_path, c->how, library_path_policy::absolute_only),
          opts_.cuinit_fallback ? cuinit_fallback::allowed : cuinit_fallback::forbidden);
      if (opts_.progress) opts_.progress("asking the driver for its devices (" + c->real_path + ")");
      auto reading = devices.read();
      if (!reading) {
        d_.driver_devices = unexpected(reading.error());
        return;
      }
      d_.devices_via = std::move(reading->via);
      d_.devices_notes = std::move(reading->notes);
      d_.driver_devices = std::move(reading->devices);
    } else if (d_.driver.failure) {
      d_.driver_devices = unexpected(*d_.driver.failure);
    }
  }

  const detect_options& opts_;
  environment env_;
  const std::chrono::steady_clock::time_point end_;  // the deadline
  detection d_;
  std::vector<tier> root_tiers_;                                   // the tier each of d_.toolkit_roots was met in
  mutable std::vector<std::pair<std::string, wheel_scan>> scans_;  // scanned(): each site-packages directory met
};

}  // namespace detail

CUARCH_END_NAMESPACE
