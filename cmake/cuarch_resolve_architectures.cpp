// Configure-time helper behind cuarch_resolve_cuda_architectures() (cmake/cuarchCudaArchitectures.cmake).
// Built from cuarch's headers alone (no fmt, no CLI11), so it works from find_package,
// add_subdirectory and FetchContent before anything is built. It only translates: every argument
// is a library option (front_door/options.hpp) and the resolution is the library's front door,
// the same call `cuarch resolve` and Python make.
//   cuarch_resolve_architectures NAME=VALUE...   e.g. archs=90a-real;100 nvcc=/usr/local/cuda/bin/nvcc
//                                                devices=9.0 policy=best-effort native_variant=a
//   how=<words>   how CMake chose the nvcc (CMAKE_CUDA_COMPILER), for the compiler line only
//   cmake_version=<CMAKE_VERSION>   the CMake that reads the answer: the library spells it for that
//                 CMake (cmake_architectures), or says which CMake would spell it
//   answer=<file> where the answer goes (else stdout): a file, so that what a library loaded while
//                 detecting prints on stdout cannot corrupt it
// The request is read in the CMake dialect, with no environment override (CMake passes what the
// project asked for), and nvcc decides. The answer is one JSON object, read by the CMake function
// with string(JSON) (CMake >= 3.19); each member is a string, or null when it does not apply:
//   "architectures"  the CUDA_ARCHITECTURES value (on success)
//   "compiler"       "nvcc 13.0.88 at /usr/local/cuda-13.0/bin/nvcc (CMAKE_CUDA_COMPILER)"
//   "compiler_path"  the nvcc that decided (the function binds CMake to it)
//   "notes"          array: one per request (kept / transformed / rejected, and why), the door's notes
//   "warnings"       array: what bears on the answer (another compiler the user's tools run, the fix)
//   "error"          the failure, naming the compiler that decided and the fix
// A member whose bytes are not UTF-8 also has "<member>_bytes" (docs/json.md): the function stops
// on a compiler path it cannot hand CMake whole.
// Exit: 0 resolved, 1 resolution failed, 2 bad input.
#include <cuarch/cuarch.hpp>
#include <cuarch/detect.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

/// The answer, written once at the end (answer()), whatever path main() leaves by.
struct answer_document {
  std::string architectures, compiler, compiler_path, error;
  std::vector<std::string> notes, warnings;
};

void write_member(cuarch::detail::json_writer& w, std::string_view key, const std::string& value) {
  if (value.empty()) w.key(key).null();
  else w.key(key).value(value);
}

int answer(const answer_document& a, const std::string& file, int status) {
  cuarch::detail::json_writer w;
  w.begin_object();
  write_member(w, "architectures", a.architectures);
  write_member(w, "compiler", a.compiler);
  write_member(w, "compiler_path", a.compiler_path);
  w.key("notes").value(a.notes).key("warnings").value(a.warnings);
  write_member(w, "error", a.error);
  w.end_object();
  std::FILE* out = file.empty() ? stdout : std::fopen(file.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "cuarch_resolve_architectures: cannot write the answer to %s\n", file.c_str());
    return 2;
  }
  const bool written = std::fputs((w.str() + "\n").c_str(), out) >= 0;
  if ((out != stdout && std::fclose(out) != 0) || !written) {
    std::fprintf(stderr, "cuarch_resolve_architectures: cannot write the answer to %s\n", file.c_str());
    return 2;
  }
  return status;
}

/// How messages name an option here: cuarch_resolve_cuda_architectures()'s keyword and a CMake
/// argument ("DEVICE_CC 9.0"); an option the function has no keyword for is said to be none.
std::string cmake_spelling(const void*, std::string_view name, std::string_view value) {
  constexpr std::pair<std::string_view, std::string_view> keywords[] = {{"archs", "REQUEST"},
                                                                        {"devices", "DEVICE_CC"},
                                                                        {"nvcc", "COMPILER"},
                                                                        {"policy", "POLICY"},
                                                                        {"native_variant", "NATIVE_VARIANT"}};
  for (const auto& [option, keyword] : keywords) {
    if (option != name) continue;
    std::string out(keyword);
    if (value.empty()) return out;
    const bool quote = value.find_first_of("; ") != std::string_view::npos;
    return out.append(" ").append(quote ? "\"" : "").append(value).append(quote ? "\"" : "");
  }
  return std::string(name) + " (an option of `cuarch resolve`, not of this CMake function)";
}

}  // namespace

int main(int argc, char** argv) {
  cuarch::resolve_options o;
  o.spelling = {cmake_spelling, nullptr};
  o.dialect = cuarch::arch_dialect::cmake;
  o.env = cuarch::env_override::none;
  o.compiler = cuarch::compile_path::nvcc;
  std::string how, cmake_version, file;
  answer_document a;
  const auto fail = [&](std::string message, int status) {
    a.error = std::move(message);
    return answer(a, file, status);
  };
  for (int i = 1; i < argc; ++i) {  // answer= first: every later refusal goes where it is read
    const std::string_view arg = argv[i];
    if (arg.substr(0, 7) == "answer=") file = std::string(arg.substr(7));
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::size_t eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq),
                           value = eq == std::string_view::npos ? std::string_view() : arg.substr(eq + 1);
    if (key == "how" || key == "cmake_version" || key == "answer") {
      if (key != "answer") (key == "how" ? how : cmake_version) = std::string(value);
      continue;
    }
    const auto name = cuarch::parse_option_name(key);
    if (!name || eq == std::string_view::npos)
      return fail("'" + std::string(arg) + "' is not NAME=VALUE with a cuarch option name", 2);
    if (auto bad = cuarch::set_option(o, *name, value))
      return fail(cmake_spelling(nullptr, key, {}) + " '" + std::string(value) +
                      "': " + (bad->cause ? bad->cause->message(o.spelling) : bad->message),
                  2);
  }

  const cuarch::resolve_outcome done = cuarch::resolve_here(o);
  if (done.usage) return fail(*done.usage, 2);
  a.notes = done.notes;
  for (const auto& w : done.warnings) a.warnings.push_back(w.what + ": " + w.meaning);
  if (done.malformed)
    return fail("REQUEST '" + o.archs.value_or("native") + "': " + done.result.error().summary.message(done.spelling),
                2);
  std::string decided_by;
  if (done.compiler) {
    const auto& c = done.compiler->compiler;
    decided_by = std::string(to_string(c.kind)) + " " + std::string(cuarch::to_text(c.version).view()) + " at " +
                 c.location;
    const std::string found = !how.empty() && !o.nvcc.empty() ? how : done.compiler->found;
    if (!found.empty()) decided_by += " (" + found + ")";
    a.compiler = decided_by;
    a.compiler_path = c.location;
  }
  if (!done.result) {
    for (const auto& d : done.result.error().diagnostics) a.notes.push_back(d.message(done.spelling));
    for (const auto& alt : done.alternatives) a.notes.push_back("would build it: " + alt.found + "; fix: " + alt.fix);
    return fail(done.result.error().summary.message(done.spelling) +
                    (decided_by.empty() ? "" : " (decided by " + decided_by + ")"),
                done.exit_status());
  }
  for (const auto& d : done.result->diagnostics) a.notes.push_back(d.message(done.spelling));
  const auto cmake = cuarch::cmake_architectures(done.result->targets, cmake_version);
  if (!cmake)
    return fail(cmake.error().message(done.spelling) + (decided_by.empty() ? "" : " (decided by " + decided_by + ")"),
                1);
  a.architectures = *cmake;
  return answer(a, file, 0);
}
