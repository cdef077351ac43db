// What the Python functions do, in plain C++: map the keyword arguments onto the library's
// vocabulary (as tools/cuarch/cmd_resolve.cpp maps the command line's flags), call the library, and
// hand back plain values. Nothing here touches a Python object, so the bindings (cuarch_ext.cpp) run
// all of it with the GIL released, in as many threads as the caller likes: every call builds its own
// detection and its own sources, and shares nothing.
#pragma once

#include <cuarch/detect.hpp>
#include <cuarch/front_door/tool_env.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuarch_python {

/// Keyword arguments as (library option name, text) pairs, in the order given (cuarch/__init__.py).
using option_list = std::vector<std::pair<std::string, std::string>>;
/// The variables cuarch reads (cuarch::detection_variables), copied from os.environ under the GIL,
/// and the rest of the environment ("NAME=VALUE"), for the programs cuarch runs: one copy shared by
/// the calls while `environ` is unchanged (cuarch_ext.cpp's inherited_environment).
struct environment_map {
  std::vector<std::pair<std::string, std::string>> read;
  std::shared_ptr<const std::vector<std::string>> inherited;
};

/// The outcome of a call, as Python turns it into a value or an exception.
struct outcome {
  enum kind_t { ok, failed, usage } kind = ok;
  /// ok: the library's JSON document of the result. failed: of the failure (same shape as
  /// `cuarch resolve --format json` prints for it). usage: empty.
  std::string json;
  /// failed: code_name() of the error and whether it is about the input; the library's message.
  /// (json for check(): the cuarch.check/1 document; for list_targets(): cuarch.list/1.)
  /// usage: the ValueError's message (an argument cuarch does not know, e.g. policy="bogus").
  std::string code;
  bool input_error = false;
  std::string message;
  /// ok (check, list_targets): target names. note: what the command line prints as a note
  /// (list_targets: a toolkit newer than the table; resolve: an environment variable ignored).
  std::vector<std::string> names;
  std::string note;
  /// ok (env): the variables as the format asked for prints them (the command line's bytes).
  std::string text;
  /// ok (resolve): strict=True and a warning bears on the answer: ResolveFailure.
  bool strict_failed = false;
};

/// ResolveError.code: the library's stable name of the code (classify(c).name, core/errc.hpp).
inline std::string code_name(cuarch::errc c) { return std::string(cuarch::classify(c).name); }

/// Whether an error is about what the caller wrote (ResolveError is then also a ValueError), as
/// opposed to what could be resolved, found or loaded (a RuntimeError): the command line's exit 2
/// versus exit 1, read from the same table.
inline bool is_input_error(cuarch::errc c) {
  return cuarch::exit_status(c) == static_cast<int>(cuarch::exit_class::bad_input);
}

/// "'a', 'b' or 'c'": the names of a library name map, for a usage message.
template <class Names>
inline std::string names_of(const Names& all) {
  std::string out;
  const std::size_t n = std::size(all);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += i + 1 == n ? " or " : ", ";
    out += "'" + std::string(cuarch::to_string(all[i])) + "'";
  }
  return out;
}

/// A usage error (a bad option value): ValueError in Python.
inline outcome usage(std::string message) {
  outcome o;
  o.kind = outcome::usage;
  o.message = std::move(message);
  return o;
}

/// Whether cuarch reads this variable: cuarch/__init__.py passes exactly these, as os.environ has
/// them; the binding adds the rest of the environment under other names (cuarch_ext.cpp).
inline bool reads_variable(std::string_view name) {
  return cuarch::environment::is_detection_variable(name) ||
         std::find(std::begin(cuarch::tool_variables), std::end(cuarch::tool_variables), name) !=
             std::end(cuarch::tool_variables);
}

/// How the library's messages name an option from Python: its keyword, with an example value as a
/// Python literal ("devices='9.0'"); a placeholder (all capitals) stays a word ("timeout=SECONDS").
inline std::string python_spelling(const void*, std::string_view name, std::string_view value) {
  if (name == "output") return "the Resolution's nvcc_flags or nvrtc_options";  // Python has every format, no option
  if (value.empty()) return std::string(name);
  const bool placeholder = value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string_view::npos;
  std::string literal = placeholder ? std::string(value) : "'";
  if (!placeholder) {
    for (const char c : value) literal += (c == '\'' || c == '\\' ? "\\" : "") + std::string(1, c);
    literal += '\'';
  }
  return std::string(name) + "=" + literal;
}
inline constexpr cuarch::option_speller python_speller{python_spelling, nullptr};

/// The keyword arguments, read by the library (front_door/options.hpp) as the command line's flags
/// are: the same names, grammar, defaults and rules, into `o`, with the environment snapshot Python
/// took from os.environ while it held the GIL (nothing here calls getenv). A name cuarch does not know
/// is a usage error (ValueError); text that does not parse as a value (a version, a device list) is
/// the caller's input (ResolveInputError, the parser's code), its document made by `document(error)`:
/// each call's own failure document. nullopt when every option was read.
template <class Document>
std::optional<outcome> read_options(const option_list& options, const environment_map& env, cuarch::resolve_options& o,
                                    Document document) {
  for (const auto& [name, value] : options) {
    const auto n = cuarch::parse_option_name(name);
    if (!n) return usage("'" + name + "' is not an option");
    if (auto bad = cuarch::set_option(o, *n, value)) {
      if (!bad->cause) return usage(name + ": " + bad->message);
      outcome failed;
      failed.kind = outcome::failed;
      failed.code = code_name(bad->cause->code);
      failed.input_error = true;
      failed.message = name + ": " + bad->message;
      failed.json = document(*bad->cause);
      return failed;
    }
  }
  o.spelling = python_speller;
  cuarch::environment snapshot;
  for (const auto& [k, v] : env.read) snapshot.set(k, v);
  if (env.inherited)
    for (const std::string& entry : *env.inherited) snapshot.inherit(entry);  // for nvcc and the tools cuarch runs
  o.env_snapshot = std::move(snapshot);
  return std::nullopt;
}

/// `cancel`: set by the binding (Ctrl-C, interpreter exit) to stop detection: a running probe is
/// killed with its process group (resolve_options::cancel).
outcome resolve(const option_list& options, const environment_map& env, const std::atomic<bool>* cancel);

/// ok: json holds render_json() of the report (the same document as `cuarch doctor --json`).
outcome doctor(const option_list& options, const environment_map& env, bool query_devices,
               const std::atomic<bool>* cancel);

/// cuarch env --for TOOL (env_call.cpp): json holds the cuarch.env/1 document, ok or failed; text
/// the variables in `format`.
outcome env(const std::string& tool, const std::string& format, const std::string& cmake_version,
            const option_list& options, const environment_map& env, const std::atomic<bool>* cancel);

/// cuarch check: every target of `targets` against `toolkit` by cuarch's table.
outcome check(const std::string& targets, const std::string& toolkit, const std::string& dialect);

/// cuarch list: every target `toolkit` can build, by cuarch's table.
outcome list_targets(const std::string& toolkit);

/// cuarch.inspect(paths, ...) (inspect_call.cpp): json holds the cuarch.inspect/1 document; failed
/// when nothing could be judged (no device) or a file cannot be read. `cancel`: as resolve()'s.
outcome inspect(const std::vector<std::string>& paths, const option_list& options, const environment_map& env,
                const std::atomic<bool>* cancel);

/// cuarch.inspect_loaded(...) (inspect_call.cpp): inspect() of this process's program and shared
/// libraries (inspect_loaded), the devices never found through cuInit in this process.
outcome inspect_loaded(const option_list& options, const environment_map& env, const std::atomic<bool>* cancel);

}  // namespace cuarch_python
