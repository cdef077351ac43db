// Shared test helpers: evaluate a constexpr check both at compile time and at run time, so a
// regression shows up as a build failure and as a readable Catch2 failure.
#pragma once

#include <catch2/catch_test_macros.hpp>

#define CUARCH_CHECK_BOTH(...)   \
  do {                           \
    STATIC_REQUIRE(__VA_ARGS__); \
    REQUIRE((__VA_ARGS__));      \
  } while (false)
