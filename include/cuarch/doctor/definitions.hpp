// What the headers that define the doctor's entry points share: the declarations, and the refusal
// to be parsed where definitions are not compiled (in a compiled-mode TU they would define twice).
#pragma once

#include "../core/version.hpp"
#include "report.hpp"  // the declarations

#if !CUARCH_DEFINITIONS
#  error \
      "this header defines an entry point compiled into cuarch::compiled (CUARCH_COMPILED): include <cuarch/doctor/report.hpp> instead"
#endif
