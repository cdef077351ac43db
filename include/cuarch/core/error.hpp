// error: the one structured error of cuarch, a literal type (constexpr parsing returns it under
// C++17) whose text is rendered on demand by message(); cuarch::errors (core/errors.hpp) makes them.
// What each code means outside cuarch is decided once, by classify() (core/errc.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

#include "arch.hpp"
#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "detail/text.hpp"
#include "errc.hpp"
#include "source_kind.hpp"

CUARCH_BEGIN_NAMESPACE

/// How the caller writes an option in a fix: "--device-cc 9.0" on the command line, "devices='9.0'" in
/// Python, "DEVICE_CC 9.0" in CMake. `name` is the library's name of the option (option_names in
/// front_door/options.hpp), `value` an example or empty. Without a function: "name=value". Not
/// std::function: <functional> would cost every includer.
struct option_speller {
  std::string (*spell)(const void* context, std::string_view name, std::string_view value) = nullptr;
  const void* context = nullptr;
  std::string operator()(std::string_view name, std::string_view value = {}) const {
    if (spell) return spell(context, name, value);
    return value.empty() ? std::string(name) : std::string(name) + "=" + std::string(value);
  }
};

/// Everything known about one failure. Fields that do not apply keep their defaults.
///
/// Its size, 760 bytes on LP64, is pinned by tests/error_test.cpp: fixed-capacity text (subject 96,
/// location 320, raw 200 characters; longer text is cut with a visible "...") keeps it a literal
/// type, and it is returned inside expected<> by every fallible call: grow it only on purpose.
struct error {
  static constexpr std::size_t no_position = static_cast<std::size_t>(-1);

  errc code{};
  source_kind source = source_kind::none;  // where the deciding fact came from
  std::size_t position = no_position;      // offset of the token in the input, for input errors
  bool has_target = false;
  bool partial = false;         // nothing_resolved: the policy refused what resolved; not_expressible: a tool's list
  arch_target target{};         // the target asked about
  arch_target replacement{};    // renamed_in_toolkit: the new name; targets_conflict: the other target
  compute_capability device{};  // cannot_load_on_device / no variant: the cc concerned
  cuda_version required{};      // needs_newer_toolkit: first release; removed: first release without it
  cuda_version found{};         // the version that was found (compiler, driver, ...)
  ptx_isa_version ptx_required{}, ptx_supported{};
  int native_status = 0;       // nvrtcResult / CUresult / errno / exit status
  detail::text<96> subject;    // what was asked, verbatim: token, list, variable value
  detail::text<320> location;  // where: a path, a library, an environment variable
  detail::text<200> raw;       // raw words of the source (NVRTC log, nvcc output)

  std::error_code error_code() const noexcept;
  /// One paragraph: what was asked, what was found where, and what would fix it, with each option
  /// the fix names written as the caller writes it.
  std::string message(const option_speller& spell = {}) const;
};

inline std::string error::message(const option_speller& spell) const {
  const auto str = [](const auto& value) { return std::string(to_text(value).view()); };
  const std::string subj(subject.view()), tgt = str(target), req = str(required), fnd = str(found);
  std::string where;  // " (nvrtc at /path)": where the deciding fact was found
  if ((source != source_kind::none && source != source_kind::user_input) || !location.empty()) {
    where.append(" (").append(to_string(source));
    if (!location.empty()) where.append(" at ").append(location.view());
    where += ')';
  }
  const std::string at = position == no_position ? std::string() : " at position " + std::to_string(position);
  const std::string quoted = "'" + subj + "'" + at;
  // The source's own words after `open`, when there are any.
  const auto said = [&](const char* open, const char* close = "") {
    return raw.empty() ? std::string() : open + std::string(raw.view()) + close;
  };
  switch (code) {
    case errc::empty_input:
      return (position != no_position && !subject.empty() ? "empty entry" + at + " of '" + subj + "'"
                                                          : std::string("no architecture given")) +
             where + "; fix: give at least one target, e.g. \"9.0a\" or \"sm_90a\", with one separator between entries";
    case errc::malformed_token:
      return quoted + " is not a CUDA architecture" + where + "; fix: " +
             (raw.empty() ? std::string("write it like sm_90a, compute_90, 9.0a, 90a, 9.0+PTX or 90-real")
                          : std::string(raw.view()));
    case errc::unknown_suffix:
      return quoted + " has an unknown suffix" + where +
             "; fix: the only suffixes are 'a' (arch-specific) and 'f' (family-specific)";
    case errc::variant_not_defined:
      return quoted + ": no '" + std::string(suffix(target.variant)) + "' variant exists for " + str(target.cc) +
             where + "; fix: " +
             (target.variant == arch_variant::arch_specific ? "'a' exists from 9.0 on" : "'f' exists from 10.0 on") +
             ", use the plain target " + str(target.cc);
    case errc::ptx_of_specific_variant:
      return quoted + ": +PTX asks for forward-compatible PTX, but a/f code never runs on later GPUs" + where +
             "; fix: write compute_" + std::to_string(target.cc.sm_number()) + std::string(suffix(target.variant)) +
             " for arch-specific PTX, or " + str(target.cc) + "+PTX for portable PTX";
    case errc::keyword_not_alone:
      return quoted + ": native, all and all-major must be the only entry of a list" + where +
             "; fix: use the keyword alone, or list targets explicitly";
    case errc::too_many_targets:
      return "the list '" + subj + "' names more targets than cuarch holds in one set" + where + "; fix: split the list";
    case errc::invalid_version:
      return has_target || source == source_kind::knowledge_table
                 ? subj + ": " + std::string(raw.view()) + "; fix: use a CUDA release cuarch knows"
                 : "'" + subj + "' is not a valid version" + where + "; fix: pass a version like 12.8 or 12.8.93";
    case errc::unknown_arch:
      return tgt + ": compute capability " + str(target.cc) + " is not known to any CUDA release in cuarch's table" +
             where + said(" (", ")") +
             "; fix: check the spelling, or if this is a GPU newer than cuarch's table, ask the compiler "
             "that will build it (nvrtcGetSupportedArchs, nvcc --list-gpu-arch) or update cuarch";
    case errc::needs_newer_toolkit:
      return tgt + " needs CUDA >= " + req + " (have " + fnd + ")" + where + "; fix: compile with CUDA " + req +
             " or newer, or drop " + tgt;
    case errc::removed_in_toolkit:
      return tgt + " was removed in CUDA " + req + " (have " + fnd + ")" + where +
             "; fix: compile it with an older CUDA, or target a newer GPU";
    case errc::renamed_in_toolkit:
      // The device itself is renamed too: the same GPU reports the new compute capability under a
      // driver of that release, and a driver that still reports the old one cannot load its code.
      return tgt + " was renamed " + str(replacement) + " in CUDA " + req + " (have " + fnd + ")" + where +
             "; fix: for a device that reports compute capability " + str(replacement.cc) + " (a CUDA " + req +
             " driver) use " + str(replacement) + "; one that still reports " + str(target.cc) +
             " runs an older driver, which cannot load CUDA " + req + "'s code: build " + tgt + " with an older CUDA";
    case errc::rejected_by_compiler:
      return tgt + " is not supported by the compiler, CUDA " + fnd + where + said(": ") +
             "; fix: pick a target the compiler lists, or use a compiler that supports " + tgt;
    case errc::cannot_load_on_device:
      if (!has_target && found.major)  // the driver cannot drive the device at all (check_driver_drives_device)
        return "a driver serving CUDA " + fnd + " cannot drive a device of compute capability " + str(device) + where +
               ": NVIDIA's drivers support it from CUDA " + req +
               " on; fix: update the driver to one that serves CUDA " + req + " or newer";
      if (found.major)  // built by a later major than the driver serves (driver_runs_code_of; choose_image)
        // Within a major, a driver runs what any release built (minor-version compatibility): the
        // major's first release is the driver to name, not the release that built it.
        return tgt + " was built by CUDA " + req + ", which a driver serving CUDA " + fnd + " does not run" + where +
               ": minor-version compatibility does not cross majors; fix: update the driver to one that serves CUDA " +
               std::to_string(required.major) + ".0 or newer, or build with CUDA " + std::to_string(found.major) + ".x";
      return tgt + " cannot run on a device of compute capability " + str(device) + where +
             "; fix: build a target that device can load (e.g. sm_" + std::to_string(device.sm_number()) + ")";
    case errc::ptx_too_new_for_driver: {
      // An ISA of 0.0 is unknown: a compiler newer than the table (judged by release), or a driver
      // older than it (newer ones have no known limit).
      const std::string up_to = ptx_supported.major ? " JITs PTX ISA up to " + str(ptx_supported) : std::string();
      if (!ptx_required.major)
        return tgt + " is PTX of CUDA " + req + ", whose PTX ISA cuarch's table does not know; the driver (CUDA " +
               fnd + ") is of an older release" + (up_to.empty() ? "" : " and" + up_to) + where +
               "; fix: update the driver to one of CUDA " + req +
               " or newer, or ship machine code (sm_) for the device instead of PTX";
      return tgt + " is PTX ISA " + str(ptx_required) + ", but the driver (CUDA " + fnd + ")" +
             (up_to.empty() ? " is older than cuarch's table, which cannot vouch for the PTX it JITs" : up_to) + where +
             "; fix: update the driver, or ship machine code (sm_) for the device instead of PTX";
    }
    case errc::library_not_found:
      return "could not load " + subj + where + said(": ") + "; fix: install it, or pass its absolute path explicitly";
    case errc::symbol_not_found:
      return "symbol " + subj + " is missing" + where +
             "; fix: the library is too old or not the one expected; pass another library";
    case errc::library_call_failed:
      // bounded_call.hpp: no thread to bound the call with (the call was not made).
      return subj + " failed with status " + std::to_string(native_status) + where + said(": ") +
             (subj.rfind("pthread_create", 0) == 0
                  ? "; fix: free threads in this process, or raise its limit (ulimit -u, pids.max)"
                  : "; fix: check the installation (driver loaded, library intact)");
    case errc::process_failed:
      return "'" + subj + "' failed (status " + std::to_string(native_status) + ")" + where + said(": ") +
             "; fix: run it by hand to see why";
    case errc::process_timed_out:
      return "'" + subj + "' did not finish in time and was killed" + where +
             "; fix: check that the program is a working compiler, or raise the timeout";
    case errc::file_unreadable:
      return "cannot read " + subj + where + said(": ") + "; fix: check the path and its permissions";
    case errc::unreadable_input:
      return (source == source_kind::device_list ? "cannot read the inventory: " : "cannot inspect ") + subj + where +
             said(": ") +
             (source == source_kind::device_list
                  ? "; fix: give `kubectl get nodes -o json` or a CSV of nvidia-smi --query-gpu with a header (docs/inspect.md)"
                  : "; fix: name a readable regular file (a library, executable, object, fatbin, cubin or PTX) as the compiler wrote it");
    case errc::unknown_builder:  // required: the newest CUDA cuarch knows, whose driver runs what any known release built
      return "which CUDA built " + tgt + " is not known" + said(" (", ")") + ", and a driver serving CUDA " + fnd +
             " runs it only if CUDA " + std::to_string(found.major) + ".x or older built it" + where +
             "; fix: to settle it, build it uncompressed (nvcc --no-compress) so that its cubin names its builder, or use a driver "
             "that serves CUDA " +
             std::to_string(required.major) + ".0 or newer";
    case errc::malformed_output:
      return subj + " gave no recognisable version" + where + said(": '", "'") +
             "; fix: point cuarch at a genuine CUDA installation";
    case errc::no_device:
      return "no CUDA device is visible" + where + said(": ") + "; fix: pass the devices explicitly (" +
             spell("devices", "9.0") + ") or request explicit targets";
    case errc::invalid_environment:
      return "environment variable " + std::string(location.view()) + "='" + subj + "' is invalid" + said(": ") +
             "; fix: correct or unset it";
    case errc::nothing_resolved:
      if (source ==
          source_kind::device_list) {  // a fleet (resolve --inventory): said of it, not of a request nobody typed
        const std::string fleet = "the fleet in " + std::string(location.view());
        const std::string asked = subj == "native" ? std::string() : " ('" + subj + "')";
        return (partial ? "what is built for " + fleet + asked + " was refused"
                        : "no target could be resolved for " + fleet + asked) +
               said(": ");
      }
      return (partial ? "the request '" + subj + "' was refused" : "no target could be resolved for '" + subj + "'") +
             where + said(": ");
    case errc::not_expressible:
      // location: a request the reader can spell (front_door/tool_env.hpp), or the value a format cannot carry.
      if (!has_target)
        return "the value of " + subj + " cannot be written" + said(": ") + " (value: " + std::string(location.view()) +
               "); fix: print it in the shell or json format, which carry every value";
      // A compiler's refusal (the tool cannot be pointed at it) says its fix in raw.
      if (source == source_kind::nvcc || source == source_kind::ptxas || source == source_kind::nvrtc)
        return tgt + " cannot be written in " + subj + where + said(": ");
      // partial: the format is a tool's own list (env --for), whose reason says what it would take.
      return tgt + " cannot be written in " + subj + said(": ") +
             (!location.empty() ? "; fix: ask for targets it spells (" + spell("archs", location.view()) + ")"
              : partial         ? "; fix: ask for targets it can spell, as the reason says"
                                : "; fix: use a format that spells every target (" + spell("output", "nvcc") +
                              "), or change the targets");
    case errc::deadline_exceeded:
      // Both a probe skipped once the deadline had passed and a call that did not return by it: raw says which.
      return subj + " gave no answer within the detection's deadline" + where + said(" (", ")") +
             "; fix: remove the program or library that hangs before it, or allow more time (" +
             spell("timeout", "SECONDS") + ")";
    case errc::no_compiler: {
      const bool program = source == source_kind::nvcc;
      return "no " + subj + " found" +
             (location.empty() ? std::string() : " (searched: " + std::string(location.view()) + ")") +
             "; fix: install a CUDA toolkit and set CUDA_HOME to it, or name the " + (program ? "program" : "library") +
             (program ? " (" + spell("nvcc", "PATH") + ", CUARCH_NVCC or CUDACXX)"
                      : " (" + spell("nvrtc", "PATH") + " or CUARCH_NVRTC)") +
             said("; ");
    }
    case errc::targets_conflict:
      // target: the baseline sm_XY; replacement: the family-specific sm_XYf it collides with.
      return tgt + " and " + str(replacement) + " cannot be built in one nvcc compilation" + said(" (", ")") +
             "; fix: keep " + str(replacement) + " alone (it loads on every device " + tgt +
             " loads on, and provides " + tgt + "'s features), or build " + tgt + " in a separate nvcc invocation";
  }
  return std::string(to_string(code));
}

/// The std::error_code category of cuarch::errc. Note: categories are compared by address; across
/// shared libraries built with hidden visibility compare error::code (the enum) instead.
class error_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "cuarch"; }
  std::string message(int c) const override { return std::string(classify(static_cast<errc>(c)).title); }
  std::error_condition default_error_condition(int c) const noexcept override {
    const std::errc condition = classify(static_cast<errc>(c)).condition;  // std::errc{}: none, only itself
    return condition == std::errc{} ? std::error_condition(c, *this) : std::make_error_condition(condition);
  }
};

inline const std::error_category& error_category() noexcept {
  static const error_category_impl instance;
  return instance;
}
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), error_category()}; }
inline std::error_code error::error_code() const noexcept { return make_error_code(code); }

CUARCH_END_NAMESPACE

namespace std {
template <>
struct is_error_code_enum<cuarch::errc> : true_type {};
}  // namespace std

// The factories: the documented way to make an error (after the type is complete).
#include "errors.hpp"
