// cuarch._cuarch: the nanobind module behind the `cuarch` Python package. It only converts
// arguments and results: the work is the library's (calls.hpp), run with the GIL released so that
// detection (which may load libraries and run nvcc --version) never blocks other Python threads.
// Errors come back as values (outcome); cuarch/__init__.py turns them into ResolveError, so the
// exception types live in one place, in Python.
//
// resolve(), doctor(), env() and inspect() run the library on the calling thread with the GIL
// released: no thread is started, so a warm call costs the library's time and the conversions. On
// the main thread (the only one Python raises KeyboardInterrupt in), SIGINT is chained for the call's
// length: cuarch's handler sets the call's cancel flag, which kills a running probe with its process
// group (subprocess.hpp) and asks nothing more, then runs Python's own handler; the call returns and
// PyErr_CheckSignals raises KeyboardInterrupt. SIG_IGN and SIG_DFL are left as they are. At
// interpreter exit (an atexit handler) every call in flight, a daemon thread's included, is cancelled
// and waited for (at most 10 s) before the interpreter finalizes: a thread that took the GIL back after
// that would be ended by pthread_exit inside C++ frames, which aborts the process. Later calls raise
// RuntimeError.
//
// Bytes in, bytes out (docs/reliability.md): paths and environment values are the operating
// system's bytes, which need not be UTF-8. Every text argument comes in as os.fsencode gives it
// (fs_bytes: a str with surrogateescape, bytes as they are, an os.PathLike through __fspath__), and
// every text of an Outcome goes out through text_of(), which cannot fail on any byte.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cuarch/core/version.hpp>
#include <cuarch/cuarch.hpp>
#include <cuarch/core/environment.hpp>
#include <cuarch/front_door/tool_env.hpp>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "calls.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cuarch_python {
/// A text argument, as the library's bytes (see the file's comment).
struct fs_bytes {
  std::string bytes;
};
}  // namespace cuarch_python

namespace nanobind::detail {
template <>
struct type_caster<cuarch_python::fs_bytes> {
  NB_TYPE_CASTER(cuarch_python::fs_bytes, const_name("str | bytes | os.PathLike[str] | os.PathLike[bytes]"))

  /// As os.fsencode(src): a str -> the file system encoding with surrogateescape (so os.environ's
  /// values and os.listdir's names are their original bytes), bytes as they are, os.PathLike -> its
  /// __fspath__(). Anything else: False (a TypeError, which cuarch/__init__.py's checks forestall).
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    object path = steal(PyOS_FSPath(src.ptr()));
    object bytes = path.is_valid() && PyUnicode_Check(path.ptr()) ? steal(PyUnicode_EncodeFSDefault(path.ptr())) : path;
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (!bytes.is_valid() || !PyBytes_Check(bytes.ptr()) || PyBytes_AsStringAndSize(bytes.ptr(), &data, &size) != 0) {
      PyErr_Clear();
      return false;
    }
    value.bytes.assign(data, static_cast<std::size_t>(size));
    return true;
  }
  static handle from_cpp(const cuarch_python::fs_bytes& v, rv_policy, cleanup_list*) noexcept {
    return PyBytes_FromStringAndSize(v.bytes.data(), static_cast<Py_ssize_t>(v.bytes.size()));
  }
};
}  // namespace nanobind::detail

namespace {

using cuarch_python::fs_bytes;
using fs_pairs = std::vector<std::pair<std::string, fs_bytes>>;  // (option or variable name, value)

std::vector<std::string> bytes_of(const std::vector<fs_bytes>& texts) {
  std::vector<std::string> out;
  for (const fs_bytes& t : texts) out.push_back(t.bytes);
  return out;
}
std::vector<std::pair<std::string, std::string>> bytes_of(const fs_pairs& pairs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : pairs) out.emplace_back(name, value.bytes);
  return out;
}

/// How a text of the library goes back to Python: `message` (what people read: messages, notes,
/// the compiler's provenance, JSON documents) as UTF-8 with a byte that is not UTF-8 written \xff,
/// so that printing it never fails; `os_bytes` (env()'s lines, the command line's bytes) as
/// os.fsdecode does, so that os.fsencode gives back the very bytes. Neither raises on any byte.
enum class decoding { message, os_bytes };
nb::str text_of(const std::string& s, decoding how = decoding::message) {
  const auto size = static_cast<Py_ssize_t>(s.size());
  PyObject* text = how == decoding::message ? PyUnicode_DecodeUTF8(s.data(), size, "backslashreplace")
                                            : PyUnicode_DecodeFSDefaultAndSize(s.data(), size);
  if (!text) throw nb::python_error();  // out of memory only
  return nb::steal<nb::str>(text);
}

std::atomic<bool> interpreter_exiting{false};
std::atomic<int> calls_in_flight{0};

/// The process environment's entries that cuarch does not read, for the programs it runs (nvcc
/// --version). Copied here, while this thread holds the GIL, since os.environ's writers call putenv
/// holding it: no Python thread changes `environ` during the copy, and the probe never reads the live
/// one (docs/reliability.md). The copy is kept and shared while `environ` holds the same entries (a
/// string compare each), so a warm call makes none.
std::shared_ptr<const std::vector<std::string>> inherited_environment() {
  static std::vector<std::string>* seen = new std::vector<std::string>;  // environ as last copied (GIL-guarded)
  static auto* kept = new std::shared_ptr<const std::vector<std::string>>;
  std::size_t n = 0;
  bool same = *kept != nullptr;
  for (char** e = environ; same && e && *e; ++e, ++n) same = n < seen->size() && (*seen)[n] == *e;
  if (same && n == seen->size()) return *kept;
  seen->clear();
  auto rest = std::make_shared<std::vector<std::string>>();
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry = seen->emplace_back(*e);
    const std::size_t eq = entry.find('=');  // an entry without one is kept out (environment::process_entries)
    if (eq != std::string_view::npos && !cuarch_python::reads_variable(entry.substr(0, eq))) rest->emplace_back(entry);
  }
  *kept = std::move(rest);
  return *kept;
}

cuarch_python::environment_map with_inherited(const fs_pairs& env) { return {bytes_of(env), inherited_environment()}; }

/// Set to stop the calls in flight: Ctrl-C stops the main thread's (the only one Python interrupts),
/// the interpreter's exit every one.
std::atomic<bool> stop_main{false};
std::atomic<bool> stop_others{false};
struct sigaction python_sigint {};  // the SIGINT handler a main-thread call chains to (Python's)
unsigned long main_thread = 0;      // threading.main_thread().ident

/// SIGINT while the main thread is in a call: stop that call, then what Python's own handler does
/// (note the signal for PyErr_CheckSignals and its wakeup fd). Only async-signal-safe work.
extern "C" void stop_on_sigint(int signal, siginfo_t* info, void* context) {
  stop_main.store(true);
  if (python_sigint.sa_flags & SA_SIGINFO) python_sigint.sa_sigaction(signal, info, context);
  else python_sigint.sa_handler(signal);
}

/// Runs `call(stop)` (plain C++, no Python object) on this thread with the GIL released, as the
/// file's comment says.
template <class Call>
cuarch_python::outcome interruptible(Call call) {
  if (interpreter_exiting.load()) throw std::runtime_error("cuarch: the interpreter is exiting; nothing was detected");
  const bool main = PyThread_get_thread_ident() == main_thread;
  struct sigaction saved {};
  bool chained = false;  // a Python handler is in place (not SIG_IGN, not SIG_DFL): Ctrl-C stops the call
  if (main) {
    stop_main = false;
    ::sigaction(SIGINT, nullptr, &saved);
    const bool function = (saved.sa_flags & SA_SIGINFO) || (saved.sa_handler != SIG_IGN && saved.sa_handler != SIG_DFL);
    if (function) {
      python_sigint = saved;
      struct sigaction mine = saved;
      mine.sa_sigaction = stop_on_sigint;
      mine.sa_flags = saved.sa_flags | SA_SIGINFO;
      chained = ::sigaction(SIGINT, &mine, nullptr) == 0;
    }
  }
  calls_in_flight.fetch_add(1);
  std::optional<cuarch_python::outcome> result;
  std::exception_ptr failure;
  {
    nb::gil_scoped_release release;
    try {
      result.emplace(call(main ? &stop_main : &stop_others));
    } catch (...) { failure = std::current_exception(); }
  }
  calls_in_flight.fetch_sub(1);
  if (chained) ::sigaction(SIGINT, &saved, nullptr);
  if (chained && stop_main.load() && PyErr_CheckSignals() != 0) throw nb::python_error();  // KeyboardInterrupt
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

/// atexit: stops the calls in flight (a daemon thread's) and waits for them to return to Python (GIL
/// released).
void on_interpreter_exit() {
  interpreter_exiting = true;
  stop_others = true;
  stop_main = true;
  if (calls_in_flight.load() == 0) return;
  nb::gil_scoped_release release;
  for (int i = 0; i < 1000 && calls_in_flight.load() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

NB_MODULE(_cuarch, m) {
  m.doc() = "cuarch's library, in process (use the cuarch package, not this module)";
  m.attr("__version__") = std::to_string(CUARCH_VERSION_MAJOR) + "." + std::to_string(CUARCH_VERSION_MINOR) + "." +
                          std::to_string(CUARCH_VERSION_PATCH);
  m.attr("newest_known_toolkit") = std::string(cuarch::to_text(cuarch::newest_known_toolkit()).view());
  m.attr("oldest_known_toolkit") = std::string(cuarch::to_text(cuarch::oldest_known_toolkit()).view());

  // Imported again (after `del sys.modules[...]`): nanobind's types are the process's, registered
  // once; the new module object gets the same ones (registering them twice aborts).
  if (nb::handle registered = nb::type<cuarch_python::outcome>(); registered.is_valid()) {
    m.attr("Outcome") = registered;
  } else {
    nb::class_<cuarch_python::outcome> outcome(m, "Outcome");
    nb::enum_<cuarch_python::outcome::kind_t>(outcome, "Kind")
        .value("ok", cuarch_python::outcome::ok)
        .value("failed", cuarch_python::outcome::failed)
        .value("usage", cuarch_python::outcome::usage);
    outcome.def_ro("kind", &cuarch_python::outcome::kind)
        .def_prop_ro("json", [](const cuarch_python::outcome& o) { return text_of(o.json); })
        .def_prop_ro("code", [](const cuarch_python::outcome& o) { return text_of(o.code); })
        .def_ro("input_error", &cuarch_python::outcome::input_error)
        .def_prop_ro("message", [](const cuarch_python::outcome& o) { return text_of(o.message); })
        .def_ro("strict_failed", &cuarch_python::outcome::strict_failed)
        .def_prop_ro("names",
                     [](const cuarch_python::outcome& o) {
                       std::vector<nb::str> out;
                       for (const std::string& n : o.names) out.push_back(text_of(n));
                       return out;
                     })
        .def_prop_ro("note", [](const cuarch_python::outcome& o) { return text_of(o.note); })
        .def_prop_ro("text", [](const cuarch_python::outcome& o) { return text_of(o.text, decoding::os_bytes); });
    // Once per process, as the module's state (interpreter_exiting) is.
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(on_interpreter_exit));
    main_thread = nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  }

  // Options as (name, text) pairs and the environment as (name, value) pairs: plain data the
  // module owns, so the library runs with the GIL released and nothing Python can change under it.
  m.def(
      "resolve",
      [](const fs_pairs& options, const fs_pairs& env) {
        const auto full = with_inherited(env);
        const auto given = bytes_of(options);
        return interruptible(
            [&](const std::atomic<bool>* cancel) { return cuarch_python::resolve(given, full, cancel); });
      },
      "options"_a, "env"_a);
  // benchmarks/python_calls.py's baseline: the same call in C++ alone, `times` over, in seconds per
  // call (what resolve() adds on top of it is the binding's cost).
  m.def(
      "_resolve_in_cpp",
      [](const fs_pairs& options, const fs_pairs& env, int times) {
        const auto full = with_inherited(env);
        const auto given = bytes_of(options);
        nb::gil_scoped_release release;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < times; ++i) cuarch_python::resolve(given, full, nullptr);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / times;
      },
      "options"_a, "env"_a, "times"_a);
  m.def(
      "doctor",
      [](const fs_pairs& options, const fs_pairs& env, bool query_devices) {
        const auto full = with_inherited(env);
        const auto given = bytes_of(options);
        return interruptible(
            [&](const std::atomic<bool>* cancel) { return cuarch_python::doctor(given, full, query_devices, cancel); });
      },
      "options"_a, "env"_a, "query_devices"_a);
  std::vector<std::string> variables;
  for (const auto v : cuarch::detection_variables) variables.emplace_back(v);
  m.attr("environment_variables") = variables;

  m.def(
      "inspect",
      [](const std::vector<fs_bytes>& paths, const fs_pairs& options, const fs_pairs& env) {
        const auto full = with_inherited(env);
        const auto files = bytes_of(paths);
        const auto given = bytes_of(options);
        return interruptible(
            [&](const std::atomic<bool>* cancel) { return cuarch_python::inspect(files, given, full, cancel); });
      },
      "paths"_a, "options"_a, "env"_a);
  m.def(
      "inspect_loaded",
      [](const fs_pairs& options, const fs_pairs& env) {
        const auto full = with_inherited(env);
        const auto given = bytes_of(options);
        return interruptible(
            [&](const std::atomic<bool>* cancel) { return cuarch_python::inspect_loaded(given, full, cancel); });
      },
      "options"_a, "env"_a);
  m.def(
      "check",
      [](const fs_bytes& targets, const fs_bytes& toolkit, const fs_bytes& dialect) {
        nb::gil_scoped_release release;
        return cuarch_python::check(targets.bytes, toolkit.bytes, dialect.bytes);
      },
      "targets"_a, "toolkit"_a, "dialect"_a);
  m.def(
      "list_targets",
      [](const fs_bytes& toolkit) {
        nb::gil_scoped_release release;
        return cuarch_python::list_targets(toolkit.bytes);
      },
      "toolkit"_a);
  m.def(
      "env",
      [](const fs_bytes& tool, const fs_bytes& format, const fs_bytes& cmake_version, const fs_pairs& options,
         const fs_pairs& env) {
        const auto full = with_inherited(env);
        const auto given = bytes_of(options);
        return interruptible([&](const std::atomic<bool>* cancel) {
          return cuarch_python::env(tool.bytes, format.bytes, cmake_version.bytes, given, full, cancel);
        });
      },
      "tool"_a, "format"_a, "cmake_version"_a, "options"_a, "env"_a);
  std::vector<std::string> tool_variables;  // what cuarch.env() copies from os.environ beside environment_variables
  for (const auto v : cuarch::tool_variables) tool_variables.emplace_back(v);
  m.attr("tool_variables") = tool_variables;

  m.def(
      "cache_digest", [](const fs_bytes& key) { return cuarch::jit_cache_digest(key.bytes); }, "key"_a,
      "16 hex digits of the library's stable hash of a cache key (jit_cache_digest)");
  m.def(
      "code_name", [](int errc) { return cuarch_python::code_name(static_cast<cuarch::errc>(errc)); }, "errc"_a,
      "the stable snake_case name of the library's error code number (the 'errc' field of its JSON errors)");
  m.def(
      "is_input_error", [](int errc) { return cuarch_python::is_input_error(static_cast<cuarch::errc>(errc)); },
      "errc"_a, "whether the error code is about malformed input (ResolveError is then a ValueError)");
}
