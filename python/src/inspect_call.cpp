// cuarch.inspect(paths, ...) and cuarch.inspect_loaded(...): `cuarch inspect` (and `--pid`) in process. The keyword
// arguments are library options (devices, driver) read as the command line's flags are; the reading, the judging and
// the cuarch.inspect/1 document are the library's (front_door/inspect_here.hpp, resolve/inspect.hpp).
#include <cuarch/detect.hpp>
#include <cuarch/front_door/inspect_here.hpp>

#include <atomic>
#include <string>
#include <vector>

#include "calls.hpp"

namespace cuarch_python {

namespace {

/// The outcome of an inspection: the document, the notes, and what is raised.
outcome worded(const cuarch::inspect_outcome& done) {
  if (done.usage) return usage(*done.usage);  // check_options() refused: ValueError, as resolve()
  outcome out;
  out.json = cuarch::inspect_json(done.report, done.failure);
  for (const auto& n : done.notes) out.note += (out.note.empty() ? "" : "; ") + n;
  // No device in an inventory, or no driver when one was asked for: nothing was judged
  // (ResolveFailure; no device named and none visible is a listing, not a failure). A file
  // that cannot be read: its error is in the document and is raised (ResolveInputError), as the
  // command line's exit 2. A device that cannot load a file is an answer, not an exception.
  const cuarch::error* e = done.failure ? &*done.failure : nullptr;
  for (const auto& f : done.report.files)
    if (!e && f.unreadable) e = &*f.unreadable;
  if (e) {
    out.kind = outcome::failed;
    out.code = code_name(e->code);
    out.input_error = is_input_error(e->code);
    out.message = e->message();
  }
  return out;
}

/// `run(o)` with the options read (a bad one: its outcome, with an empty document). Ctrl-C sets
/// `cancel`, which stops the device detection and the reading (cuarch_ext.cpp, interruptible).
template <class Inspect>
outcome inspected(const option_list& options, const environment_map& env, const std::atomic<bool>* cancel, Inspect run) {
  cuarch::resolve_options o;
  const auto document = [](const cuarch::error& e) { return cuarch::inspect_json({}, e); };
  if (auto bad = read_options(options, env, o, document)) return *bad;
  o.cancel = cancel;
  return worded(run(o));
}

}  // namespace

outcome inspect(const std::vector<std::string>& paths, const option_list& options, const environment_map& env,
                const std::atomic<bool>* cancel) {
  if (paths.empty()) return usage("name at least one file or directory to inspect");
  return inspected(options, env, cancel,
                   [&](const cuarch::resolve_options& o) { return cuarch::inspect_here(paths, o); });
}

outcome inspect_loaded(const option_list& options, const environment_map& env, const std::atomic<bool>* cancel) {
  return inspected(options, env, cancel, [](cuarch::resolve_options o) {
    o.cuinit_fallback = false;  // this process's CUDA stays uninitialised: NVML answers, or nothing is judged
    return cuarch::inspect_loaded(o);
  });
}

}  // namespace cuarch_python
