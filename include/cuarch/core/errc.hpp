// errc: the kinds of failure, and the one table that says what each means to the outside world:
// its stable identifier (JSON, logs), its short title (std::error_code::message()), the portable
// std::errc condition it compares equal to, and the command line's exit status. to_string(errc),
// the std::error_category, the JSON writer and the CLI all read classify(); nothing else decides.
#pragma once

#include <string_view>
#include <system_error>

#include "config.hpp"

CUARCH_BEGIN_NAMESPACE

enum class errc : int {
  // 0 is never an error (std::error_code convention).
  // --- input ---
  empty_input = 1,          // "", or a list with no tokens
  malformed_token,          // "sm_", "9.0.a", "abc"
  unknown_suffix,           // "compute_90b"
  variant_not_defined,      // "8.0a", "9.0f": that suffix does not exist for that compute capability
  ptx_of_specific_variant,  // "12.0a+PTX": forward-compatible PTX cannot be arch-specific
  keyword_not_alone,        // "native;90": native/all/all-major stand alone
  too_many_targets,         // more targets than a target list holds
  invalid_version,          // a version number or text that decodes to nothing sensible
  // --- what a toolkit can build (knowledge table or live compiler) ---
  unknown_arch,          // well formed, but no toolkit in the table knows this compute capability
  needs_newer_toolkit,   // sm_120a with CUDA 12.4
  removed_in_toolkit,    // sm_70 with CUDA 13.0
  renamed_in_toolkit,    // sm_101 with CUDA 13.0 (now sm_110)
  rejected_by_compiler,  // the live compiler does not list / accept it
  // --- what a device / driver can load ---
  cannot_load_on_device,   // sm_90a on a 10.0 device, sm_80 on 9.0
  ptx_too_new_for_driver,  // PTX ISA 9.0 on a 12.8 driver
  // --- edges: libraries, processes, files, devices ---
  library_not_found,
  symbol_not_found,
  library_call_failed,
  process_failed,
  process_timed_out,
  file_unreadable,
  malformed_output,  // a tool or file said something that is not a version
  no_device,
  invalid_environment,
  // --- resolution, outputs, bounds ---
  nothing_resolved,   // every requested target was rejected
  not_expressible,    // a format has no spelling for the target (compute_90 alone in TORCH_CUDA_ARCH_LIST)
  deadline_exceeded,  // found but not asked: the detection's overall deadline had passed
  // --- added later, in this order (the values above are stable) ---
  no_compiler,       // no NVRTC / nvcc anywhere detection looked (location lists the places)
  targets_conflict,  // sm_100 with sm_100f: nvcc refuses to build both in one compilation
  unreadable_input,  // a file the caller named to be read (cuarch inspect) cannot be read, or its CUDA code is malformed
  unknown_builder,  // machine code that loads only if the driver runs the CUDA that built it, which the file does not say
};

/// The first and last codes, for tables and tests that walk every code.
inline constexpr errc first_errc = errc::empty_input;
inline constexpr errc last_errc = errc::unknown_builder;

/// The command line's exit status for a failure (see tools/cuarch and docs/design.md).
enum class exit_class : int {
  failed = 1,     // the input was understood, but resolution or validation failed
  bad_input = 2,  // bad usage or malformed input: fix the command, not the machine
};

/// What one errc means outside cuarch.
struct errc_class {
  std::string_view name;   // stable snake_case identifier: JSON "kind", logs; never changes once released
  std::string_view title;  // short human words: to_string(errc), std::error_code::message()
  std::errc condition;     // the portable condition it compares equal to; std::errc{} = none (only itself)
  exit_class exit;
};

/// The one classification of every errc. A code out of range (a value cast from an int) gets an
/// "unknown_error" row rather than undefined behaviour.
constexpr errc_class classify(errc e) noexcept {
  using E = std::errc;
  constexpr E none{};
  constexpr exit_class input = exit_class::bad_input, failed = exit_class::failed;
  switch (e) {
    case errc::empty_input: return {"empty_input", "empty input", E::invalid_argument, input};
    case errc::malformed_token: return {"malformed_token", "malformed architecture", E::invalid_argument, input};
    case errc::unknown_suffix: return {"unknown_suffix", "unknown suffix", E::invalid_argument, input};
    case errc::variant_not_defined:
      return {"variant_not_defined", "variant does not exist", E::invalid_argument, input};
    case errc::ptx_of_specific_variant:
      return {"ptx_of_specific_variant", "+PTX on an a/f target", E::invalid_argument, input};
    case errc::keyword_not_alone: return {"keyword_not_alone", "keyword must stand alone", E::invalid_argument, input};
    case errc::too_many_targets: return {"too_many_targets", "too many targets", none, input};
    case errc::invalid_version: return {"invalid_version", "invalid version", E::invalid_argument, input};
    case errc::unknown_arch: return {"unknown_arch", "unknown architecture", E::not_supported, failed};
    case errc::needs_newer_toolkit: return {"needs_newer_toolkit", "needs a newer toolkit", E::not_supported, failed};
    case errc::removed_in_toolkit: return {"removed_in_toolkit", "removed from the toolkit", E::not_supported, failed};
    case errc::renamed_in_toolkit: return {"renamed_in_toolkit", "renamed in the toolkit", E::not_supported, failed};
    case errc::rejected_by_compiler:
      return {"rejected_by_compiler", "rejected by the compiler", E::not_supported, failed};
    case errc::cannot_load_on_device:
      return {"cannot_load_on_device", "cannot load on the device", E::not_supported, failed};
    case errc::ptx_too_new_for_driver:
      return {"ptx_too_new_for_driver", "PTX too new for the driver", E::not_supported, failed};
    case errc::library_not_found:
      return {"library_not_found", "library not found", E::no_such_file_or_directory, failed};
    case errc::symbol_not_found: return {"symbol_not_found", "symbol not found", none, failed};
    case errc::library_call_failed: return {"library_call_failed", "library call failed", none, failed};
    case errc::process_failed: return {"process_failed", "process failed", none, failed};
    case errc::process_timed_out: return {"process_timed_out", "process timed out", E::timed_out, failed};
    case errc::file_unreadable: return {"file_unreadable", "file unreadable", E::no_such_file_or_directory, failed};
    case errc::malformed_output: return {"malformed_output", "malformed output", none, failed};
    case errc::no_device: return {"no_device", "no device", none, failed};
    // A variable's value is the user's input, as much as a flag is.
    case errc::invalid_environment: return {"invalid_environment", "invalid environment", E::invalid_argument, input};
    case errc::nothing_resolved: return {"nothing_resolved", "nothing resolved", none, failed};
    case errc::not_expressible: return {"not_expressible", "not expressible in the format", E::not_supported, failed};
    case errc::deadline_exceeded: return {"deadline_exceeded", "deadline exceeded", E::timed_out, failed};
    case errc::no_compiler: return {"no_compiler", "no compiler found", E::no_such_file_or_directory, failed};
    case errc::targets_conflict:
      return {"targets_conflict", "targets conflict in one compilation", E::not_supported, failed};
    // The file is the caller's input, as much as a flag is (cuarch inspect's exit 2).
    case errc::unreadable_input: return {"unreadable_input", "input file unreadable", E::invalid_argument, input};
    // Not shown to load is not "loads": the check did not pass (cuarch inspect's exit 1, verdict "unknown").
    case errc::unknown_builder: return {"unknown_builder", "built by an unknown CUDA", none, failed};
  }
  return {"unknown_error", "unknown error", none, failed};
}

/// Short human words for a code ("malformed architecture").
constexpr std::string_view to_string(errc e) noexcept { return classify(e).title; }

/// The command line's exit status for a code: 1 (failed) or 2 (bad usage or input).
constexpr int exit_status(errc e) noexcept { return static_cast<int>(classify(e).exit); }

CUARCH_END_NAMESPACE
