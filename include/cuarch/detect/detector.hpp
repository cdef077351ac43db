// detect(): finds every CUDA compiler, runtime, driver, toolkit and device this process could use
// (or only the roles a request needs), asks each one for its version, and records them all with
// their provenance (the ones not chosen, the ones that failed and the ones the deadline left unasked
// included), then names, per role, the candidate that governs and why. The order and its rules:
// docs/design.md, "Discovery order"; the options and the answer: result.hpp; the order as one
// table: plan.hpp; the walk under one deadline: walk.hpp; the choice per role: selection.hpp.
#pragma once

#include "../core/config.hpp"
#include "../sources/posix/bounded_call.hpp"
#include "result.hpp"

CUARCH_BEGIN_NAMESPACE

/// Never throws: every failure is inside the result, attached to the candidate or role it concerns.
CUARCH_FUNC detection detect(const detect_options& options = {});

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "walk.hpp"
CUARCH_BEGIN_NAMESPACE
CUARCH_FUNC detection detect(const detect_options& options) {
  // Every library call (dlopen included) waits min(tool_timeout, time left), a trial load also
  // stops at the caller's cancel: posix/bounded_call.hpp, posix/trial_load.hpp.
  const detail::library_deadline_scope bound(options.deadline, options.tool_timeout, options.cancel);
  detection d = detail::detector(options).run();
  const auto passed = [](const error* e) { return e && e->code == errc::deadline_exceeded; };
  for (const auto& c : d.candidates)
    if (!c.result && passed(&c.result.error())) d.deadline_passed = true;
  if (d.driver_devices && !*d.driver_devices && passed(&d.driver_devices->error())) d.deadline_passed = true;
  return d;
}
CUARCH_END_NAMESPACE
#endif
