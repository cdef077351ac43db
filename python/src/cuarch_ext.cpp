// cuarch._cuarch: the nanobind module behind the `cuarch` Python package. It only converts
// arguments and results: the work is the library's (calls.hpp), run with the GIL released so that
// detection (which may load libraries and run nvcc --version) never blocks other Python threads.
// Errors come back as values (outcome); cuarch/__init__.py turns them into ResolveError, so the
// exception types live in one place, in Python.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cuarch/core/version.hpp>
#include <cuarch/cuarch.hpp>
#include <cuarch/core/environment.hpp>
#include <cuarch/front_door/tool_env.hpp>

#include <string>

#include "calls.hpp"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_cuarch, m) {
  m.doc() = "cuarch's library, in process (use the cuarch package, not this module)";
  m.attr("__version__") = std::to_string(CUARCH_VERSION_MAJOR) + "." + std::to_string(CUARCH_VERSION_MINOR) + "." +
                          std::to_string(CUARCH_VERSION_PATCH);
  m.attr("newest_known_toolkit") = std::string(cuarch::to_text(cuarch::newest_known_toolkit()).view());
  m.attr("oldest_known_toolkit") = std::string(cuarch::to_text(cuarch::oldest_known_toolkit()).view());

  nb::class_<cuarch_python::outcome> outcome(m, "Outcome");
  nb::enum_<cuarch_python::outcome::kind_t>(outcome, "Kind")
      .value("ok", cuarch_python::outcome::ok)
      .value("failed", cuarch_python::outcome::failed)
      .value("usage", cuarch_python::outcome::usage);
  outcome.def_ro("kind", &cuarch_python::outcome::kind)
      .def_ro("json", &cuarch_python::outcome::json)
      .def_ro("code", &cuarch_python::outcome::code)
      .def_ro("input_error", &cuarch_python::outcome::input_error)
      .def_ro("message", &cuarch_python::outcome::message)
      .def_ro("strict_failed", &cuarch_python::outcome::strict_failed)
      .def_ro("compiler_how", &cuarch_python::outcome::compiler_how)
      .def_ro("compiler_origin", &cuarch_python::outcome::compiler_origin)
      .def_ro("compiler_why", &cuarch_python::outcome::compiler_why)
      .def_ro("names", &cuarch_python::outcome::names)
      .def_ro("note", &cuarch_python::outcome::note)
      .def_ro("text", &cuarch_python::outcome::text);

  // Options as (name, text) pairs and the environment as (name, value) pairs: plain data the
  // module owns, so the library runs with the GIL released and nothing Python can change under it.
  m.def("resolve", &cuarch_python::resolve, "options"_a, "env"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("doctor", &cuarch_python::doctor, "options"_a, "env"_a, "query_devices"_a, nb::call_guard<nb::gil_scoped_release>());
  std::vector<std::string> variables;
  for (const auto v : cuarch::detection_variables) variables.emplace_back(v);
  m.attr("environment_variables") = variables;

  m.def("check", &cuarch_python::check, "targets"_a, "toolkit"_a, "dialect"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("list_targets", &cuarch_python::list_targets, "toolkit"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("env", &cuarch_python::env, "tool"_a, "format"_a, "cmake_version"_a, "options"_a, "env"_a,
        nb::call_guard<nb::gil_scoped_release>());
  std::vector<std::string> tool_variables;  // what cuarch.env() copies from os.environ beside environment_variables
  for (const auto v : cuarch::tool_variables) tool_variables.emplace_back(v);
  m.attr("tool_variables") = tool_variables;

  m.def(
      "cache_digest", [](const std::string& key) { return cuarch::jit_cache_digest(key); }, "key"_a,
      "16 hex digits of the library's stable hash of a cache key (jit_cache_digest)");
  m.def(
      "code_name", [](int errc) { return cuarch_python::code_name(static_cast<cuarch::errc>(errc)); }, "errc"_a,
      "the stable snake_case name of the library's error code number (the 'errc' field of its JSON errors)");
  m.def(
      "is_input_error", [](int errc) { return cuarch_python::is_input_error(static_cast<cuarch::errc>(errc)); }, "errc"_a,
      "whether the error code is about malformed input (ResolveError is then a ValueError)");
}
