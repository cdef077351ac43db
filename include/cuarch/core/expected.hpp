// cuarch::expected / cuarch::unexpected: std::expected when CUARCH_USE_STD_EXPECTED, else the
// bundled fallback. Code written against cuarch uses only the subset both provide.
#pragma once

#include "config.hpp"

#if CUARCH_USE_STD_EXPECTED
#  include <expected>
CUARCH_BEGIN_NAMESPACE
using std::bad_expected_access;
using std::expected;
using std::unexpect;
using std::unexpect_t;
using std::unexpected;
CUARCH_END_NAMESPACE
#else
#  include "detail/expected_lite.hpp"
#endif
