// A small expected<T, E> for C++17: std::expected's member names, only the subset cuarch documents
// (has_value, bool, *, ->, value, error, value_or, and_then, transform, or_else, transform_error).
// constexpr when T and E are trivially destructible. value() on an error throws
// bad_expected_access<E>, or with -fno-exceptions calls std::abort() (as libstdc++ does); cuarch's
// own headers never call it (tests/no_exceptions/).
#pragma once

#include <cstdlib>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "../config.hpp"

CUARCH_BEGIN_NAMESPACE

template <class E>
class unexpected {
 public:
  constexpr explicit unexpected(const E& e) : error_(e) {}
  constexpr explicit unexpected(E&& e) : error_(std::move(e)) {}
  constexpr const E& error() const& noexcept { return error_; }
  constexpr E& error() & noexcept { return error_; }
  constexpr E&& error() && noexcept { return std::move(error_); }

 private:
  E error_;
};
template <class E>
unexpected(E) -> unexpected<E>;

template <class E>
class bad_expected_access : public std::exception {
 public:
  explicit bad_expected_access(E e) : error_(std::move(e)) {}
  const char* what() const noexcept override { return "bad expected access"; }
  const E& error() const& noexcept { return error_; }

 private:
  E error_;
};

struct unexpect_t {
  explicit unexpect_t() = default;
};
inline constexpr unexpect_t unexpect{};

namespace detail {

/// value() on an error: throw, or abort where exceptions are disabled.
template <class E>
[[noreturn]] void bad_expected_access_of(const E& e) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
  throw bad_expected_access<E>(e);
#else
  (void)e;
  std::abort();
#endif
}

struct no_value {};  // what expected<void, E> holds on success

// Storage: a union, trivially destructible when both members are (so it stays a literal type).
template <class T, class E, bool = std::is_trivially_destructible_v<T>&& std::is_trivially_destructible_v<E>>
struct expected_storage {
  union {
    T value_;
    E error_;
  };
  bool has_;
  template <class... A>
  constexpr explicit expected_storage(std::in_place_t, A&&... a) : value_(std::forward<A>(a)...), has_(true) {}
  template <class... A>
  constexpr explicit expected_storage(unexpect_t, A&&... a) : error_(std::forward<A>(a)...), has_(false) {}
};

template <class T, class E>
struct expected_storage<T, E, false> {
  union {
    T value_;
    E error_;
  };
  bool has_;
  template <class... A>
  explicit expected_storage(std::in_place_t, A&&... a) : value_(std::forward<A>(a)...), has_(true) {}
  template <class... A>
  explicit expected_storage(unexpect_t, A&&... a) : error_(std::forward<A>(a)...), has_(false) {}
  expected_storage(const expected_storage& o) : has_(o.has_) { construct(o); }
  expected_storage(expected_storage&& o) noexcept(
      std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_constructible_v<E>)
      : has_(o.has_) {
    construct(std::move(o));
  }
  // By value: a copy is made before this one is destroyed, so self-assignment is safe.
  expected_storage& operator=(expected_storage o) noexcept(
      std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_constructible_v<E>) {
    destroy();
    has_ = o.has_;
    construct(std::move(o));
    return *this;
  }
  ~expected_storage() { destroy(); }
  void destroy() {
    if (has_) value_.~T();
    else error_.~E();
  }
  /// Copies or moves o's member into this one, whose has_ is already o's.
  template <class S>
  void construct(S&& o) {
    if (has_) ::new (&value_) T(std::forward<S>(o).value_);
    else ::new (&error_) E(std::forward<S>(o).error_);
  }
};

}  // namespace detail

template <class T, class E>
class expected {
  static_assert(!std::is_void_v<T>, "use expected<void, E> specialization");

 public:
  using value_type = T;
  using error_type = E;
  using unexpected_type = unexpected<E>;

  template <class U = T, std::enable_if_t<std::is_default_constructible_v<U>, int> = 0>
  constexpr expected() : s_(std::in_place) {}
  template <class U = T, std::enable_if_t<std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, expected> &&
                                              !std::is_same_v<std::decay_t<U>, std::in_place_t> &&
                                              !std::is_same_v<std::decay_t<U>, unexpect_t>,
                                          int> = 0>
  constexpr expected(U&& v) : s_(std::in_place, std::forward<U>(v)) {}  // NOLINT: implicit like std
  template <class G>
  constexpr expected(const unexpected<G>& u) : s_(unexpect, u.error()) {}  // NOLINT
  template <class G>
  constexpr expected(unexpected<G>&& u) : s_(unexpect, std::move(u).error()) {}  // NOLINT
  template <class... A>
  constexpr explicit expected(std::in_place_t, A&&... a) : s_(std::in_place, std::forward<A>(a)...) {}
  template <class... A>
  constexpr explicit expected(unexpect_t, A&&... a) : s_(unexpect, std::forward<A>(a)...) {}

  constexpr bool has_value() const noexcept { return s_.has_; }
  constexpr explicit operator bool() const noexcept { return s_.has_; }

  constexpr const T& operator*() const& noexcept { return s_.value_; }
  constexpr T& operator*() & noexcept { return s_.value_; }
  constexpr T&& operator*() && noexcept { return std::move(s_.value_); }
  constexpr const T* operator->() const noexcept { return &s_.value_; }
  constexpr T* operator->() noexcept { return &s_.value_; }

  constexpr const T& value() const& { return checked(s_).value_; }
  constexpr T& value() & { return checked(s_).value_; }
  constexpr T&& value() && { return std::move(checked(s_).value_); }
  constexpr const E& error() const& noexcept { return s_.error_; }
  constexpr E& error() & noexcept { return s_.error_; }
  constexpr E&& error() && noexcept { return std::move(s_.error_); }

  template <class U>
  constexpr T value_or(U&& fallback) const& {
    return s_.has_ ? s_.value_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  constexpr T value_or(U&& fallback) && {
    return s_.has_ ? std::move(s_.value_) : static_cast<T>(std::forward<U>(fallback));
  }

  template <class F>
  constexpr auto and_then(F&& f) const& {
    using R = std::remove_cv_t<std::remove_reference_t<std::invoke_result_t<F, const T&>>>;
    if (s_.has_) return std::forward<F>(f)(s_.value_);
    return R(unexpect, s_.error_);
  }
  template <class F>
  constexpr auto transform(F&& f) const& {
    using U = std::remove_cv_t<std::invoke_result_t<F, const T&>>;
    if (s_.has_) return expected<U, E>(std::in_place, std::forward<F>(f)(s_.value_));
    return expected<U, E>(unexpect, s_.error_);
  }
  template <class F>
  constexpr auto or_else(F&& f) const& {
    using R = std::remove_cv_t<std::remove_reference_t<std::invoke_result_t<F, const E&>>>;
    if (s_.has_) return R(std::in_place, s_.value_);
    return std::forward<F>(f)(s_.error_);
  }
  template <class F>
  constexpr auto transform_error(F&& f) const& {
    using G = std::remove_cv_t<std::invoke_result_t<F, const E&>>;
    if (s_.has_) return expected<T, G>(std::in_place, s_.value_);
    return expected<T, G>(unexpect, std::forward<F>(f)(s_.error_));
  }

 private:
  template <class S>
  static constexpr S& checked(S& s) {
    if (!s.has_) detail::bad_expected_access_of(s.error_);
    return s;
  }
  detail::expected_storage<T, E> s_;
};

// expected<void, E>: success carries nothing. The error lives in a union, so a success does not
// construct (or zero) an E: cuarch::error is ~760 bytes and success is the hot path.
template <class E>
class expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  constexpr expected() noexcept : s_(std::in_place) {}
  template <class G>
  constexpr expected(const unexpected<G>& u) : s_(unexpect, u.error()) {}  // NOLINT
  template <class G>
  constexpr expected(unexpected<G>&& u) : s_(unexpect, std::move(u).error()) {}  // NOLINT
  template <class... A>
  constexpr explicit expected(unexpect_t, A&&... a) : s_(unexpect, std::forward<A>(a)...) {}

  constexpr bool has_value() const noexcept { return s_.has_; }
  constexpr explicit operator bool() const noexcept { return s_.has_; }
  constexpr void operator*() const noexcept {}
  constexpr void value() const {
    if (!s_.has_) detail::bad_expected_access_of(s_.error_);
  }
  constexpr const E& error() const& noexcept { return s_.error_; }
  constexpr E& error() & noexcept { return s_.error_; }

  template <class F>
  constexpr auto and_then(F&& f) const& {
    using R = std::remove_cv_t<std::remove_reference_t<std::invoke_result_t<F>>>;
    if (s_.has_) return std::forward<F>(f)();
    return R(unexpect, s_.error_);
  }
  template <class F>
  constexpr auto transform_error(F&& f) const& {
    using G = std::remove_cv_t<std::invoke_result_t<F, const E&>>;
    if (s_.has_) return expected<void, G>();
    return expected<void, G>(unexpect, std::forward<F>(f)(s_.error_));
  }

 private:
  detail::expected_storage<detail::no_value, E> s_;
};

CUARCH_END_NAMESPACE
