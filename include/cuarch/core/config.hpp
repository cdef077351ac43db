// Configuration knobs (each overridable with -D) and the ABI namespace.
#pragma once

#include "version.hpp"

#if defined(__has_include)
#  if __has_include(<version>)
#    include <version>
#  endif
#endif

// CUARCH_USE_STD_EXPECTED: 1 = cuarch::expected is std::expected, 0 = the bundled fallback.
// Automatic choice needs the C++23 library with the monadic operations (202211L); forcing 1 is
// accepted with the earlier 202202L library (GCC 12) because cuarch itself never calls the monadic
// members. CMake's CUARCH_EXPECTED option sets this for every consumer, so all agree.
#ifndef CUARCH_USE_STD_EXPECTED
#  if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202211L
#    define CUARCH_USE_STD_EXPECTED 1
#  else
#    define CUARCH_USE_STD_EXPECTED 0
#  endif
#endif
#if CUARCH_USE_STD_EXPECTED && !defined(__cpp_lib_expected)
#  error "CUARCH_USE_STD_EXPECTED=1 needs a standard library with std::expected (C++23)"
#endif

// The expected implementation is part of the inline ABI namespace, so translation units that
// disagree fail to link; GCC and Clang also tag it, so even `cuarch::expected<int, cuarch::error> f();`
// (a return type is not in a plain function's mangled name) cannot link across a disagreement.
#if CUARCH_USE_STD_EXPECTED
#  define CUARCH_ABI_NAMESPACE v0_std_expected
#  define CUARCH_ABI_TAG_NAME "cuarch_std_expected"
#else
#  define CUARCH_ABI_NAMESPACE v0_lite_expected
#  define CUARCH_ABI_TAG_NAME "cuarch_lite_expected"
#endif
#if defined(__GNUC__) || defined(__clang__)
#  define CUARCH_ABI_TAG __attribute__((abi_tag(CUARCH_ABI_TAG_NAME)))
#else
#  define CUARCH_ABI_TAG
#endif

#define CUARCH_BEGIN_NAMESPACE \
  namespace cuarch {           \
  inline namespace CUARCH_ABI_NAMESPACE CUARCH_ABI_TAG {
#define CUARCH_END_NAMESPACE \
  }                          \
  }

#if defined(__cpp_consteval) && __cpp_consteval >= 201811L && __cplusplus >= 202002L
#  define CUARCH_HAS_CONSTEVAL() 1
#else
#  define CUARCH_HAS_CONSTEVAL() 0
#endif

// CUARCH_COMPILED: the opt-in compiled mode (target cuarch::compiled, src/cuarch.cpp; docs/library.md,
// "Compiled mode"): the heavy non-template functions are declared here and defined once there.
//   CUARCH_FUNC         what such a function is declared with: inline, or nothing when compiled
//   CUARCH_DEFINITIONS  1 where their definitions are compiled: every TU in header-only mode,
//                       only src/cuarch.cpp in compiled mode
#if defined(CUARCH_COMPILED)
#  define CUARCH_FUNC
#  if defined(CUARCH_COMPILING_LIBRARY)
#    define CUARCH_DEFINITIONS 1
#  else
#    define CUARCH_DEFINITIONS 0
#  endif
#else
#  define CUARCH_FUNC inline
#  define CUARCH_DEFINITIONS 1
#endif
