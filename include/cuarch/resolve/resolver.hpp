// resolve_target_archs(): from a request (explicit list, native, all, all-major) to a non-empty
// target set, validated against the compiler that will build it, the devices that will load it
// and, for PTX, the driver that will JIT it. The order of work and what each request becomes are in
// docs/design.md, "Resolution"; what sources and policies must provide, in source_contract.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/arch.hpp"
#include "../core/compatibility.hpp"
#include "compiler_rules.hpp"
#include "../core/config.hpp"
#include "env_request.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "fixed_sources.hpp"
#include "../core/observation.hpp"
#include "../core/parse.hpp"
#include "policy.hpp"
#include "resolution.hpp"
#include "source_contract.hpp"
#include "target_set.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// Attaches the request's origin to an error about the request itself (parse errors, the summary).
inline error with_origin(error e, const request_origin& origin) {
  if (origin.source == source_kind::environment) {
    e.source = source_kind::environment;
    e.location = origin.variable;
  }
  return e;
}

}  // namespace detail

/// The request as resolution reads it, parsed: a malformed one is the error resolution would give
/// (naming the environment variable it came from). read_and_parse() reads and calls it, once per
/// resolution; a caller that must refuse malformed input before detecting anything calls that.
inline expected<parsed_arch_list, error> parse_request(const effective_request& req) {
  auto parsed = parse_arch_list(req.list, req.dialect);
  // One object returned on every path: g++ then constructs it in place instead of copying the ~3 KB
  // list (two different return statements defeat the copy elision; docs/performance.md).
  if (!parsed) parsed = unexpected(detail::with_origin(parsed.error(), req.origin));
  return parsed;
}

/// A request read once (its environment overrides applied) and parsed once: what the front door
/// plans with and every resolution of it reuses, each alternative compiler's included. Its views
/// point into the request's list and environment: keep those alive.
struct parsed_request {
  effective_request read;
  parsed_arch_list targets;
};

/// `request` read and parsed, or the error resolution would give for it (naming its variable).
inline expected<parsed_request, error> read_and_parse(const arch_request& request) {
  expected<parsed_request, error> out(std::in_place);
  out->read = read_request(request);
  auto parsed = parse_request(out->read);
  if (!parsed) out = unexpected(parsed.error());
  else out->targets = *parsed;
  return out;
}

namespace detail {

/// A target that no device can load (verify_on_devices).
inline error no_device_loads(const arch_target& t, const std::vector<device_info>& devices) {
  text<200> why;
  if (devices.size() > 1) {
    why.append("no visible device can load it (");
    for (std::size_t i = 0; i < devices.size(); ++i) why.append(i ? ", " : "").append(to_text(devices[i].cc).view());
    why.append(")");
  }
  return errors::cannot_load_on_device(source_kind::none, t, devices.front().cc, why.view());
}

inline void set_outcome(diagnostic& d) {
  if (!d.result) d.outcome = resolution_outcome::rejected;
  else d.outcome = *d.result == d.requested ? resolution_outcome::kept : resolution_outcome::transformed;
}

/// The summary of a resolution the policy refuses: which requests were rejected, in short.
inline error refusal_summary(const effective_request& req, const resolve_policy& policy,
                             const std::vector<diagnostic>& diags, bool some_resolved) {
  const auto rejected = std::count_if(diags.begin(), diags.end(),
                                      [](const diagnostic& d) { return d.outcome == resolution_outcome::rejected; });
  text<200> why;
  why.append(to_string(policy.unbuildable))
      .append(" policy, ")
      .append_int(static_cast<long long>(rejected))
      .append(" of ")
      .append_int(static_cast<long long>(diags.size()))
      .append(" rejected: ");
  bool first = true;
  for (const auto& d : diags) {
    if (d.outcome != resolution_outcome::rejected) continue;
    why.append(first ? "" : "; ");
    first = false;
    if (d.device)
      why.append("device ").append_int(d.device->ordinal).append(" (cc ").append(to_text(d.device->cc).view()).append(") ");
    why.append(to_text(d.requested).view());
    if (d.reason) why.append(" (").append(to_string(d.reason->code)).append(")");
  }
  error e = with_origin(errors::nothing_resolved(source_kind::user_input, req.list, why.view()), req.origin);
  e.partial = some_resolved;  // "no target could be resolved" only when none was
  return e;
}

// ---- one resolution ----------------------------------------------------------------------------

// The policy is a value (resolve_policy): every policy type is one, so one run serves them all, and
// what `native` picks is its native_preferences wherever the request comes in.
template <class DeviceSource, class DriverSource>
class resolution_run {
 public:
  resolution_run(const parsed_request& req, const compiler_info& compiler, const resolve_policy& policy,
                 const DeviceSource& devices, const DriverSource& driver)
      : req_(req.read),
        parsed_(req.targets),
        compiler_(compiler),
        policy_(policy),
        device_source_(devices),
        driver_source_(driver),
        checks_driver_(checks_ptx_against(driver)) {}

  resolve_result run() {
    const arch_keyword keyword = parsed_.keyword();
    std::optional<error> stop;
    switch (keyword) {
      case arch_keyword::native: stop = resolve_native(); break;
      case arch_keyword::all:
      case arch_keyword::all_major: stop = resolve_all(keyword); break;
      case arch_keyword::none: stop = resolve_list(parsed_); break;
    }
    if (stop) return failure(*stop);
    reject_conflicts();

    const auto rejected = [](const diagnostic& d) { return d.outcome == resolution_outcome::rejected; };
    const bool rejected_any = std::any_of(diags_.begin(), diags_.end(), rejected);
    const bool device_left_without = std::any_of(diags_.begin(), diags_.end(),
                                                 [&](const diagnostic& d) { return rejected(d) && d.device; });
    const bool refuse = builder_.empty() || device_left_without ||
                        (rejected_any && policy_.unbuildable == on_unbuildable::error);
    if (refuse) return failure(refusal_summary(req_, policy_, diags_, !builder_.empty()));
    auto set = builder_.build();  // cannot fail: not empty
    if (!set) return failure(set.error());
    return resolve_result(std::in_place, resolution{*set, std::move(diags_), keyword, req_.origin, compiler_.kind,
                                                    compiler_.version, table_is_older_than(compiler_)});
  }

 private:
  resolve_result failure(error summary) {
    return unexpected(resolution_failure(std::move(summary), std::move(diags_)));
  }

  error too_many_targets() const {
    return with_origin(errors::too_many_targets(source_kind::user_input, req_.list), req_.origin);
  }

  /// Asked at most once per resolution, and only for PTX.
  const expected<observation, error>& driver() {
    if (!driver_) driver_.emplace(driver_source_.driver_version());
    return *driver_;
  }

  /// Devices, asked at most once per resolution; an empty list is errc::no_device.
  expected<std::vector<device_info>, error> devices() const {
    auto d = device_source_.devices();
    if (d && d->empty()) {
      return unexpected(errors::no_device(source_kind::device_list, "the device source reported no devices"));
    }
    return d;
  }

  /// The compiler builds t, and for PTX with a driver source, the driver can JIT it.
  expected<build_verdict, error> check(const arch_target& t) {
    auto verdict = check_buildable_by(t, compiler_);
    if (!verdict || !checks_driver_ || t.form != arch_form::ptx) return verdict;
    const auto& drv = driver();
    if (!drv) return unexpected(drv.error());
    const auto jit = check_driver_can_jit(t, compiler_.version, drv->version);
    if (!jit) {
      error e = jit.error();
      e.location = std::string_view(drv->location);
      return unexpected(e);
    }
    return verdict;
  }

  /// A baseline sm_XY whose sm_XYf was resolved too is rejected, naming both and the fix
  /// (check_same_compilation: nvcc refuses the pair in one compilation, and one set feeds every
  /// writer). The error policy then refuses the request; best_effort keeps sm_XYf, which loads
  /// wherever sm_XY does, and the diagnostic says why sm_XY went. Never silent.
  void reject_conflicts() {
    for (diagnostic& d : diags_) {
      if (!d.result || d.result->variant != arch_variant::baseline || d.result->form != arch_form::sass) continue;
      for (const diagnostic& other : diags_) {
        if (!other.result) continue;
        const auto ok = check_same_compilation(*d.result, *other.result);
        if (ok) continue;
        builder_.remove(*d.result);
        d.reason = ok.error();
        d.decided_by = source_kind::nvcc;
        d.result.reset();
        set_outcome(d);
        break;
      }
    }
  }

  /// t as d's result when it can be built, else d's reason (the first one kept); whether it can.
  bool judge(diagnostic& d, const arch_target& t) {
    auto verdict = check(t);
    if (!verdict) {
      if (!d.reason) d.reason = verdict.error();
      return false;
    }
    d.result = t;
    d.decided_by = verdict->decided_by;
    return true;
  }
  /// Settles a diagnostic's outcome and adds its result to the set; false when the set is full.
  bool finish(diagnostic& d) {
    set_outcome(d);
    return !d.result || builder_.add(*d.result);
  }

  std::optional<error> resolve_list(const parsed_arch_list& parsed) {
    std::vector<device_info> devs;
    if (policy_.verify_on_devices) {
      auto d = devices();
      if (!d) return d.error();
      devs = std::move(*d);
    }
    diags_.reserve(parsed.size());
    for (const parsed_target& p : parsed) {
      diagnostic& d = diags_.emplace_back();
      d.input = req_.list.substr(p.position, p.length);
      d.position = p.position;
      d.requested = p.target;
      if (!judge(d, p.target) && d.reason->code == errc::renamed_in_toolkit && policy_.follow_renames)
        judge(d, d.reason->replacement);  // judge() keeps the first reason: the reference stays valid
      if (d.result && !devs.empty() &&
          std::none_of(devs.begin(), devs.end(), [&](const device_info& dev) { return can_load(*d.result, dev.cc); })) {
        d.reason = no_device_loads(*d.result, devs);
        d.result.reset();
      }
      if (!finish(d)) return too_many_targets();
    }
    // Every device the code is for must be able to load something (when anything remains at all;
    // an empty set already fails with every target's reason).
    if (!builder_.empty())
      for (const auto& dev : devs) {
        if (builder_.can_load_on(dev.cc)) continue;
        diagnostic& d = diags_.emplace_back();
        d.device = resolved_device{dev.ordinal, dev.cc, dev.name};
        d.requested = parsed[0].target;
        d.reason = no_device_loads(parsed[0].target, std::vector<device_info>{dev});
        finish(d);
      }
    return std::nullopt;
  }

  /// The machine code of the highest lower minor of the device's major that the compiler builds
  /// and the device loads, in the chain's variant order (sm_120f before sm_120 for a 12.1 device).
  /// Integrated parts are skipped (is_integrated_part): a B300 (10.3) gets sm_100, not Thor's
  /// sm_101; an Ada GPU (8.9) gets sm_86, not Orin's sm_87.
  std::optional<arch_target> lower_minor(const compute_capability& device, const variant_chain& chain) {
    for (int minor = device.minor - 1; minor >= 0; --minor)
      for (const arch_variant v : chain) {
        const arch_target t{compute_capability{device.major, minor}, v, arch_form::sass};
        if (!is_integrated_part(t.cc) && variant_exists(t.cc, v) && can_load(t, device) && check(t)) return t;
      }
    return std::nullopt;
  }

  static void add_note(diagnostic& d, std::string_view words) {
    d.note.append(d.note.empty() ? "" : "; ").append(words);
  }

  std::optional<error> resolve_native() {
    auto devs = devices();
    if (!devs) return devs.error();
    diags_.reserve(devs->size());
    for (const device_info& dev : *devs) {
      diagnostic& d = diags_.emplace_back();
      d.input = "native";
      d.device = resolved_device{dev.ordinal, dev.cc, dev.name};
      const native_variant_rule rule = policy_.native_rule_for(dev.cc);
      d.preference = rule.spelling().view();
      const variant_chain chain = rule.chain.as_tried();
      // The device's own architecture, in the chain's order; a variant the device has no such
      // thing as (f below 10.0) is skipped, and said so when the rule named it for this device.
      bool found = false, first = true;
      for (const arch_variant v : chain) {
        if (!variant_exists(dev.cc, v)) {
          if (rule.specificity_for(dev.cc) > 0)
            add_note(d, "no '" + std::string(suffix(v)) + "' variant exists for " +
                            std::string(to_text(dev.cc).view()) + ", skipped");
          continue;
        }
        const arch_target t{dev.cc, v, arch_form::sass};
        if (std::exchange(first, false)) d.requested = t;
        if ((found = judge(d, t))) break;  // the device's own architecture: it loads
      }
      // Machine code of a lower minor of the same major loads on the device, but is another
      // architecture: only under compatible_minor, and then the highest the compiler builds.
      if (const auto lower = found ? std::nullopt : lower_minor(dev.cc, chain)) {
        // "policy compatible-minor: sm_120 runs on 12.1 but without 12.1-specific features", or
        // "policy compatible-minor would use sm_120, which runs on 12.1 but without ..." when off.
        found = policy_.compatible_minor && judge(d, *lower);
        const std::string cc(to_text(dev.cc).view());
        add_note(d, (found ? "policy compatible-minor: " : "policy compatible-minor would use ") +
                        std::string(to_text(*lower).view()) + (found ? "" : ", which") + " runs on " + cc +
                        " but without " + cc + "-specific features");
      }
      if (!found) d.fallback = ptx_fallback(dev, d);
      if (!finish(d)) return too_many_targets();
    }
    return std::nullopt;
  }

  /// PTX of the newest buildable arch at or below the device as d's result, if the policy allows it
  /// and the driver can JIT it (jitify2's rule, with cuda.core's driver check; never CuPy's old
  /// SASS). Returns how that went; a refusal's reason is d's fallback_error.
  ptx_fallback_status ptx_fallback(const device_info& dev, diagnostic& d) {
    if (!policy_.ptx_fallback) return ptx_fallback_status::off;
    std::optional<compute_capability> newest;
    for_each_buildable_baseline(compiler_, [&](const compute_capability& cc) {
      if (cc <= dev.cc) newest = cc;
    });
    if (!newest) return ptx_fallback_status::no_candidate;
    const arch_target ptx{*newest, arch_variant::baseline, arch_form::ptx};
    const auto verdict = checks_driver_ ? check(ptx) : unexpected(unchecked_driver_reason());
    if (!verdict) {
      d.fallback_error = verdict.error();
      return ptx_fallback_status::refused;
    }
    d.result = ptx;
    d.decided_by = verdict->decided_by;
    return ptx_fallback_status::used;
  }

  /// Why PTX cannot be checked: the error of a driver source that does not check (no_driver says
  /// so itself), or, when such a source answers anyway, that it is not asked to check.
  error unchecked_driver_reason() const {
    const expected<observation, error>& answer = driver_source_.driver_version();
    if (!answer) return answer.error();
    return errors::library_not_found(source_kind::driver, "the CUDA driver", answer->location,
                                     "the driver source does not check PTX (checks_ptx_against_driver is false)");
  }

  std::optional<error> resolve_all(arch_keyword keyword) {
    auto one = [&](const arch_target& t) {
      diagnostic& d = diags_.emplace_back();
      d.input = to_string(keyword);
      d.requested = t;
      judge(d, t);
      finish(d);
    };
    // PTX, for forward compatibility, of the newest major's first architecture: nvcc 13.0's
    // -arch=all embeds compute_120 beside sm_121 (tests/data/nvcc_flags_13.0.tsv, read by cuobjdump).
    std::optional<compute_capability> last, ptx;
    for_each_buildable_baseline(compiler_, [&](const compute_capability& cc) {
      const bool new_major = !last || last->major != cc.major;
      if (keyword == arch_keyword::all_major && !new_major) return;
      if (new_major) ptx = cc;
      last = cc;
      one(arch_target{cc, arch_variant::baseline, arch_form::sass});
    });
    if (!ptx) {
      text<200> why("the compiler (CUDA ");
      why.append(to_text(compiler_.version).view()).append(") builds no architecture cuarch knows");
      return errors::nothing_resolved(compiler_.kind, to_string(keyword), why.view(), compiler_.location);
    }
    one(arch_target{*ptx, arch_variant::baseline, arch_form::ptx});
    return std::nullopt;
  }

  const effective_request& req_;
  const parsed_arch_list& parsed_;
  const compiler_info& compiler_;
  const resolve_policy& policy_;
  const DeviceSource& device_source_;
  const DriverSource& driver_source_;
  const bool checks_driver_;
  std::optional<expected<observation, error>> driver_;
  target_set_builder builder_;
  std::vector<diagnostic> diags_;
};

}  // namespace detail

/// Resolves a request read and parsed once (read_and_parse) against a compiler described by value:
/// the front door's path, which judges the same parse under every compiler it weighs.
template <class DeviceSource = no_devices, class DriverSource = no_driver>
resolve_result resolve_parsed(const parsed_request& request, const compiler_info& compiler,
                              const DeviceSource& devices = DeviceSource{},
                              const resolve_policy& policy = resolve_policy{},
                              const DriverSource& driver = DriverSource{}) {
  static_assert(detail::check_resolver_arguments<fixed_compiler, DeviceSource, DriverSource>());
  return detail::resolution_run<DeviceSource, DriverSource>(request, compiler, policy, devices, driver).run();
}

/// Resolves `request` against a compiler already described by value (the warm path: no source is
/// asked for the compiler). Devices and driver are still asked lazily, as described above.
template <class DeviceSource = no_devices, class DriverSource = no_driver>
resolve_result resolve_target_archs(const arch_request& request, const compiler_info& compiler,
                                    const DeviceSource& devices = DeviceSource{},
                                    const resolve_policy& policy = resolve_policy{},
                                    const DriverSource& driver = DriverSource{}) {
  static_assert(detail::check_resolver_arguments<fixed_compiler, DeviceSource, DriverSource>());
  const auto req = read_and_parse(request);
  if (!req) return unexpected(resolution_failure(req.error()));
  return resolve_parsed(*req, compiler, devices, policy, driver);
}

/// Resolves `request`: environment overrides first, then the compiler source (once), then devices
/// and driver only when needed. Returns the non-empty target set with one diagnostic per request,
/// or a resolution_failure carrying every per-target reason.
template <class CompilerSource, class DeviceSource = no_devices, class DriverSource = no_driver,
          std::enable_if_t<is_compiler_source_v<CompilerSource>, int> = 0>
resolve_result resolve_target_archs(const arch_request& request, const CompilerSource& compiler,
                                    const DeviceSource& devices = DeviceSource{},
                                    const resolve_policy& policy = resolve_policy{},
                                    const DriverSource& driver = DriverSource{}) {
  static_assert(detail::check_resolver_arguments<CompilerSource, DeviceSource, DriverSource>());
  const auto req = read_and_parse(request);                          // before any source is asked
  const expected<compiler_info, error>& info = compiler.compiler();  // no copy of a cached answer
  if (!info) return unexpected(resolution_failure{info.error(), {}});
  if (!req) return unexpected(resolution_failure(req.error()));
  return resolve_parsed(*req, *info, devices, policy, driver);
}

/// A resolver with its sources and policy bound: a JIT library holds one (linked NVRTC, the driver
/// API's devices, jit_policy), a build tool another (nvcc's version, given devices, best effort),
/// a test a third (fixed sources). Sources are asked on every resolve, lazily (see above). The
/// sources are types (each answers in its own way); the policy is a value, as everywhere.
template <class CompilerSource, class DeviceSource = no_devices, class DriverSource = no_driver>
class resolver {
  static_assert(detail::check_resolver_arguments<CompilerSource, DeviceSource, DriverSource>());

 public:
  explicit resolver(CompilerSource compiler, DeviceSource devices = DeviceSource{},
                    resolve_policy policy = resolve_policy{}, DriverSource driver = DriverSource{})
      : compiler_(std::move(compiler)),
        devices_(std::move(devices)),
        policy_(std::move(policy)),
        driver_(std::move(driver)) {}

  /// See resolve_target_archs().
  resolve_result resolve(const arch_request& request) const {
    return resolve_target_archs(request, compiler_, devices_, policy_, driver_);
  }

  const CompilerSource& compiler_source() const noexcept { return compiler_; }

 private:
  CompilerSource compiler_;
  DeviceSource devices_;
  resolve_policy policy_;
  DriverSource driver_;
};

// Compiled mode (docs/design.md, "Templates"): these two are instantiated once, in src/cuarch.cpp;
// every other TU is told not to (extern template), so it generates no code for the resolver.
#if defined(CUARCH_COMPILED)
#  if CUARCH_DEFINITIONS
#    define CUARCH_INSTANTIATE template
#  else
#    define CUARCH_INSTANTIATE extern template
#  endif
CUARCH_INSTANTIATE resolve_result resolve_target_archs<no_devices, no_driver>(const arch_request&, const compiler_info&,
                                                                              const no_devices&, const resolve_policy&,
                                                                              const no_driver&);
CUARCH_INSTANTIATE resolve_result resolve_target_archs<fixed_compiler, no_devices, no_driver, 0>(
    const arch_request&, const fixed_compiler&, const no_devices&, const resolve_policy&, const no_driver&);
CUARCH_INSTANTIATE resolve_result resolve_parsed<no_devices, no_driver>(const parsed_request&, const compiler_info&,
                                                                        const no_devices&, const resolve_policy&,
                                                                        const no_driver&);
#  undef CUARCH_INSTANTIATE
#endif

CUARCH_END_NAMESPACE
