// Device lists as users write them ("12.0,9.0", "sm_90 120"): parsing only, so that a build
// machine without a GPU can name its targets' devices without loading anything.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "compute_capability.hpp"
#include "config.hpp"
#include "detail/chars.hpp"
#include "error.hpp"
#include "expected.hpp"
#include "parse.hpp"

CUARCH_BEGIN_NAMESPACE

/// One compute capability as users write it: "12.0", "9.0", or the sm number "120", "sm_90".
/// Suffixes are refused: a device has a compute capability, not a target variant.
constexpr expected<compute_capability, error> parse_compute_capability(std::string_view s) {
  // The target grammar (parse.hpp) reads the spellings; a device is one plain machine-code target.
  // The fix is the device's own spellings: the target grammar's examples (sm_90a, 9.0+PTX) are refused here.
  const std::string_view t = detail::trim(s);
  const auto parsed = parse_arch_token(t);
  if (!parsed || parsed->count != 1 || parsed->items[0].variant != arch_variant::baseline ||
      parsed->items[0].form != arch_form::sass)
    return unexpected(errors::malformed_token(
        source_kind::device_list, t, errors::no_position,
        "a device is a compute capability: write it like 9.0, 12.0, 90 or sm_120 (no a/f suffix, no PTX)"));
  // A bare number below 30 ("12", "10") is what someone means as 12.0 or 10.0, never the sm number
  // of a compute capability 1.x or 2.x no CUDA cuarch knows builds: refused, never read as cc 1.2.
  const bool bare_number = !t.empty() && t.size() <= 2 && t.find_first_not_of("0123456789") == std::string_view::npos;
  if (bare_number && parsed->items[0].cc.major < 3)
    return unexpected(
        errors::malformed_token(source_kind::device_list, t, errors::no_position,
                                "a bare number under 30 is not read as compute capability 1.x or 2.x: write it dotted, "
                                "like 12.0, or as its sm number, like 120"));
  return parsed->items[0].cc;
}

/// "12.0,9.0" (also ';' or spaces): an explicit device list. Empty or malformed entries are errors
/// naming the entry and its position.
inline expected<std::vector<compute_capability>, error> parse_device_list(std::string_view list) {
  std::vector<compute_capability> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find_first_of(",; ", start), list.size());
    const std::string_view entry = list.substr(start, end - start);
    if (!entry.empty()) {
      auto cc = parse_compute_capability(entry);
      if (!cc) {
        error e = cc.error();
        e.position = start;
        return unexpected(e);
      }
      out.push_back(*cc);
    } else if (end < list.size() && list[end] != ' ') {
      return unexpected(errors::empty_input(source_kind::device_list, list, start));
    }
    start = end + 1;
  }
  if (out.empty()) { return unexpected(errors::no_device(source_kind::device_list, "the device list is empty", list)); }
  return out;
}

CUARCH_END_NAMESPACE
