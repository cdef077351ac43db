// target_set: the resolved targets, never empty. No public constructor can make an empty one: a
// set comes from a successful resolution or from target_set::from(), which refuses an empty list.
// Targets are kept in one canonical order without duplicates, so two sets with the same targets
// compare, print and hash (jit_cache_key) the same way.
#pragma once

#include <cstddef>
#include <initializer_list>

#include "../core/arch.hpp"
#include "../core/compatibility.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// The canonical order: by compute capability, then baseline < a < f, then sm_ < compute_ < lto_
/// (the enums' declaration order). arch_target itself has no ordering on purpose.
constexpr bool canonical_less(const arch_target& a, const arch_target& b) noexcept {
  if (a.cc != b.cc) return a.cc < b.cc;
  if (a.variant != b.variant) return a.variant < b.variant;
  return a.form < b.form;
}

class target_set_builder;

}  // namespace detail

/// A non-empty set of CUDA targets in canonical order, without duplicates. Fixed capacity: copying
/// one allocates nothing.
class target_set {
 public:
  /// The most targets one set holds (as many as one parsed list).
  static constexpr std::size_t capacity = 96;

  using value_type = arch_target;
  using const_iterator = const arch_target*;

  /// Validates and sorts a list of targets. Errors: empty_input (no target), too_many_targets,
  /// malformed_token (a compute capability that is no CUDA architecture, e.g. 0.0 or 9.12),
  /// variant_not_defined (sm_90f, sm_80a), targets_conflict (sm_100 with sm_100f: nvcc refuses
  /// them in one compilation, check_same_compilation; no set holds such a pair, so no writer
  /// emits one). Duplicates are merged.
  template <class Range>
  static constexpr expected<target_set, error> from(const Range& targets);
  static constexpr expected<target_set, error> from(std::initializer_list<arch_target> targets);

  constexpr std::size_t size() const noexcept { return size_; }  // at least 1
  constexpr const arch_target& operator[](std::size_t i) const noexcept { return items_[i]; }
  constexpr const_iterator begin() const noexcept { return items_; }
  constexpr const_iterator end() const noexcept { return items_ + size_; }
  /// The first target in canonical order; always exists.
  constexpr const arch_target& front() const noexcept { return items_[0]; }

  constexpr bool contains(const arch_target& t) const noexcept {
    for (std::size_t i = 0; i < size_; ++i)
      if (items_[i] == t) return true;
    return false;
  }
  /// Whether a device of compute capability `device` can load at least one target (check_loadable).
  constexpr bool can_load_on(const compute_capability& device) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (can_load(items_[i], device)) return true;
    return false;
  }

  friend constexpr bool operator==(const target_set& a, const target_set& b) noexcept {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a.items_[i] != b.items_[i]) return false;
    return true;
  }
  friend constexpr bool operator!=(const target_set& a, const target_set& b) noexcept { return !(a == b); }

 private:
  friend class detail::target_set_builder;
  constexpr target_set() = default;  // empty: only the builder sees it, and never hands it out empty

  arch_target items_[capacity]{};
  std::size_t size_ = 0;
};

namespace detail {

/// Collects targets (sorted on insertion, duplicates merged); hands out a target_set only when one
/// was added. The only code that sees a target_set's private constructor.
class target_set_builder {
 public:
  constexpr bool empty() const noexcept { return set_.size_ == 0; }
  constexpr bool can_load_on(const compute_capability& device) const { return set_.can_load_on(device); }

  /// Inserts t in canonical position; false (and nothing changes) when the set is full.
  constexpr bool add(const arch_target& t) noexcept {
    if (set_.contains(t)) return true;
    if (set_.size_ == target_set::capacity) return false;
    std::size_t i = set_.size_;
    while (i > 0 && canonical_less(t, set_.items_[i - 1])) {
      set_.items_[i] = set_.items_[i - 1];
      --i;
    }
    set_.items_[i] = t;
    ++set_.size_;
    return true;
  }

  constexpr void remove(const arch_target& t) noexcept {
    std::size_t out = 0;
    for (std::size_t i = 0; i < set_.size_; ++i)
      if (set_.items_[i] != t) set_.items_[out++] = set_.items_[i];
    set_.size_ = out;
  }

  constexpr expected<target_set, error> build() const {
    if (set_.size_ == 0)
      return unexpected(
          errors::empty_input(source_kind::none, {}, errors::no_position, "a target set needs at least one target"));
    return set_;
  }

 private:
  target_set set_;
};

}  // namespace detail

template <class Range>
constexpr expected<target_set, error> target_set::from(const Range& targets) {
  detail::target_set_builder b;
  for (const arch_target& t : targets) {
    // A compute capability that names no CUDA architecture at all: major 1..99, minor 0..9.
    if (t.cc.major < 1 || t.cc.major > 99 || t.cc.minor < 0 || t.cc.minor > 9)
      return unexpected(errors::malformed_token(source_kind::user_input, to_text(t).view()));
    if (!variant_exists(t.cc, t.variant)) return unexpected(errors::variant_not_defined(source_kind::user_input, t));
    if (!b.add(t)) return unexpected(errors::too_many_targets(source_kind::user_input, "target_set::from"));
  }
  auto set = b.build();
  if (!set) return set;
  // One set feeds every writer, nvcc's among them: a pair nvcc refuses in one compilation is refused here.
  for (const arch_target& x : *set)
    for (const arch_target& y : *set)
      if (auto one = check_same_compilation(x, y); !one) return unexpected(one.error());
  return set;
}

// Defined after the template it calls, so constant evaluation finds it defined (Clang needs that).
constexpr expected<target_set, error> target_set::from(std::initializer_list<arch_target> targets) {
  return from<std::initializer_list<arch_target>>(targets);
}

CUARCH_END_NAMESPACE
