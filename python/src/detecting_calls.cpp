// cuarch.resolve() and cuarch.doctor(): the calls that may detect compilers, drivers and devices.
// Every keyword argument is a library option (front_door/options.hpp), read by the library as the
// command line's flags are, and the resolution is the library's front door: only the spelling differs.
#include <cuarch/detect.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calls.hpp"

namespace cuarch_python {
namespace {

/// A failure before or during resolution: the library's failure document and its words, which
/// already name the compiler that decided and how it was found (resolve_outcome::message).
outcome failed(const cuarch::resolve_outcome& done) {
  const cuarch::error& summary = done.result.error().summary;
  outcome o;
  o.kind = outcome::failed;
  o.json = cuarch::to_json(done);
  o.code = code_name(summary.code);
  o.input_error = is_input_error(summary.code);
  o.message = done.message();
  return o;
}

/// The failure document of resolve() and doctor() for an option's value that does not parse.
std::string failure_document(const cuarch::error& e) {
  return cuarch::to_json(cuarch::resolution_failure{e, {}}, python_speller);
}

}  // namespace

outcome resolve(const option_list& options, const environment_map& env, const std::atomic<bool>* cancel) {
  cuarch::resolve_options o;
  if (auto bad = read_options(options, env, o, failure_document)) return *bad;
  o.cancel = cancel;
  // The whole resolution is the library's, as for `cuarch resolve` (front_door/resolve_here.hpp).
  const cuarch::resolve_outcome done = cuarch::resolve_here(o);
  if (done.usage) return usage(*done.usage);
  outcome result;
  for (const auto& n : done.notes) result.note += (result.note.empty() ? "" : "; ") + n;
  if (!done.result) {
    outcome f = failed(done);
    f.note = std::move(result.note);  // said with the failure too (CuarchWarning)
    return f;
  }
  // The warnings that bear on the answer travel in the document ("warnings"); cuarch/__init__.py
  // raises each as a CuarchWarning, and under strict=True raises instead.
  result.json = cuarch::to_json(done);
  result.strict_failed = done.exit_status() != 0;
  return result;
}

outcome doctor(const option_list& options, const environment_map& env, bool query_devices,
               const std::atomic<bool>* cancel) {
  cuarch::resolve_options where;
  if (auto bad = read_options(options, env, where, failure_document)) return *bad;
  cuarch::detect_options opts = cuarch::detect_options_for(where, *where.env_snapshot);
  opts.probe_ptxas = true;  // as `cuarch doctor`
  opts.query_devices = query_devices;
  opts.cancel = cancel;
  const cuarch::detection found = cuarch::detect(opts);
  outcome o;
  o.json = cuarch::render_json(found, cuarch::find_disagreements(found));
  return o;
}

}  // namespace cuarch_python
