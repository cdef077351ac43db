// The Python names of cuarch's error codes, and which of them mean "the input itself is wrong".
//
// Python callers match on ResolveError.code, so it must be a stable identifier: the enumerator's
// own name (needs_newer_toolkit), not to_string(errc)'s words ("needs a newer toolkit"), which are
// written for people. The switch has no default, so a new errc fails the build (-Wswitch -Werror)
// until it is named here.
#pragma once

#include <cuarch/core/error.hpp>

#include <string_view>

namespace cuarch_python {

constexpr std::string_view code_name(cuarch::errc c) noexcept {
  using cuarch::errc;
  switch (c) {
    case errc::empty_input: return "empty_input";
    case errc::malformed_token: return "malformed_token";
    case errc::unknown_suffix: return "unknown_suffix";
    case errc::variant_not_defined: return "variant_not_defined";
    case errc::ptx_of_specific_variant: return "ptx_of_specific_variant";
    case errc::keyword_not_alone: return "keyword_not_alone";
    case errc::too_many_targets: return "too_many_targets";
    case errc::invalid_version: return "invalid_version";
    case errc::unknown_arch: return "unknown_arch";
    case errc::needs_newer_toolkit: return "needs_newer_toolkit";
    case errc::removed_in_toolkit: return "removed_in_toolkit";
    case errc::renamed_in_toolkit: return "renamed_in_toolkit";
    case errc::rejected_by_compiler: return "rejected_by_compiler";
    case errc::cannot_load_on_device: return "cannot_load_on_device";
    case errc::ptx_too_new_for_driver: return "ptx_too_new_for_driver";
    case errc::library_not_found: return "library_not_found";
    case errc::symbol_not_found: return "symbol_not_found";
    case errc::library_call_failed: return "library_call_failed";
    case errc::process_failed: return "process_failed";
    case errc::process_timed_out: return "process_timed_out";
    case errc::file_unreadable: return "file_unreadable";
    case errc::malformed_output: return "malformed_output";
    case errc::no_device: return "no_device";
    case errc::invalid_environment: return "invalid_environment";
    case errc::nothing_resolved: return "nothing_resolved";
    case errc::not_expressible: return "not_expressible";
    case errc::deadline_exceeded: return "deadline_exceeded";
  }
  return "unknown_error";  // not an errc value at all (a cast integer)
}

/// Errors about what the caller wrote (ResolveError is then also a ValueError), as opposed to what
/// could be resolved, found or loaded (also a RuntimeError). The same split as the command line's
/// exit 2 versus exit 1 (tools/cuarch/cmd_resolve.cpp).
constexpr bool is_input_error(cuarch::errc c) noexcept {
  using cuarch::errc;
  switch (c) {
    case errc::empty_input:
    case errc::malformed_token:
    case errc::unknown_suffix:
    case errc::variant_not_defined:
    case errc::ptx_of_specific_variant:
    case errc::keyword_not_alone:
    case errc::too_many_targets:
    case errc::invalid_version:
    case errc::invalid_environment: return true;
    default: return false;
  }
}

}  // namespace cuarch_python
