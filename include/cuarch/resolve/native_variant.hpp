// Which variant `native` builds for each device. A chain is the order in which `native` tries the
// device's own architecture ("f,a": sm_120f, then sm_120a; baseline is always last, written or not;
// a variant the device lacks, `f` below 10.0, `a` below 9.0, is skipped). A rule picks the chain for
// some devices: "12.0=f" (exactly 12.0), "9=a" (every 9.x), "default=a" (every other; without one,
// `a`); the most specific wins. A spelling lists rules, comma-separated; an entry without '='
// continues the chain of the rule before it, or of `default`: "12.0=f,a,9=a,default=a", "f,a".
// All constexpr and allocation-free, so a policy holding preferences stays a literal type.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "../core/arch.hpp"
#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/detail/chars.hpp"
#include "../core/detail/text.hpp"
#include "../core/expected.hpp"

CUARCH_BEGIN_NAMESPACE

/// Variants to try for one device, best first; baseline is implied last (see the file comment).
class variant_chain {
 public:
  constexpr variant_chain() = default;
  constexpr variant_chain(std::initializer_list<arch_variant> vs) noexcept {
    for (const arch_variant v : vs) add(v);
  }

  /// Appends v; a variant already in the chain is ignored (false).
  constexpr bool add(arch_variant v) noexcept {
    for (std::size_t i = 0; i < size_; ++i)
      if (items_[i] == v) return false;
    items_[size_++] = v;  // three variants, no duplicates: never full
    return true;
  }
  constexpr const arch_variant* begin() const noexcept { return items_; }
  constexpr const arch_variant* end() const noexcept { return items_ + size_; }

  /// The chain as tried: with baseline appended when it is not written.
  constexpr variant_chain as_tried() const noexcept {
    variant_chain c = *this;
    c.add(arch_variant::baseline);
    return c;
  }

  /// "f,a,baseline"
  constexpr detail::text<32> spelling() const {
    detail::text<32> s;
    for (std::size_t i = 0; i < size_; ++i) {
      if (i) s.append(',');
      s.append(items_[i] == arch_variant::baseline ? std::string_view("baseline") : suffix(items_[i]));
    }
    return s;
  }

 private:
  arch_variant items_[3]{};
  std::size_t size_ = 0;
};

/// One rule: which devices (one compute capability, a major, or all) get which chain.
struct native_variant_rule {
  int major = -1;  // -1: every device (default)
  int minor = -1;  // -1: every minor of `major`
  variant_chain chain;

  constexpr bool is_default() const noexcept { return major < 0; }
  /// 2 exact compute capability, 1 major, 0 default, -1 does not match.
  constexpr int specificity_for(const compute_capability& cc) const noexcept {
    if (is_default()) return 0;
    if (major != cc.major) return -1;
    if (minor < 0) return 1;
    return minor == cc.minor ? 2 : -1;
  }
  /// "12.0=f,a", "9=a", "default=a"
  constexpr detail::text<48> spelling() const {
    detail::text<48> s;
    if (is_default()) {
      s.append("default");
    } else {
      s.append_int(major);
      if (minor >= 0) s.append('.').append_int(minor);
    }
    s.append('=').append(chain.spelling().view());
    return s;
  }
};

/// What a spelling of preferences got wrong: the entry, its offset and why.
struct native_variant_spec_error {
  std::string_view spec;
  std::size_t position = 0;
  std::string_view entry;
  std::string_view why;

  /// "'12.0=x' at position 0 of '12.0=x': a variant is 'a', 'f' or 'baseline'; fix: ..."
  std::string message() const {
    return "'" + std::string(entry) + "' at position " + std::to_string(position) + " of '" + std::string(spec) +
           "': " + std::string(why) + "; fix: write a chain (f,a,baseline) or rules (12.0=f,9=a,default=a)";
  }
};

/// The rules `native` applies; a device no rule matches gets "default=a" (resolve_policy::native_rule_for).
class native_variant_preferences {
 public:
  static constexpr std::size_t capacity = 8;

  /// Adds a rule, or replaces the rule for the same devices; false when full.
  constexpr bool set(const native_variant_rule& r) noexcept {
    const std::size_t i = index_of(r);
    if (i == capacity) return false;
    rules_[i] = r;
    if (i == size_) ++size_;
    return true;
  }

  /// The most specific rule for `device`, if any.
  constexpr std::optional<native_variant_rule> rule_for(const compute_capability& device) const noexcept {
    int best = -1;
    std::size_t at = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      const int s = rules_[i].specificity_for(device);
      if (s > best) {
        best = s;
        at = i;
      }
    }
    if (best < 0) return std::nullopt;
    return rules_[at];
  }

 private:
  /// The rule for r's devices, else the next free slot (size()).
  constexpr std::size_t index_of(const native_variant_rule& r) const noexcept {
    std::size_t i = 0;
    while (i < size_ && (rules_[i].major != r.major || rules_[i].minor != r.minor)) ++i;
    return i;
  }

  native_variant_rule rules_[capacity]{};
  std::size_t size_ = 0;
};

namespace detail {

/// "12.0", "12", "default" -> the rule's devices: a major of 1..99, a minor of 0..9.
constexpr bool read_rule_devices(std::string_view s, native_variant_rule& r) noexcept {
  if (s == "default") return true;
  const std::size_t dot = s.find('.');
  const std::string_view major = s.substr(0, dot);
  if (major.size() > 2 || !parse_uint(major, r.major) || r.major < 1) return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view minor = s.substr(dot + 1);
  return minor.size() <= 2 && parse_uint(minor, r.minor) && r.minor <= 9;
}

}  // namespace detail

/// Reads "12.0=f,9=a,default=a" or "f,a,baseline" (the grammar is in the file comment).
constexpr expected<native_variant_preferences, native_variant_spec_error> parse_native_variant_spec(std::string_view spec) {
  native_variant_preferences out;
  native_variant_rule current;  // default, until an entry names devices
  auto fail = [&](std::size_t at, std::string_view entry, std::string_view why) {
    return unexpected(native_variant_spec_error{spec, at, entry, why});
  };
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view entry = spec.substr(start, end - start);
    std::string_view variant_text = entry;
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) {
      current = native_variant_rule{};
      if (!detail::read_rule_devices(entry.substr(0, eq), current))
        return fail(start, entry, "the devices must be a compute capability (12.0), a major (9) or 'default'");
      if (!out.set(current)) return fail(start, entry, "more rules than a policy holds (8)");
      variant_text = entry.substr(eq + 1);
    }
    const auto v = parse_arch_variant(variant_text);  // "a", "f", "baseline", or the full names
    if (!v) return fail(start, entry, "a variant is 'a', 'f' or 'baseline'");
    if (!current.chain.add(*v)) return fail(start, entry, "this variant is already in the chain");
    out.set(current);  // fits: its slot was taken when the rule began (above), or it is the first
    start = end + 1;
  }
  return out;
}

CUARCH_END_NAMESPACE
