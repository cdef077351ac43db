// resolve_outcome: what came of one resolve_here() call, and its one owner of who decided, how it was
// found, what else would have built the request and the warnings; its words and its JSON document.
// A resolution_failure is only the failure's summary and diagnostics: what the front door knows
// beside it (front_door/explain.hpp) lives here, once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../core/errc.hpp"
#include "../core/observation.hpp"
#include "../detect/result.hpp"
#include "../resolve/outputs.hpp"
#include "../resolve/resolution.hpp"
#include "options.hpp"

CUARCH_BEGIN_NAMESPACE

/// What came of one resolve_here() call. Nothing is printed and nothing thrown: the caller words it.
struct resolve_outcome {
  resolve_result result{unexpected(resolution_failure(error{}))};
  std::optional<std::string> usage;             // check_options() refused: nothing was done
  bool malformed = false;                       // the request or an option's text was refused as the caller's input
  std::optional<compiler_provenance> compiler;  // the compiler judged against (nullopt: none answered)
  compile_path used = compile_path::nvcc;       // after compile_path::automatic was applied
  std::vector<resolution_warning> warnings;     // what bears on the answer; strict fails on any
  std::vector<std::string> notes;               // what to say beside the answer
  /// A failure only: every other compiler detection saw that would have built the request, each
  /// with its fix; whether they were looked for (only then may the words say none would); and,
  /// when no compiler was found at all, every place searched.
  std::vector<compiler_provenance> alternatives;
  bool alternatives_sought = false;
  std::vector<std::string> searched;
  std::optional<detection> found;  // nullopt: nothing was detected
  bool strict = false;
  option_speller spelling;  // the caller's (resolve_options::spelling): message() with it speaks the caller's language

  /// 0 resolved; 1 resolution failed, or strict and a warning; 2 usage or malformed input.
  int exit_status() const noexcept {
    if (usage || malformed) return 2;
    if (!result) return cuarch::exit_status(result.error().summary.code);
    return strict && !warnings.empty() ? 1 : 0;
  }

  /// A failure in the caller's spelling: its summary and rejected requests, the compiler that
  /// decided and how it was found, every alternative with its fix, the places searched and the
  /// warnings. Empty when it resolved.
  std::string message() const;
};

/// The cuarch.resolve/1 document of the outcome, resolved or failed, with everything above.
CUARCH_FUNC std::string to_json(const resolve_outcome& done);

#if CUARCH_DEFINITIONS

CUARCH_FUNC std::string resolve_outcome::message() const {
  if (result) return {};
  const resolution_failure& f = result.error();
  std::string m = f.message(spelling);
  // A malformed request is the caller's to fix whatever the compiler: naming it would only distract.
  const bool input_error = classify(f.summary.code).exit == exit_class::bad_input;
  if (compiler && !input_error) {
    m += "\n  decided by: " + compiler->describe();
    if (alternatives_sought && alternatives.empty() && f.summary.code == errc::nothing_resolved)
      m += "\n  no other compiler that detection saw would build it";
  }
  for (const auto& a : alternatives) {
    m += "\n  would build it: " + a.describe();
    if (!a.fix.empty()) m += "; fix: " + a.fix;
  }
  if (!searched.empty()) {
    m += "\n  searched:";
    for (const auto& p : searched) m += "\n    " + p;
  }
  for (const auto& w : warnings) m += "\n  warning: " + w.what + " (" + w.kind + "): " + w.meaning;
  return m;
}

CUARCH_FUNC std::string to_json(const resolve_outcome& done) {
  if (done.result)
    return done.compiler ? to_json(*done.result, *done.compiler, done.warnings)
                         : to_json(*done.result, nullptr, done.warnings);
  return detail::failure_json(done.result.error(), done.compiler ? &*done.compiler : nullptr, done.alternatives,
                              done.searched, done.warnings, done.spelling);
}

#endif  // CUARCH_DEFINITIONS

CUARCH_END_NAMESPACE
