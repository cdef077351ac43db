// resolve_detected(): one resolution whose compiler, devices and driver come from detection, the
// whole way `cuarch resolve` and Python's cuarch.resolve() make it, so the two cannot drift apart:
//   1. the request is read (environment overrides first) and parsed: a malformed one is refused
//      before anything is detected, loaded or run;
//   2. detection asks only the roles this request needs, each stopped at the candidate that
//      governs it (strict: every compile-side source, to see every disagreement);
//   3. resolution runs against the compiler that governs (or the given toolkit), the devices
//      (given, or the driver's when the request needs them) and the driver (given, detected or none);
//   4. a failure is explained (who decided and how it was found, what else would have built it,
//      where was searched), and success or failure carries the doctor's findings that bear on it.
// Nothing is printed: the caller words the result (tools/cuarch/cmd_resolve.cpp,
// python/src/detecting_calls.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/observation.hpp"
#include "../detect/detector.hpp"
#include "../resolve/env_request.hpp"
#include "../resolve/policy.hpp"
#include "../resolve/resolution.hpp"

CUARCH_BEGIN_NAMESPACE

/// Where resolution learns the driver's CUDA version, which PTX must not be newer than.
enum class driver_from : unsigned char {
  none,      // not at all: PTX is not checked (right for builds: not the driver that will run it)
  given,     // detected_request::driver_version
  detected,  // the driver detection finds (libcuda.so.1)
};

/// What `cuarch resolve` asks: the request, the policy, and where the compiler, devices and driver
/// come from. Every field has the command line's default.
struct detected_request {
  arch_request request;  // the list (a view: keep its string alive), dialect and environment overrides
  resolve_policy policy;
  bool jit = false;                                      // the compile path: NVRTC (JIT), else nvcc (offline)
  std::optional<cuda_version> toolkit;                   // names the compiler by release: it is not detected
  std::optional<std::vector<int>> toolkit_supported_sm;  // with toolkit: what it lists (nvrtcGetSupportedArchs)
  driver_from driver = driver_from::none;
  cuda_version driver_version{};  // with driver_from::given
  bool strict = false;            // ask both compilers, the driver and every candidate: every disagreement
  detect_options detect;          // where to look (roles, mode, query_devices are chosen here); device_ccs names the devices
};

/// What came of it. `result` holds the targets or the explained failure; the rest says what the
/// answer rests on.
struct detected_resolution {
  resolve_result result;
  /// The compiler resolution was judged against, with the path as found and how it was found when
  /// detection found it (nullopt: none answered; result says why).
  std::optional<compiler_provenance> compiler;
  /// Success: the disagreements between sources that bear on the answer (a failure carries its own
  /// in result.error().warnings).
  std::vector<resolution_warning> warnings;
  /// What detection saw, every candidate. nullopt: nothing was detected.
  std::optional<detection> found;
  /// What the caller must say beside the answer, success or failure, in cuarch's words: a toolkit
  /// root read other than verbatim ("--cuda-home .../bin is a toolkit's bin directory"), devices
  /// read through cuInit (a process forked afterwards cannot use CUDA), candidates a failure's
  /// explanation could not ask in time. `cuarch resolve` prints them as notes; Python raises
  /// CuarchWarnings.
  std::vector<std::string> notes;
  /// The request itself was refused (malformed, or a malformed environment override): nothing was
  /// detected; the caller's input to fix.
  bool malformed = false;
};

/// Resolves `r` as described at the top of this header. Never throws.
CUARCH_FUNC detected_resolution resolve_detected(const detected_request& r);

CUARCH_END_NAMESPACE

// Defined where definitions are compiled: every TU in header-only mode, src/cuarch.cpp in compiled
// mode (core/config.hpp).
#if CUARCH_DEFINITIONS
#  include "../detect/explain.hpp"
#  include "../resolve/fixed_sources.hpp"
#  include "../resolve/resolver.hpp"
#  include "../resolve/source_contract.hpp"
#  include "resolve_warnings.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// The roles a request needs: the compile path's (with version files, so nvcc vs its headers and
/// an override vs $CUDA_HOME are seen even for a plain list), the devices when the request needs
/// the driver's, the driver when asked; under strict, both compilers and the driver.
inline role_set roles_for(const detected_request& r, bool ask_driver_for_devices) {
  role_set roles;
  if (!r.toolkit) {
    roles = roles | (r.jit ? detect_role::jit_compiler : detect_role::offline_compiler) | detect_role::toolkit_files;
    if (r.strict) roles = roles | detect_role::jit_compiler | detect_role::offline_compiler | detect_role::driver;
  }
  if (ask_driver_for_devices) roles = roles | detect_role::devices;
  if (r.driver == driver_from::detected) roles = roles | detect_role::driver;
  return roles;
}

}  // namespace detail

CUARCH_FUNC detected_resolution resolve_detected(const detected_request& r) {
  // 1. The request, exactly as resolution will read it: a malformed one ends here.
  const auto parsed = parse_request(read_request(r.request));
  if (!parsed) return detected_resolution{unexpected(resolution_failure{parsed.error(), {}}), {}, {}, {}, {}, true};

  // 2. Only the roles this request needs, each stopped at the candidate that governs it.
  const bool needs_devices = r.policy.verify_on_devices || parsed->keyword() == arch_keyword::native;
  const bool ask_driver_for_devices = needs_devices && !r.detect.device_ccs;
  detect_options asked = r.detect;
  std::optional<detection> found;
  if (!r.toolkit || ask_driver_for_devices || r.driver == driver_from::detected) {
    asked.roles = detail::roles_for(r, ask_driver_for_devices);
    asked.mode = r.strict && !r.toolkit ? detect_mode::enumerate_all : detect_mode::first_answer;
    asked.query_devices = ask_driver_for_devices;
    found = detect(asked);
  }
  const detection* d = found ? &*found : nullptr;

  // 3. The sources behind the type-erased adaptors: one resolution instantiation (compiled once in
  // compiled mode); an erased no_driver still means "do not check PTX".
  const any_compiler_source compiler = [&]() -> any_compiler_source {
    if (r.toolkit) return r.toolkit_supported_sm ? fixed_compiler(*r.toolkit, *r.toolkit_supported_sm) : fixed_compiler(*r.toolkit);
    if (r.jit) return detected_jit_compiler{d};
    return detected_offline_compiler{d};
  }();
  const any_device_source devices = [&]() -> any_device_source {
    if (r.detect.device_ccs) return fixed_devices(*r.detect.device_ccs);
    if (d && ask_driver_for_devices) return detected_devices{d};
    return no_devices{};
  }();
  const any_driver_source driver = [&]() -> any_driver_source {
    switch (r.driver) {
      case driver_from::given: return fixed_driver(r.driver_version);
      case driver_from::detected: return detected_driver{d};
      case driver_from::none: break;
    }
    return no_driver{};
  }();
  const auto info = compiler.compiler();
  resolve_result result = info ? resolve_target_archs(r.request, *info, devices, r.policy, driver)
                               : resolve_result(unexpected(resolution_failure(info.error())));

  // 4. Only a detected compiler has a "who decided", alternatives and disagreements; a toolkit
  // named by version has none.
  std::vector<resolution_warning> warnings;
  std::vector<std::string> notes;
  std::optional<compiler_provenance> judged_by;
  const source_kind kind = r.jit ? source_kind::nvrtc : source_kind::nvcc;
  if (d) {
    for (const auto& root : d->toolkit_roots)
      if (!root.note.empty()) notes.push_back(root.note);
    notes.insert(notes.end(), d->devices_notes.begin(), d->devices_notes.end());
  }
  if (d && !r.toolkit) {
    judged_by = provenance_of(*d, r.jit ? d->jit_compiler : d->offline_compiler);
    if (!result) {
      const std::size_t not_asked = explain_failure_fully(result.error(), *d, asked, r.jit, r.request, devices, r.policy, driver);
      if (not_asked != 0)
        notes.push_back(std::to_string(not_asked) + " other " + std::string(to_string(kind)) + " candidate(s) were not asked within " +
                        std::to_string(alternatives_budget.count()) + " ms; the doctor lists them");
      result.error().warnings = resolve_warnings(*d, kind);
    } else {
      warnings = resolve_warnings(*d, kind, &result->targets);
    }
  }
  if (!judged_by && info) judged_by = compiler_provenance{*info, {}, {}, {}};
  return detected_resolution{std::move(result), std::move(judged_by), std::move(warnings), std::move(found), std::move(notes), false};
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
