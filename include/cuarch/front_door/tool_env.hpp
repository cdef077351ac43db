// `cuarch env --for TOOL`: the variables a tool reads to choose its CUDA compiler and targets, set from
// one resolve_here() outcome so that it builds the targets cuarch validated with the nvcc that validated
// them, as the tool's source at the release tool_sources names reads them (docs/usage.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../core/detail/name_map.hpp"
#include "../core/environment.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "options.hpp"
#include "resolve_here.hpp"

CUARCH_BEGIN_NAMESPACE

/// A tool whose own variables `cuarch env --for TOOL` sets.
enum class env_tool : unsigned char { torch, flashinfer, cmake, tvm_ffi, triton };
inline constexpr std::string_view env_tool_names[] = {"torch", "flashinfer", "cmake", "tvm-ffi", "triton"};
inline constexpr auto all_env_tools = detail::enumerators<env_tool>(env_tool_names);
constexpr std::string_view to_string(env_tool e) noexcept { return detail::name_of(env_tool_names, e); }
/// The release of each tool whose source the rules here follow, in enumerator order.
inline constexpr std::string_view tool_sources[] = {"PyTorch 2.15.0", "flashinfer-python 0.7.4", "CMake >= 3.20",
                                                    "apache-tvm-ffi 0.1.15.post2", "triton 3.9.0"};
/// Every variable some tool reads that env judges (front ends add them to the environment snapshot).
inline constexpr std::string_view tool_variables[] = {
    "TORCH_CUDA_ARCH_LIST",        "CUDA_HOME", "PYTORCH_NVCC", "FLASHINFER_CUDA_ARCH_LIST", "FLASHINFER_NVCC",
    "FLASHINFER_EXTRA_CUDAFLAGS",  "CUDAARCHS", "CUDACXX",      "TVM_FFI_CUDA_ARCH_LIST",    "TRITON_PTXAS_PATH",
    "TRITON_PTXAS_BLACKWELL_PATH", "PATH",      "CMAKE_COMMAND"};

/// How the variables are printed: POSIX shell, dotenv, $GITHUB_ENV lines, or the cuarch.env/1 document.
enum class env_format : unsigned char { shell, dotenv, github, json };
inline constexpr std::string_view env_format_names[] = {"shell", "dotenv", "github", "json"};
inline constexpr auto all_env_formats = detail::enumerators<env_format>(env_format_names);
constexpr std::string_view to_string(env_format e) noexcept { return detail::name_of(env_format_names, e); }

/// One variable to set; `was` the environment's value it replaces, `note` why that mattered.
struct tool_variable {
  std::string name, value;
  std::optional<std::string> was;
  std::string note;
};

/// What to set for one tool: warnings bear on the answer and the variables do not settle them (strict
/// fails on any); notes say what the variables replace (a value, the nvcc first on PATH).
struct tool_env {
  std::vector<tool_variable> variables;
  std::vector<resolution_warning> warnings;
  std::vector<std::string> notes;
};

/// `o` made to resolve for `tool`: every tool here runs a detected nvcc (Triton: its toolkit's ptxas).
/// The usage problem (in o.spelling), or nullopt.
CUARCH_FUNC std::optional<std::string> options_for_tool(env_tool tool, resolve_options& o);

/// The variables for `tool` from `done` (resolve_here() with options_for_tool), judged against `env`
/// (with tool_variables). Errors: the resolution's failure; not_expressible naming the tool, its release
/// and the target its list cannot spell (its location a request the list spells, when one is left)
/// or the nvcc it cannot be pointed at. `cmake_version`: the CMAKE_VERSION that reads CUDAARCHS;
/// empty: the version of the cmake `env` runs ($CMAKE_COMMAND, else PATH's), said in a note, or, where
/// none answers, a current one and a note that says what each suffix needs. Messages use done.spelling.
CUARCH_FUNC expected<tool_env, error> tool_env_for(env_tool tool, const resolve_outcome& done, const environment& env,
                                                   std::string_view cmake_version = {});

/// The variables as `format` prints them (shell, dotenv, github; json: env_json()), each read back
/// verbatim by that format's reader: a POSIX shell, python-dotenv, the GitHub runner. A value that
/// reader cannot be given verbatim is not_expressible, naming the variable and the format.
CUARCH_FUNC expected<std::string, error> env_lines(const tool_env& e, env_format format);

/// What a refusal prints where the variables would have been, so that its consumer fails too: for
/// shell, lines that make `eval` return non-zero (and stop a `set -e` script); the other formats
/// print nothing (the command's exit status fails the step that writes them; json: env_json()).
CUARCH_FUNC std::string env_refused_lines(env_format format);

/// The cuarch.env/1 document (docs/json.md); for a failed `result`, "ok": false and the error.
CUARCH_FUNC std::string env_json(env_tool tool, const resolve_outcome& done, const expected<tool_env, error>& result);

/// What came of one env_here() call. Nothing is printed and nothing thrown: the caller words it.
struct env_outcome {
  std::optional<std::string> usage;  // the options do not fit the tool (in o.spelling): nothing was done
  resolve_outcome done;              // the front door's answer
  expected<tool_env, error> result{unexpected(error{})};  // the variables, or why there are none
  std::string json;                                       // the cuarch.env/1 document, either way
  /// What the format prints (json: the document and a newline); nullopt where something refused:
  std::optional<std::string> text;
  std::optional<error> refused;  // what refused: the resolution's summary, the tool's or the format's error
  std::string refusal;           // that refusal in words (done.spelling; a resolution's whole message)
  bool strict_failed = false;    // strict, and warnings bear on the answer: `text` stays, exit 1

  /// The warnings that bear on the answer (the tool's, which hold the door's, once it answered).
  const std::vector<resolution_warning>& warnings() const { return result ? result->warnings : done.warnings; }
  /// 0 the variables; 1 refused or strict_failed; 2 usage or malformed input (as resolve_outcome).
  int exit_status() const noexcept {
    if (usage) return 2;
    if (!done.result) return done.exit_status();
    if (refused) return cuarch::exit_status(refused->code);
    return strict_failed ? 1 : 0;
  }
};

/// `cuarch env --for TOOL` whole, for every front end: options_for_tool, resolve_here() against one
/// snapshot that holds the tool's own variables too (o.env_snapshot, else this process's), tool_env_for,
/// and the text `format` prints, or the one error that refused.
CUARCH_FUNC env_outcome env_here(env_tool tool, env_format format, resolve_options o,
                                 std::string_view cmake_version = {});

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "../core/detail/json.hpp"
#  include "../core/detail/utf8.hpp"
#  include "../doctor/analysis.hpp"
#  include "../resolve/outputs.hpp"
#  include "../sources/posix/posix.hpp"
#  include "../sources/posix/subprocess.hpp"
#  include "../sources/toolkit_files.hpp"

CUARCH_BEGIN_NAMESPACE

CUARCH_FUNC std::optional<std::string> options_for_tool(env_tool tool, resolve_options& o) {
  const auto spell = [&](option_name n) { return o.spelling(to_string(n)); };
  const std::string name(to_string(tool));
  if (o.toolkit)
    return "env --for " + name + " names the compiler the tool will run: " + spell(option_name::toolkit) +
           " (a release, nothing detected) has no path to give it; name the nvcc with " + spell(option_name::nvcc) +
           " or " + spell(option_name::cuda_home) + ", or let detection find it";
  if (o.compiler == compile_path::nvrtc || !o.nvrtc.empty())
    return name + " compiles with nvcc, not NVRTC: drop " +
           spell(o.compiler == compile_path::nvrtc ? option_name::compiler : option_name::nvrtc);
  o.compiler = compile_path::nvcc;
  return std::nullopt;
}

namespace detail {

/// FlashInfer's FLASHINFER_CUDA_ARCH_LIST (compilation_context.py) and TVM-FFI's
/// TVM_FFI_CUDA_ARCH_LIST (cpp/extension.py): "X.Y[a|f]" joined by one space, each made
/// -gencode=arch=compute_XY,code=sm_XY: machine code only. FlashInfer also re-derives the suffix of
/// a bare X.Y from 9.0 on (9.0 -> 9.0a, 12.0 -> 12.0f or 12.0a by its nvcc's version), and builds
/// 10.7a as sm_100f while its CUTLASS lacks Sm107 (0.7.4's does).
inline expected<std::string, error> dotted_sass_list(const target_set& targets, bool flashinfer) {
  std::string out;
  for (const auto& t : targets) {
    std::string_view why;
    if (t.form != arch_form::sass) why = "it builds machine code only (code=sm_XY): PTX and LTO IR have no spelling";
    else if (flashinfer && t.variant == arch_variant::baseline && t.cc.major >= 9)
      why = "it gives a bare X.Y from 9.0 on a suffix of its own (9.0 -> 9.0a, 12.0 -> 12.0f or 12.0a): baseline has no spelling";
    else if (flashinfer && t.variant == arch_variant::arch_specific && t.cc == compute_capability{10, 7})
      why = "it builds 10.7a as sm_100f while its bundled CUTLASS lacks Sm107";
    if (!why.empty()) return unexpected(errors::not_expressible(source_kind::none, t, {}, why));
    out.append(out.empty() ? "" : " ").append(dotted(t).view());
  }
  if (flashinfer && targets[targets.size() - 1].cc < compute_capability{7, 5})  // the set is ordered by cc
    return unexpected(
        errors::not_expressible(source_kind::none, targets[0], {},
                                "its JIT refuses a list without a target of sm75 or higher (check_cuda_arch)"));
  return out;
}

/// The entries of a TORCH_CUDA_ARCH_LIST value PyTorch refuses, worded; empty if none (named
/// generations are substituted first, so a name is taken as valid).
inline std::string torch_refuses(std::string_view list) {
  std::string bad;
  for (const auto entry : split_any(list, " ;"))
    if (!(entry[0] >= 'A' && entry[0] <= 'Z') && !torch_supports(entry))
      bad.append(bad.empty() ? "" : ", ").append("'").append(entry).append("'");
  return bad.empty() ? bad : "PyTorch raises ValueError (\"Unknown CUDA arch\") on " + bad;
}

/// A request (target names, ';'-joined) that `spell` accepts, made from `targets` by asking each
/// target it refuses another way where one is accepted (a bare X.Y as X.Ya, where `compiler` builds
/// that: FlashInfer's suffix rule; an X.Yf as the baseline X.Y, which loads on every device the
/// family target does: PyTorch and older CMake have no `f`), else dropping it; empty when nothing is left.
template <class Spell>
std::string spellable_request(const target_set& targets, const Spell& spell, const cuda_version& compiler) {
  std::vector<arch_target> kept(targets.begin(), targets.end());
  for (std::size_t tries = 0; !kept.empty() && tries <= targets.size(); ++tries) {
    const auto set = target_set::from(kept);
    if (!set) return {};
    const auto spelled = spell(*set);
    if (spelled) {
      std::string request;
      for (const auto& t : *set) request.append(request.empty() ? "" : ";").append(to_text(t).view());
      return request;
    }
    const arch_target bad = spelled.error().target;
    const auto at = std::find(kept.begin(), kept.end(), bad);
    if (at == kept.end()) return {};
    arch_target other = bad;
    other.variant = bad.variant == arch_variant::baseline ? arch_variant::arch_specific : arch_variant::baseline;
    const bool may = bad.variant == arch_variant::family_specific ||
                     (bad.variant == arch_variant::baseline && bad.form == arch_form::sass);
    if (may && check_buildable(other, compiler) && std::find(kept.begin(), kept.end(), other) == kept.end() &&
        spell(*target_set::from({other})))
      *at = other;
    else kept.erase(at);
  }
  return {};
}

/// The CMake that reads CUDAARCHS: its version, and the words naming it ("CMake 3.25.1
/// (/usr/bin/cmake, the first cmake on PATH)"); or, where none was given and none answered, why.
struct cmake_reader {
  std::string version, said, unknown, program, how;
};

/// `given` (the caller's), else the version of the cmake this environment runs: $CMAKE_COMMAND, else
/// the first cmake on PATH, asked `cmake --version` within the tool timeout.
inline cmake_reader cmake_reading(std::string_view given, const environment& env) {
  if (!given.empty()) return {std::string(given), {}, {}, {}, {}};
  std::string program, how;
  if (const auto command = env.get_nonempty("CMAKE_COMMAND")) program = *command, how = "CMAKE_COMMAND";
  else if (const auto path = env.get_nonempty("PATH"))
    for (const auto& dir : split_path_list(*path)) {
      const std::string candidate = join(dir, "cmake");
      if (!dir.empty() && dir.front() == '/' && is_file(candidate) && ::access(candidate.c_str(), X_OK) == 0) {
        program = candidate, how = "the first cmake on PATH";
        break;
      }
    }
  if (program.empty()) return {{}, {}, "no cmake was found to ask (CMAKE_COMMAND, PATH)", {}, {}};
  const std::vector<std::string> program_env = env.program_environment();  // the snapshot's, never the live environ
  process_limits limits;
  limits.timeout = default_tool_timeout;
  limits.env = &program_env;
  const auto run = run_process({program, "--version"}, limits, source_kind::none);
  constexpr std::string_view lead = "cmake version ";
  const std::size_t at = run ? run->out.find(lead) : std::string::npos;
  if (at == std::string::npos)
    return {{}, {}, "the cmake at " + echoed(program, path_words) + " (" + how + ") did not say its version", {}, {}};
  const std::size_t from = at + lead.size();
  const std::string version = run->out.substr(from, run->out.find_first_of(" \r\n", from) - from);
  return {version,
          "CMake " + version + " (" + echoed(program, path_words) + ", " + how + ")",
          {},
          echoed(program, path_words),
          how};
}

/// The real path of the program a command names (its last word: "ccache /x/nvcc" runs /x/nvcc).
inline std::string program_of(std::string_view command) {
  const auto words = split_any(command, " \t");
  return words.empty() ? std::string() : real_path(std::string(words.back()));
}

}  // namespace detail

CUARCH_FUNC expected<tool_env, error> tool_env_for(env_tool tool, const resolve_outcome& done, const environment& env,
                                                   std::string_view cmake_version) {
  if (!done.result) return unexpected(done.result.error().summary);
  const std::string subject_of(tool_sources[static_cast<std::size_t>(tool)]);
  const target_set& targets = done.result->targets;
  const auto refuse = [&](source_kind source, std::string_view why, const std::string& location = {}) {
    error e = errors::not_expressible(source, targets[0], subject_of, why);
    e.location = location;
    return unexpected(e);
  };
  if (done.used != compile_path::nvcc)  // the targets were judged by NVRTC, not by the nvcc the tool would be given
    return refuse(source_kind::nvrtc,
                  "the targets were resolved for NVRTC and the tool runs nvcc: resolve with options_for_tool()");
  const detection* d = done.found ? &*done.found : nullptr;
  const candidate* nvcc = d ? d->chosen(d->offline_compiler) : nullptr;
  if (!nvcc || nvcc->source != source_kind::nvcc || nvcc->real_path.empty())
    return refuse(source_kind::nvcc, "no nvcc decided, so there is none to point the tool at");
  // All but CMake run $CUDA_HOME/bin/nvcc: the root whose bin/nvcc decided (its toolkit, or above its bin/).
  std::string root = nvcc->toolkit_root;
  if (root.empty() && detail::file_name(detail::parent_dir(nvcc->path)) == "bin")
    root = detail::parent_dir(detail::parent_dir(nvcc->path));
  if (tool != env_tool::cmake && (root.empty() || detail::real_path(detail::join(root, "bin/nvcc")) != nvcc->real_path))
    return refuse(
        source_kind::nvcc,
        "it runs $CUDA_HOME/bin/nvcc, and the nvcc that decided is in no bin/ directory: use one inside a toolkit (" +
            done.spelling("cuda_home", "DIR") + ")",
        nvcc->path);

  tool_env out;
  const auto set = [&](std::string_view variable, const std::string& value) {
    out.variables.push_back({std::string(variable), value, {}, {}});
  };
  std::optional<error> refused;
  // A list the tool cannot read is refused with a request it can (each target it refuses dropped,
  // FlashInfer's bare X.Y asked as X.Ya), so that the fix, followed, is accepted.
  std::string reader = subject_of;  // CMake: the one that reads it, where known
  const auto list = [&](std::string_view variable, auto&& spell) {
    auto spelled = spell(targets);
    if (spelled) return set(variable, *spelled);
    refused = spelled.error();
    refused->subject = std::string(variable) + " of " + reader;
    refused->partial = true;  // a tool's own list: no other format to print
    refused->location = detail::spellable_request(targets, spell, done.result->compiler_version);
  };
  const auto torch = [](const target_set& t) { return torch_cuda_arch_list(t); };
  const auto sass_list = [&](const target_set& t) { return detail::dotted_sass_list(t, tool == env_tool::flashinfer); };
  switch (tool) {
    case env_tool::torch:
      list("TORCH_CUDA_ARCH_LIST", torch);
      set("CUDA_HOME", root);
      // PYTORCH_NVCC, when set, replaces $CUDA_HOME/bin/nvcc in the ninja file ("ccache <nvcc>" too).
      if (const auto cmd = env.get_nonempty("PYTORCH_NVCC"); cmd && detail::program_of(*cmd) != nvcc->real_path)
        set("PYTORCH_NVCC", nvcc->real_path);
      break;
    case env_tool::flashinfer:
      list("FLASHINFER_CUDA_ARCH_LIST", sass_list);
      set("CUDA_HOME", root);  // its nvcc version, hence its 12.0f/12.0a choice, comes from $CUDA_HOME/bin/nvcc
      set("FLASHINFER_NVCC", nvcc->real_path);
      if (const auto extra = env.get_nonempty("FLASHINFER_EXTRA_CUDAFLAGS"))
        for (const auto word : detail::split_any(*extra, " \t"))
          if (detail::starts_with(word, "-gencode") || detail::starts_with(word, "-arch") ||
              detail::starts_with(word, "--gpu-") || detail::starts_with(word, "-code")) {
            out.warnings.push_back(
                {"tool_variable_adds_targets", "FLASHINFER_EXTRA_CUDAFLAGS='" + *extra + "' holds " + std::string(word),
                 "FlashInfer appends it to every compile, so it builds targets beyond the validated ones: remove "
                 "the target flags from it"});
            break;
          }
      break;
    case env_tool::cmake: {
      // Spelled for the CMake that will read it: the one given, else the one this environment runs.
      const detail::cmake_reader cmake = detail::cmake_reading(cmake_version, env);
      if (!cmake.version.empty()) reader = "CMake " + cmake.version;
      list("CUDAARCHS", [&](const target_set& t) { return cmake_architectures(t, cmake.version); });
      set("CUDACXX", nvcc->real_path);
      const std::string other = "; to spell it for another CMake, pass " + done.spelling("cmake_version", "VERSION");
      if (!cmake.said.empty()) out.notes.push_back("CUDAARCHS is spelled for " + cmake.said + other);
      else if (cmake.version.empty() && !refused && !cmake_architectures(targets, "3.24.0"))
        out.notes.push_back("CUDAARCHS holds a suffix older CMake cannot read ('a' from 3.25.0, 'f' from 4.0.2), and " +
                            cmake.unknown + other);
      if (refused && !cmake.said.empty())
        refused->raw.append("; read by ").append(cmake.program).append(" (").append(cmake.how).append(")");
      break;
    }
    case env_tool::tvm_ffi:
      list("TVM_FFI_CUDA_ARCH_LIST", sass_list);
      set("CUDA_HOME", root);
      break;
    case env_tool::triton: {
      // Triton compiles for the device it runs on (sm_XYa from 9.0), with TRITON_PTXAS_PATH below
      // 9.0 and TRITON_PTXAS_BLACKWELL_PATH from 9.0; a path that does not run falls back silently
      // to the ptxas in its wheel, so the file must be there.
      const std::string ptxas = detail::join(root, "bin/ptxas");
      if (!detail::is_file(ptxas))
        return refuse(source_kind::ptxas, "the toolkit of the nvcc that decided has no bin/ptxas", ptxas);
      set("TRITON_PTXAS_PATH", ptxas);
      set("TRITON_PTXAS_BLACKWELL_PATH", ptxas);
      out.notes.push_back(
          "Triton compiles for the device it runs on, not for a list: the variables name the ptxas of the validated toolkit");
      break;
    }
  }
  if (refused) return unexpected(*refused);

  // What the environment has otherwise: each replaced value is said, and why it mattered.
  for (auto& v : out.variables) {
    const auto now = env.get(v.name);
    if (!now || *now == v.value) continue;
    if (v.name == "CUDA_HOME" && detail::real_path(*now) == detail::real_path(v.value)) continue;  // the same toolkit
    v.was = *now;
    if (v.name == "CUDA_HOME") {
      const candidate* its = detail::nvcc_in(*d, detail::real_path(*now));
      v.note = "its nvcc: " + (its ? detail::label(*its) : std::string("no nvcc cuarch asked"));
    } else if (v.name == "TORCH_CUDA_ARCH_LIST") v.note = detail::torch_refuses(*now);
    out.notes.push_back(v.name + " was '" + *now + "'" + (v.note.empty() ? "" : " (" + v.note + ")") +
                        "; replaced by '" + v.value + "'");
  }
  // The nvcc a shell would run: not the tool's, once the variables point it at the validated one.
  if (d->nvcc_on_path && tool != env_tool::triton) {
    const candidate& first = d->candidates[*d->nvcc_on_path];
    const char* const runners[] = {"PyTorch extensions", "FlashInfer", "CMake", "TVM-FFI"};  // by env_tool
    if (first.real_path != nvcc->real_path)
      out.notes.push_back("the first nvcc on PATH is " + detail::label(first) +
                          ", not the one that validated the targets: " + runners[static_cast<std::size_t>(tool)] +
                          " will not run it with these variables (it runs " +
                          (tool == env_tool::cmake ? "$CUDACXX" : "$CUDA_HOME/bin/nvcc") +
                          "); a shell or a build step that runs `nvcc` by name would");
  }
  // The resolution's warnings, but those about which nvcc a tool finds: the variables settle that.
  for (const auto& w : done.warnings)
    if (w.kind != "tool_compiler_disagrees") out.warnings.push_back(w);
  return out;
}

namespace detail {

/// Why `format`'s reader would not read `value` back verbatim, or empty. python-dotenv 1.x (parser.py,
/// main.py): a double-quoted value decodes \\ \" \n \r and the like, and its default interpolation
/// replaces ${NAME} in every value, which no escape prevents; it and the GitHub runner
/// (FileCommandManager.cs: File.ReadAllText) decode the file as UTF-8.
inline std::string_view unreadable_by(env_format format, std::string_view value) {
  if (format == env_format::shell) return {};  // single quotes keep every byte
  for (std::size_t at = 0; at < value.size();) {
    const utf8_step step = decode_utf8(value, at);
    if (!step.valid) return "its reader decodes the file as UTF-8, and the value holds bytes that are not UTF-8";
    at += step.length;
  }
  const std::size_t open = value.find("${");
  if (format == env_format::dotenv && open != std::string_view::npos && value.find('}', open) != std::string_view::npos)
    return "python-dotenv expands ${...} in every value (no escape keeps it), and the value holds one";
  return {};
}

}  // namespace detail

CUARCH_FUNC expected<std::string, error> env_lines(const tool_env& e, env_format format) {
  std::string out;
  for (const auto& v : e.variables) {
    if (const auto why = detail::unreadable_by(format, v.value); !why.empty()) {
      error refused = errors::not_expressible(source_kind::none, {},
                                              v.name + " in the " + std::string(to_string(format)) + " format", why);
      refused.has_target = false;
      refused.location = detail::echoed(v.value);
      return unexpected(refused);
    }
    switch (format) {
      case env_format::shell: out += "export " + v.name + "=" + detail::single_quoted(v.value) + "\n"; break;
      case env_format::dotenv: {
        // Bare where python-dotenv reads the text as it is (no quote, escape, comment or blank edge);
        // else double-quoted, where it decodes exactly these escapes and keeps the rest ($, #, `, ').
        const bool bare = v.value.find_first_of("\"'\\#\n\r\t") == std::string::npos &&
                          (v.value.empty() || (v.value.front() != ' ' && v.value.back() != ' '));
        std::string quoted;
        for (const char c : v.value)
          quoted += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '"' ? "\\\"" : c == '\\' ? "\\\\" : std::string(1, c);
        out += v.name + "=" + (bare ? v.value : "\"" + quoted + "\"") + "\n";
        break;
      }
      case env_format::github: {  // a line feed: GitHub's multiline form, with a delimiter no line of the value is
        std::string delimiter = "CUARCH_EOF";
        while (("\n" + v.value + "\n").find("\n" + delimiter + "\n") != std::string::npos) delimiter += "_";
        out += v.value.find('\n') == std::string::npos
                   ? v.name + "=" + v.value + "\n"
                   : v.name + "<<" + delimiter + "\n" + v.value + "\n" + delimiter + "\n";
        break;
      }
      case env_format::json: break;
    }
  }
  return out;
}

CUARCH_FUNC std::string env_refused_lines(env_format format) {
  if (format != env_format::shell) return {};
  return "echo 'cuarch env refused: nothing was set (the reason is above)' >&2\nfalse\n";
}

CUARCH_FUNC std::string env_json(env_tool tool, const resolve_outcome& done, const expected<tool_env, error>& result) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::env).key("ok").value(result.has_value());
  w.key("tool").value(to_string(tool)).key("tool_source").value(tool_sources[static_cast<std::size_t>(tool)]);
  if (!result) detail::json_error(w.key("error"), result.error(), done.spelling);
  w.key("compiler");
  if (done.compiler) detail::json_compiler_provenance(w, *done.compiler, false);
  else w.null();
  w.key("targets").begin_array();
  if (done.result)
    for (const auto& t : done.result->targets) detail::json_target(w, t);
  w.end_array().key("variables").begin_array();
  if (result)
    for (const auto& v : result->variables) {
      w.begin_object().key("name").value(v.name).key("value").value(v.value).key("was");
      (v.was ? w.value(*v.was) : w.null()).key("note").value(v.note).end_object();
    }
  w.end_array();
  detail::json_warnings(w, result ? result->warnings : done.warnings);
  std::vector<std::string> notes = done.notes;
  if (result) notes.insert(notes.end(), result->notes.begin(), result->notes.end());
  w.key("notes").value(notes).end_object();
  return w.str();
}

CUARCH_FUNC env_outcome env_here(env_tool tool, env_format format, resolve_options o, std::string_view cmake_version) {
  env_outcome out;
  if ((out.usage = options_for_tool(tool, o))) return out;
  if (!o.env_snapshot) {  // what detection reads and the tool's own variables, judged against the answer
    environment env = environment::from_process();
    for (const auto name : tool_variables)
      if (const char* v = environment::process_value(std::string(name).c_str())) env.set(std::string(name), v);
    o.env_snapshot = std::move(env);
  }
  out.done = resolve_here(o);
  if ((out.usage = out.done.usage)) return out;
  out.result = tool_env_for(tool, out.done, *o.env_snapshot, cmake_version);
  out.json = env_json(tool, out.done, out.result);
  const auto refuse = [&](const error& e, std::string words) {
    out.refused = e;
    out.refusal = std::move(words);
    return std::move(out);
  };
  if (!out.done.result) return refuse(out.done.result.error().summary, out.done.message());
  if (!out.result) return refuse(out.result.error(), out.result.error().message(out.done.spelling));
  out.strict_failed = out.done.strict && !out.result->warnings.empty();
  if (format == env_format::json) {
    out.text = out.json + "\n";
    return out;
  }
  auto lines = env_lines(*out.result, format);
  if (!lines) return refuse(lines.error(), lines.error().message(out.done.spelling));
  out.text = std::move(*lines);
  return out;
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
