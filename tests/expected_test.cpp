// cuarch::expected: the documented subset behaves the same with std::expected and the fallback.
#include <cuarch/core/decode.hpp>
#include <cuarch/core/expected.hpp>

#include <memory>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace cuarch;

namespace {
constexpr expected<int, error> half(int x) {
  if (x % 2 != 0) return unexpected(errors::invalid_version(source_kind::none, "odd"));
  return x / 2;
}
}  // namespace

TEST_CASE("which implementation is in use is visible and consistent", "[expected]") {
#if CUARCH_USE_STD_EXPECTED
  STATIC_REQUIRE(std::is_same_v<expected<int, error>, std::expected<int, error>>);
#else
  STATIC_REQUIRE_FALSE(std::is_same_v<expected<int, error>, std::unique_ptr<int>>);
#endif
}

TEST_CASE("value, error, value_or, bool", "[expected]") {
  CUARCH_CHECK_BOTH(half(4).has_value() && *half(4) == 2);
  CUARCH_CHECK_BOTH(!half(3) && half(3).error().code == errc::invalid_version);
  CUARCH_CHECK_BOTH(half(3).value_or(-1) == -1);
  REQUIRE_THROWS_AS(half(3).value(), bad_expected_access<error>);
}

#if !CUARCH_USE_STD_EXPECTED || (defined(__cpp_lib_expected) && __cpp_lib_expected >= 202211L)
TEST_CASE("monadic subset: and_then, transform, or_else, transform_error", "[expected]") {
  CHECK(*half(8).and_then(half) == 2);
  CHECK(half(8).and_then(half).and_then(half).and_then(half).error().code == errc::invalid_version);  // 8, 4, 2, 1: odd
  CHECK(*half(4).transform([](int v) { return v * 10; }) == 20);
  CHECK(*half(3).or_else([](const error&) { return expected<int, error>(7); }) == 7);
  CHECK(half(3).transform_error([](const error& e) { return static_cast<int>(e.code); }).error() ==
        static_cast<int>(errc::invalid_version));
}
#endif

TEST_CASE("non-trivial values: strings and vectors are copied, moved and destroyed", "[expected]") {
  expected<std::vector<std::string>, error> a(std::vector<std::string>{"x", "y"});
  auto b = a;
  auto c = std::move(a);
  CHECK(b->size() == 2);
  CHECK((*c)[1] == "y");
  expected<std::string, error> d = unexpected(errors::no_device(source_kind::driver));
  d = b->front();
  CHECK(*d == "x");
  expected<void, error> ok;
  CHECK(ok.has_value());
  expected<void, error> bad = unexpected(errors::no_device(source_kind::driver));
  CHECK(bad.error().code == errc::no_device);
}
