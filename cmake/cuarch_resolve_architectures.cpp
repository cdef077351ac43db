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
// The request is read in the CMake dialect, with no environment override (CMake passes what the
// project asked for), and nvcc decides. Prints `key=value` lines for the CMake function to read:
//   architectures=<CUDA_ARCHITECTURES value>      (on success)
//   compiler=nvcc 13.0.88 at /usr/local/cuda-13.0/bin/nvcc (CMAKE_CUDA_COMPILER)
//   compiler_path=/usr/local/cuda-13.0/bin/nvcc   the nvcc that decided (the function binds CMake to it)
//   note=<one line per request: kept / transformed / rejected, and why; the front door's notes>
//   warning=<what bears on the answer: another compiler the user's tools run, and the fix>
//   error=<the failure, naming the compiler that decided and the fix>
// Exit: 0 resolved, 1 resolution failed, 2 bad input.
#include <cuarch/cuarch.hpp>
#include <cuarch/detect.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace {

void print_line(std::string_view key, std::string_view value) {
  std::string line(key);
  line += '=';
  for (const char c : value) line += (c == '\n' || c == '\r') ? ' ' : c;  // one CMake-readable line each
  std::printf("%s\n", line.c_str());
}

int fail(std::string_view message, int status) {
  print_line("error", message);
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
  std::string how, cmake_version;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::size_t eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq),
                           value = eq == std::string_view::npos ? std::string_view() : arg.substr(eq + 1);
    if (key == "how" || key == "cmake_version") {
      (key == "how" ? how : cmake_version) = std::string(value);
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
  for (const auto& n : done.notes) print_line("note", n);
  for (const auto& w : done.warnings) print_line("warning", w.what + ": " + w.meaning);
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
    print_line("compiler", decided_by);
    print_line("compiler_path", c.location);
  }
  if (!done.result) {
    for (const auto& d : done.result.error().diagnostics) print_line("note", d.message(done.spelling));
    for (const auto& a : done.result.error().alternatives)
      print_line("note", "would build it: " + a.found + "; fix: " + a.fix);
    return fail(done.result.error().summary.message(done.spelling) +
                    (decided_by.empty() ? "" : " (decided by " + decided_by + ")"),
                done.exit_status());
  }
  for (const auto& d : done.result->diagnostics) print_line("note", d.message(done.spelling));
  const auto cmake = cuarch::cmake_architectures(done.result->targets, cmake_version);
  if (!cmake)
    return fail(cmake.error().message(done.spelling) + (decided_by.empty() ? "" : " (decided by " + decided_by + ")"),
                1);
  print_line("architectures", *cmake);
  return 0;
}
