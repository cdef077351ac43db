// A user's own header: functions whose signatures contain cuarch types, defined in one
// translation unit (provider.cpp) and called from another (use_*.cpp).
#pragma once

#include <cuarch/cuarch.hpp>

// cuarch type in a parameter: the ABI namespace is part of the mangled name.
int describe(const cuarch::expected<int, cuarch::error>& result);

// cuarch type only in the return type: a plain function's mangled name does not include its
// return type, so only an ABI tag on the cuarch types (propagated to the function) can keep a
// mode mismatch from linking silently.
cuarch::expected<int, cuarch::error> make_answer();
