// resolve_here(): THE front door. One resolution against this machine, the whole way every front
// end makes it (`cuarch resolve`, cuarch.resolve(), the CMake helper, a C++ program), so they cannot
// disagree. Its steps, and resolve_outcome's members: docs/library.md, "The front door".
#pragma once

#include "../core/config.hpp"
#include "../detect/result.hpp"
#include "options.hpp"
#include "resolve_outcome.hpp"

CUARCH_BEGIN_NAMESPACE

CUARCH_FUNC resolve_outcome resolve_here(const resolve_options& options);

/// Where `options` say to look, as detection's options reading `env` (the doctor's too: it looks where
/// resolve does).
CUARCH_FUNC detect_options detect_options_for(const resolve_options& options, const environment& env);

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "../detect/already_loaded.hpp"
#  include "../detect/detector.hpp"
#  include "explain.hpp"
#  include "../resolve/fixed_sources.hpp"
#  include "../resolve/resolver.hpp"
#  include "../sources/code_file.hpp"
#  include "resolve_warnings.hpp"
#  include "warm_detection.hpp"

CUARCH_BEGIN_NAMESPACE

CUARCH_FUNC detect_options detect_options_for(const resolve_options& o, const environment& env) {
  detect_options d;
  d.nvrtc_path = o.nvrtc;
  d.nvcc_path = o.nvcc;
  d.cudart_path = o.cudart;
  d.libcuda_path = o.libcuda;
  d.ptxas_path = o.ptxas;
  d.cuda_home = o.cuda_home;
  d.python_prefixes = o.python_prefixes;
  d.device_ccs = o.devices;
  d.env = env;
  if (o.isolated)
    d.already_loaded = d.loader_search = d.path_search = d.default_locations = d.environment_places = false;
  d.cuinit_fallback = o.cuinit_fallback;
  d.deadline = o.timeout;
  d.cancel = o.cancel;
  d.progress = o.progress;
  d.tool_timeout = std::min(o.timeout, default_tool_timeout);
  return d;
}

namespace detail {

// The door is a pipeline of four steps, each a function from a typed input to a typed output,
// composed by resolve_here() (docs/design.md, "The front door"): plan the request, answer the
// sources, judge, explain and warn. A fleet adds its own verdict last.

/// Step 1's product: the request read and parsed once, the fleet, the compile path and what to detect.
struct door_plan {
  parsed_request request;                    // the one parse: every compiler judged reuses it
  std::optional<inventory> fleet;            // --inventory: its GPU nodes are the devices
  std::optional<cuda_version> fleet_driver;  // the oldest driver among them: any node may have to JIT PTX
  bool jit = false;                          // NVRTC decides (else nvcc): the one rule of compile_path::automatic
  bool ask_driver_for_devices = false;       // the devices come from this machine's driver
  std::optional<detect_options> detect;      // nullopt: nothing is detected (a named toolkit, given devices)
};

/// The variables archs (given) makes resolution ignore, each said: never ignored silently.
inline void note_ignored_overrides(const resolve_options& o, const environment& env, std::vector<std::string>& notes) {
  if (!o.archs || o.env) return;
  for (const auto& v : override_variables) {
    const char* value = env.find(v.name);
    if (!value || trim(value).empty()) continue;
    notes.push_back(o.spelling("archs") + " given; ignoring " + v.name + "=" + echoed(value) + " (" +
                    o.spelling("env", to_string(v.flag)) + " lets it override)");
  }
}

/// Step 1: plan the request against one environment. An error is the caller's input refused.
inline expected<door_plan, error> plan_request(const resolve_options& o, const environment& env,
                                               std::vector<std::string>& notes) {
  if (const auto old = o.toolkit ? unknown_old_toolkit(*o.toolkit) : std::nullopt)
    return unexpected(*old);  // as list and check say
  const arch_request asked{o.archs ? std::string_view(*o.archs) : std::string_view("native"), o.dialect,
                           o.env ? *o.env : (o.archs ? env_override::none : env_override::cuarch_archs), &env};
  note_ignored_overrides(o, env, notes);
  auto request = read_and_parse(asked);
  if (!request) return unexpected(request.error());
  expected<door_plan, error> plan(std::in_place);
  plan->request = std::move(*request);

  if (!o.inventory.empty()) {
    auto read = read_inventory_file(o.inventory);
    if (!read) return unexpected(read.error());
    plan->fleet = std::move(*read);
    for (const auto& n : plan->fleet->nodes)
      if (!n.gpus.empty() && n.driver.major != 0 && (!plan->fleet_driver || n.driver < *plan->fleet_driver))
        plan->fleet_driver = n.driver;
    const auto said = inventory_notes(*plan->fleet);
    notes.insert(notes.end(), said.begin(), said.end());
  }

  // Which compiler decides: the one rule of compile_path::automatic (options.hpp).
  const bool nvrtc_loaded = !o.toolkit && !o.isolated &&
                            !application_libraries::instance().paths("libnvrtc.so.").empty();
  const bool jit = plan->jit = o.compiler != compile_path::automatic
                                   ? o.compiler == compile_path::nvrtc
                                   : !o.nvrtc.empty() ||
                                         (o.nvcc.empty() && (o.output == output_format::nvrtc || nvrtc_loaded));

  // Only the roles this request needs, each stopped at its answer, plus what the tools run.
  const bool needs_devices = o.policy.verify_on_devices || plan->request.targets.keyword() == arch_keyword::native;
  plan->ask_driver_for_devices = needs_devices && !o.devices && !plan->fleet;
  if (o.toolkit && !plan->ask_driver_for_devices && o.driver != driver_from::detected) return plan;
  role_set roles;
  if (!o.toolkit) {
    roles = roles | (jit ? detect_role::jit_compiler : detect_role::offline_compiler) | detect_role::toolkit_files;
    // The other compile path too where it could be meant: an NVRTC this process loaded beside an
    // nvcc that decides; the builds' nvcc beside an NVRTC chosen only because it was loaded.
    if (!jit && nvrtc_loaded) roles = roles | detect_role::jit_compiler;
    if (jit && o.compiler == compile_path::automatic && o.nvrtc.empty()) roles = roles | detect_role::offline_compiler;
    if (o.strict) roles = roles | detect_role::jit_compiler | detect_role::offline_compiler | detect_role::driver;
  }
  if (plan->ask_driver_for_devices) roles = roles | detect_role::devices;
  if (o.driver == driver_from::detected) roles = roles | detect_role::driver;
  plan->detect = detect_options_for(o, env);
  plan->detect->roles = roles;
  plan->detect->mode = o.strict && !o.toolkit ? detect_mode::enumerate_all : detect_mode::answer_and_tools;
  plan->detect->query_devices = plan->ask_driver_for_devices;
  return plan;
}

/// A device source's and a driver source's answers, asked up front (no_driver's checks_ptx false).
struct answered_devices {
  expected<std::vector<device_info>, error> answer;
  expected<std::vector<device_info>, error> devices() const { return answer; }
};
struct answered_driver {
  expected<observation, error> answer;
  bool checks;
  expected<observation, error> driver_version() const { return answer; }
  bool checks_ptx() const noexcept { return checks; }
};

/// Step 2's product: each source asked once, its answer held by one type per role (one resolver
/// instantiation whatever the sources were).
struct door_answers {
  expected<compiler_info, error> compiler;
  answered_devices devices;
  answered_driver driver;
};

/// Step 2: answer the sources the plan names, from what was given or detected (`d`, null when
/// nothing was detected).
inline door_answers answer_sources(const resolve_options& o, const door_plan& plan, const detection* d) {
  return door_answers{!o.toolkit ? d->compiler_of(plan.jit ? d->jit_compiler : d->offline_compiler)
                      : o.toolkit_supported_sm
                          ? fixed_compiler(*o.toolkit, *o.toolkit_supported_sm, source_kind::user_input).compiler()
                          : fixed_compiler(*o.toolkit).compiler(),
                      {o.devices                          ? fixed_devices(*o.devices).devices()
                       : plan.fleet                       ? fixed_devices(plan.fleet->devices()).devices()
                       : d && plan.ask_driver_for_devices ? d->devices()
                                                          : no_devices{}.devices()},
                      {plan.fleet_driver                   ? fixed_driver(*plan.fleet_driver).driver_version()
                       : o.driver == driver_from::given    ? fixed_driver(o.driver_version).driver_version()
                       : o.driver == driver_from::detected ? d->driver_version()
                                                           : no_driver{}.driver_version(),
                       plan.fleet_driver || o.driver != driver_from::none}};
}

/// Step 3: judge the one parse against the compiler that answered.
inline resolve_result judge(const resolve_options& o, const door_plan& plan, const door_answers& a) {
  if (!a.compiler) return unexpected(resolution_failure(a.compiler.error()));
  return resolve_parsed(plan.request, *a.compiler, a.devices, o.policy, a.driver);
}

/// Step 4: what detection knows, said beside the answer: its notes, who decided and how it was found,
/// the warnings that bear on the answer, and for a failure every alternative compiler with its fix.
/// Only a detected compiler has a "who decided", alternatives and disagreements.
inline void explain_and_warn(const resolve_options& o, const door_plan& plan, const door_answers& a, const detection* d,
                             resolve_outcome& out) {
  if (d) {
    for (const auto& root : d->toolkit_roots)
      if (!root.note.empty()) out.notes.push_back(root.note);
    out.notes.insert(out.notes.end(), d->devices_notes.begin(), d->devices_notes.end());
  }
  if (d && !o.toolkit) {
    const selection& role = plan.jit ? d->jit_compiler : d->offline_compiler;
    const source_kind kind = plan.jit ? source_kind::nvrtc : source_kind::nvcc;
    out.compiler = provenance_of(*d, role);
    out.warnings = resolve_warnings(*d, kind, out.result ? &out.result->targets : nullptr);
    if (const candidate* decider = d->chosen(role); decider && out.result) {  // a failure lists them as alternatives
      const auto resolve = [&](const compiler_info& c) {
        return resolve_parsed(plan.request, c, a.devices, o.policy, a.driver);
      };
      const auto views = tool_view_warnings(*d, *decider, out.result, resolve, o.spelling);
      out.warnings.insert(out.warnings.end(), views.begin(), views.end());
    }
    if (!out.result) {
      const std::size_t not_asked = explain_failure(out, *d, *plan.detect, plan.jit, plan.request, a.devices, o.policy,
                                                    a.driver);
      if (not_asked != 0)
        out.notes.push_back(std::to_string(not_asked) + " other " + std::string(to_string(kind)) +
                            " candidate(s) were not asked within " + std::to_string(alternatives_budget.count()) +
                            " ms; the doctor lists them");
    }
  }
  if (out.compiler || !a.compiler) return;
  out.compiler = bare_provenance(*a.compiler);
  if (o.toolkit) {  // a release the caller named: cuarch's table judges it
    out.compiler->how = to_string(discovery::explicit_argument);
    out.compiler->origin = "toolkit=" + to_text(*o.toolkit).str();
    out.compiler->why = "given by the caller; judged by cuarch's table";
  }
}

/// The fleet's verdict: every node must run what this compiler builds (driver_runs_code_of), on
/// GPUs its driver drives (check_driver_drives_device); each one that cannot is said, and the
/// resolution fails, said of the fleet rather than of a request nobody typed.
inline void judge_fleet(const resolve_options& o, const door_plan& plan, const door_answers& a, resolve_outcome& out) {
  if (!out.result && out.result.error().summary.code == errc::nothing_resolved &&
      out.result.error().summary.source == source_kind::user_input) {  // the resolver's refusal: said of the fleet too
    out.result.error().summary.source = source_kind::device_list;
    out.result.error().summary.location = printable(o.inventory);
  }
  if (!out.result || !a.compiler) return;
  std::size_t failing = 0;
  std::string first;
  for (const auto& n : plan.fleet->nodes) {
    if (n.gpus.empty() || n.driver.major == 0) continue;
    std::string why, fix, rule;
    for (const auto& g : n.gpus)
      if (const auto drives = check_driver_drives_device(g.cc, n.driver); !drives && why.empty()) {
        const std::string words = drives.error().message();  // the rule is worded once (core/error.hpp)
        why = "node " + printable(n.name) + ": its driver serves CUDA " + to_text(n.driver).str() +
              ", which cannot drive its GPU of compute capability " + to_text(g.cc).str();
        fix = words.substr(words.find("; fix: ") + 7);
        rule = ": NVIDIA's drivers support it from CUDA " + release_text(drives.error().required) + " on";
      }
    if (why.empty() && !driver_runs_code_of(n.driver, a.compiler->version)) {
      why = "node " + printable(n.name) + ": its driver serves CUDA " + to_text(n.driver).str() +
            ", older than the CUDA " + release_text(a.compiler->version) + " that builds";
      fix = "update its driver, or build with CUDA " + std::to_string(n.driver.major) + ".x";
      rule = ": minor-version compatibility does not cross majors";
    }
    if (why.empty()) continue;
    if (failing < 10)  // each said, up to ten: a fleet of thousands gives a few lines
      out.notes.push_back(why + " (" + printable(n.driver_said) + ")" + rule + "; fix: " + fix);
    if (failing++ == 0) first = why + "; fix: " + fix;
  }
  if (failing > 10) out.notes.push_back(std::to_string(failing - 10) + " more nodes cannot run it either");
  if (failing == 0) return;
  error e = errors::nothing_resolved(
      source_kind::device_list, plan.request.read.list,
      first + (failing > 1 ? " (and " + std::to_string(failing - 1) + " more nodes)" : ""));
  e.location = printable(o.inventory);
  e.partial = true;
  out.result = unexpected(resolution_failure{e, out.result->diagnostics});
}

}  // namespace detail

CUARCH_FUNC resolve_outcome resolve_here(const resolve_options& o) {
  resolve_outcome out;
  out.strict = o.strict;
  out.spelling = o.spelling;
  if ((out.usage = check_options(o, o.spelling))) return out;
  // One environment for every step: the request's overrides, detection and the probes all read it.
  const environment env = o.env_snapshot ? *o.env_snapshot : environment::from_process();
  const auto plan = detail::plan_request(o, env, out.notes);
  if (!plan) {  // the caller's input was refused: nothing was asked
    out.malformed = true;
    out.result = unexpected(resolution_failure{plan.error(), {}});
    return out;
  }
  out.used = plan->jit ? compile_path::nvrtc : compile_path::nvcc;
  out.found = plan->detect ? std::optional<detection>(detail::detect_or_recall(*plan->detect)) : std::nullopt;
  const detection* d = out.found ? &*out.found : nullptr;
  const detail::door_answers answers = detail::answer_sources(o, *plan, d);
  out.result = detail::judge(o, *plan, answers);
  detail::explain_and_warn(o, *plan, answers, d, out);
  if (plan->fleet) detail::judge_fleet(o, *plan, answers, out);
  return out;
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
