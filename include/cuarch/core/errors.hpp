// errors: one factory per errc, the documented way to make a cuarch::error. Each factory's
// parameters are named after the fields of struct error (core/error.hpp) they fill, so a call says
// what it records; fields a code does not use keep their defaults. All are constexpr and never
// allocate, so pure code may fail in constant expressions.
#pragma once

#include <cstddef>
#include <string_view>

#include "error.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {
// The builders under the factories; located_error also serves the edges' helpers whose code is
// decided at run time (a tool's, a library's, a file's failure).
constexpr error located_error(errc code, source_kind source, std::string_view subject, std::string_view location,
                              std::string_view raw, int native_status = 0) {
  error e;
  e.code = code;
  e.source = source;
  e.subject = subject;
  e.location = location;
  e.raw = raw;
  e.native_status = native_status;
  return e;
}
constexpr error make_target_error(errc code, source_kind source, const arch_target& target,
                                  const cuda_version& required = {}, const cuda_version& found = {},
                                  std::string_view raw = {}) {
  error e = located_error(code, source, to_text(target).view(), {}, raw);
  e.has_target = true;
  e.target = target;
  e.required = required;
  e.found = found;
  return e;
}
/// A token that asked for `target`: subject is the token as written (default: target's spelling).
constexpr error target_input_error(errc code, source_kind source, const arch_target& target, std::string_view subject,
                                   std::size_t position) {
  error e = make_target_error(code, source, target);
  if (!subject.empty()) e.subject = subject;
  e.position = position;
  return e;
}
/// The factory of a code whose error names only where: (source, subject, location, raw).
template <errc Code>
struct located_factory {
  constexpr error operator()(source_kind source, std::string_view subject, std::string_view location = {},
                             std::string_view raw = {}) const {
    return located_error(Code, source, subject, location, raw);
  }
};
/// The factory of a code whose error names a token of the input: (source, subject, position, raw).
template <errc Code>
struct input_factory {
  constexpr error operator()(source_kind source, std::string_view subject = {},
                             std::size_t position = error::no_position, std::string_view raw = {}) const {
    error e = located_error(Code, source, subject, {}, raw);
    e.position = position;
    return e;
  }
};
}  // namespace detail

namespace errors {

inline constexpr std::size_t no_position = error::no_position;

// --- input -----------------------------------------------------------------------------------

/// "" or an empty entry of a list: subject is the whole list (empty when nothing was given).
inline constexpr detail::input_factory<errc::empty_input> empty_input{};
/// "sm_", "abc": subject is the token; raw the fix (default: the target grammar's spellings).
inline constexpr detail::input_factory<errc::malformed_token> malformed_token{};
/// "compute_90b": subject is the token.
inline constexpr detail::input_factory<errc::unknown_suffix> unknown_suffix{};
/// "8.0a": target is what the token asked for; subject the token as written (default: target's spelling).
constexpr error variant_not_defined(source_kind source, const arch_target& target, std::string_view subject = {},
                                    std::size_t position = no_position) {
  error e = detail::target_input_error(errc::variant_not_defined, source, target, subject, position);
  e.device = target.cc;
  return e;
}
/// "12.0a+PTX": target is the a/f target the +PTX was attached to.
constexpr error ptx_of_specific_variant(source_kind source, const arch_target& target, std::string_view subject = {},
                                        std::size_t position = no_position) {
  return detail::target_input_error(errc::ptx_of_specific_variant, source, target, subject, position);
}
/// "native;90": subject is the keyword's entry.
inline constexpr detail::input_factory<errc::keyword_not_alone> keyword_not_alone{};
/// A list with more targets than a target_set holds: subject is the list.
inline constexpr detail::input_factory<errc::too_many_targets> too_many_targets{};
/// A version that decodes to nothing sensible: subject is the text or number; raw says why.
constexpr error invalid_version(source_kind source, std::string_view subject, std::string_view raw = {}) {
  return detail::located_error(errc::invalid_version, source, subject, {}, raw);
}
/// target was asked of CUDA `found`, a release the table cannot judge; raw says why.
constexpr error invalid_version(source_kind source, const arch_target& target, const cuda_version& found,
                                std::string_view raw) {
  error e = detail::make_target_error(errc::invalid_version, source, target, {}, found, raw);
  e.subject.append(" with CUDA ").append(to_text(found).view());
  return e;
}

// --- what a toolkit can build ----------------------------------------------------------------

/// No CUDA release in the table knows target's compute capability; found is the toolkit asked.
constexpr error unknown_arch(source_kind source, const arch_target& target, const cuda_version& found,
                             std::string_view raw = {}) {
  return detail::make_target_error(errc::unknown_arch, source, target, {}, found, raw);
}
/// target needs CUDA >= required; found is the toolkit that was asked.
constexpr error needs_newer_toolkit(source_kind source, const arch_target& target, const cuda_version& required,
                                    const cuda_version& found) {
  return detail::make_target_error(errc::needs_newer_toolkit, source, target, required, found);
}
/// target was removed in CUDA `required` (the first release without it); found is the toolkit asked.
constexpr error removed_in_toolkit(source_kind source, const arch_target& target, const cuda_version& required,
                                   const cuda_version& found) {
  return detail::make_target_error(errc::removed_in_toolkit, source, target, required, found);
}
/// target was renamed `replacement` in CUDA `required`; found is the toolkit asked.
constexpr error renamed_in_toolkit(source_kind source, const arch_target& target, const arch_target& replacement,
                                   const cuda_version& required, const cuda_version& found) {
  error e = detail::make_target_error(errc::renamed_in_toolkit, source, target, required, found);
  e.replacement = replacement;
  return e;
}
/// The live compiler (source: nvrtc, nvcc) of version `found` does not accept target; raw is its word.
constexpr error rejected_by_compiler(source_kind source, const arch_target& target, const cuda_version& found,
                                     std::string_view location = {}, std::string_view raw = {}) {
  error e = detail::make_target_error(errc::rejected_by_compiler, source, target, {}, found, raw);
  e.location = location;
  return e;
}

// --- what a device or driver can load --------------------------------------------------------

/// target cannot run on a device of compute capability `device`; raw may name every device asked. Or
/// it can, but CUDA `required` built it, of a later major than the driver's `found` (driver_runs_code_of).
constexpr error cannot_load_on_device(source_kind source, const arch_target& target, const compute_capability& device,
                                      std::string_view raw = {}, const cuda_version& required = {},
                                      const cuda_version& found = {}) {
  error e = detail::make_target_error(errc::cannot_load_on_device, source, target, required, found, raw);
  e.device = device;
  return e;
}
/// PTX of target, built by CUDA `required` (PTX ISA ptx_required), cannot be JIT-compiled by a
/// driver serving CUDA `found` (PTX ISA up to ptx_supported).
constexpr error ptx_too_new_for_driver(source_kind source, const arch_target& target, const cuda_version& required,
                                       const cuda_version& found, const ptx_isa_version& ptx_required,
                                       const ptx_isa_version& ptx_supported, std::string_view raw = {}) {
  error e = detail::make_target_error(errc::ptx_too_new_for_driver, source, target, required, found, raw);
  e.ptx_required = ptx_required;
  e.ptx_supported = ptx_supported;
  return e;
}

/// Machine code `target`, which loads on `device`, may or may not run under a driver serving CUDA
/// `driver`: the file does not say which CUDA built it (raw: why not). `newest`: the newest CUDA
/// cuarch knows, whose major's driver runs what any known release built.
constexpr error unknown_builder(const arch_target& target, const compute_capability& device, const cuda_version& driver,
                                const cuda_version& newest, std::string_view raw = {}) {
  error e = detail::make_target_error(errc::unknown_builder, source_kind::driver, target, newest, driver, raw);
  e.device = device;
  return e;
}

// --- edges: libraries, processes, files, devices ---------------------------------------------

/// subject (a library name) could not be loaded from location; raw is dlerror().
inline constexpr detail::located_factory<errc::library_not_found> library_not_found{};
/// symbol `subject` is missing from the library at location.
inline constexpr detail::located_factory<errc::symbol_not_found> symbol_not_found{};
/// The call `subject` (e.g. "nvrtcVersion") returned native_status.
constexpr error library_call_failed(source_kind source, std::string_view subject, int native_status,
                                    std::string_view location = {}, std::string_view raw = {}) {
  return detail::located_error(errc::library_call_failed, source, subject, location, raw, native_status);
}
/// The command line `subject` (program at location) failed with native_status; raw is its output.
constexpr error process_failed(source_kind source, std::string_view subject, int native_status,
                               std::string_view location = {}, std::string_view raw = {}) {
  return detail::located_error(errc::process_failed, source, subject, location, raw, native_status);
}
/// The command line `subject` (program at location) did not finish in time.
inline constexpr detail::located_factory<errc::process_timed_out> process_timed_out{};
/// subject (what was to be read) at location could not be read; raw says why (strerror, "a FIFO").
inline constexpr detail::located_factory<errc::file_unreadable> file_unreadable{};
/// subject (a file the caller named, at location) cannot be read, or its CUDA code is malformed; raw says why.
inline constexpr detail::located_factory<errc::unreadable_input> unreadable_input{};
/// subject (a tool or file) at location said `raw`, which holds no recognisable version.
inline constexpr detail::located_factory<errc::malformed_output> malformed_output{};
/// No device visible to `source`; raw says why (e.g. CUDA_VISIBLE_DEVICES=""), subject what was asked.
constexpr error no_device(source_kind source, std::string_view raw = {}, std::string_view subject = {},
                          std::string_view location = {}) {
  return detail::located_error(errc::no_device, source, subject, location, raw);
}
/// The environment variable `location` has the invalid value `subject`; raw says why.
constexpr error invalid_environment(source_kind source, std::string_view location, std::string_view subject,
                                    std::string_view raw = {}) {
  return detail::located_error(errc::invalid_environment, source, subject, location, raw);
}
/// subject (a candidate at location) was found but not asked: the detection's deadline had passed.
inline constexpr detail::located_factory<errc::deadline_exceeded> deadline_exceeded{};
/// No compiler of kind `source` (nvrtc, nvcc) anywhere detection looked: subject names it
/// ("libnvrtc", "nvcc"), location lists the directories actually searched, raw adds a hint.
inline constexpr detail::located_factory<errc::no_compiler> no_compiler{};

// --- resolution and outputs ------------------------------------------------------------------

/// Every target requested by `subject` (the request) was rejected; raw lists why; location is
/// where the deciding fact came from (the compiler, or the variable the request was read from).
constexpr error nothing_resolved(source_kind source, std::string_view subject, std::string_view raw = {},
                                 std::string_view location = {}) {
  return detail::located_error(errc::nothing_resolved, source, subject, location, raw);
}
/// target has no spelling in the format named `subject` ("TORCH_CUDA_ARCH_LIST"); raw says why.
constexpr error not_expressible(source_kind source, const arch_target& target, std::string_view subject,
                                std::string_view raw = {}) {
  error e = detail::make_target_error(errc::not_expressible, source, target, {}, {}, raw);
  e.subject = subject;
  return e;
}

/// target (a baseline sm_XY) and other (its family-specific sm_XYf) cannot share one nvcc
/// compilation (check_same_compilation); raw quotes the compiler's words.
constexpr error targets_conflict(source_kind source, const arch_target& target, const arch_target& other,
                                 std::string_view raw = {}) {
  error e = detail::make_target_error(errc::targets_conflict, source, target, {}, {}, raw);
  e.replacement = other;
  return e;
}

}  // namespace errors
CUARCH_END_NAMESPACE
