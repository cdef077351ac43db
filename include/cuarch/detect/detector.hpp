// detect(): finds every CUDA compiler, runtime, driver, toolkit and device this process could use
// (or only the roles a request needs), asks each one for its version, and records them all with
// their provenance — the ones not chosen, the ones that failed and the ones the deadline left
// unasked included. It then names, per role, the candidate that governs and why. It resolves
// nothing silently: doctor/report.hpp lists where the candidates disagree.
//
// Where to read what:
//   result.hpp          detect_options (roles, mode, deadline), candidate, selection, detection
//   plan.hpp            THE discovery order: one table of tiers, and what each component is
//   walk.hpp            going down the plan per role; the one deadline; toolkit files, devices
//   selection.hpp       which candidate governs a role, and why (given_and_failed, ...)
//   already_loaded.hpp  what counts as loaded by the application (the same on every thread)
//   places.hpp          file-system facts: library dirs, default roots, wrapper scripts
//
// Defaults: every role, every candidate (detect_mode::enumerate_all), a 10 s deadline for the
// whole detection (default_detection_deadline) of which one program may take tool_timeout.
// Toolkit files are read from every toolkit root met (cuda_home, $CUDA_HOME, $CUDA_PATH, the
// conda prefix, the defaults, and the toolkit around every compiler and library found). Devices:
// device_ccs when given (the driver's devices are still asked and recorded, to be compared);
// otherwise the driver's. The compile-time CUDA_VERSION is recorded when the caller passes
// CUARCH_COMPILE_TIME_OBSERVATION().
//
// Thread safety: detect() may run in several threads at once and gives each the same answer
// (already_loaded.hpp). It reads the environment only through `environment`. Nothing is cached
// unless the caller asks: detection_cache holds one result and re-detects on refresh().
#pragma once

#include <memory>

#include "../core/config.hpp"
#include "../sources/posix/bounded_call.hpp"
#include "../sources/posix/process_lock.hpp"
#include "result.hpp"

CUARCH_BEGIN_NAMESPACE

/// Finds and asks the sources the options name; see detector.hpp's overview. Never throws;
/// every failure is inside the result, attached to the candidate or role it concerns.
CUARCH_FUNC detection detect(const detect_options& options = {});

/// A detection kept for reuse, only because the caller asked for it. Thread-safe and fork-safe: no
/// lock is held while detecting, so the first get() calls made together each detect and all keep
/// the result stored first; refresh() detects again.
class detection_cache {
 public:
  explicit detection_cache(detect_options options = {}) : options_(std::move(options)) {}

  std::shared_ptr<const detection> get() {
    {
      detail::process_lock lock;
      if (cached_) return cached_;
    }
    auto fresh = std::make_shared<const detection>(detect(options_));
    detail::process_lock lock;
    if (!cached_) cached_ = std::move(fresh);
    return cached_;
  }
  std::shared_ptr<const detection> refresh() {
    auto fresh = std::make_shared<const detection>(detect(options_));
    std::shared_ptr<const detection> out;
    {
      detail::process_lock lock;
      cached_.swap(fresh);
      out = cached_;
    }
    return out;
  }

 private:
  detect_options options_;
  std::shared_ptr<const detection> cached_;
};

CUARCH_END_NAMESPACE

// The walk is parsed only where detect() is defined: every TU in header-only mode, src/cuarch.cpp
// in compiled mode (core/config.hpp).
#if CUARCH_DEFINITIONS
#  include "walk.hpp"
CUARCH_BEGIN_NAMESPACE
CUARCH_FUNC detection detect(const detect_options& options) {
  // Every library call (dlopen included) waits min(tool_timeout, time left): posix/bounded_call.hpp.
  const detail::library_deadline_scope bound(options.deadline, options.tool_timeout);
  detection d = detail::detector(options).run();
  const auto passed = [](const error* e) { return e && e->code == errc::deadline_exceeded; };
  for (const auto& c : d.candidates)
    if (!c.result && passed(&c.result.error())) d.deadline_passed = true;
  if (d.driver_devices && !*d.driver_devices && passed(&d.driver_devices->error())) d.deadline_passed = true;
  return d;
}
CUARCH_END_NAMESPACE
#endif
