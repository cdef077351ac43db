// Spelling a whole target set for each consumer: nvcc -gencode flags, NVRTC options (one compile
// per target), CMake CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST, JSON, and a stable JIT cache key.
// A format that cannot express a target says so (errc::not_expressible); nothing is dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/arch.hpp"
#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/format.hpp"
#include "../core/observation.hpp"
#include "compiler_rules.hpp"
#include "resolution.hpp"
#include "target_set.hpp"

CUARCH_BEGIN_NAMESPACE

/// The NVRTC options of one compile: NVRTC builds one target per program.
struct nvrtc_compile {
  arch_target target;
  /// "--gpu-architecture=sm_90a"; LTO IR adds "-dlto" (NVRTC takes the compute_ target then).
  std::vector<std::string> options;
};

/// One nvcc flag per target, in set order (a target_set never holds a pair nvcc refuses in one
/// compilation, check_same_compilation, so these flags never do): "-gencode=arch=compute_90a,code=sm_90a",
/// "-gencode=arch=compute_90,code=compute_90" (PTX), "...,code=lto_90" (LTO IR), and last, for a
/// set with LTO IR, nvcc_lto_flag ("-rdc=true", without which nvcc refuses code=lto_).
CUARCH_FUNC std::vector<std::string> nvcc_gencode_flags(const target_set& targets);

/// The same flags on one line, separated by single spaces (for shells and build scripts).
CUARCH_FUNC std::string nvcc_flags(const target_set& targets);

/// One NVRTC compile per target, in set order.
CUARCH_FUNC std::vector<nvrtc_compile> nvrtc_compiles(const target_set& targets);

/// CMake CUDA_ARCHITECTURES: machine code and PTX of one arch merge into "90", machine code alone
/// is "90-real", PTX alone "90-virtual"; suffixes kept ("90a-real", "100f"). Joined with ';'.
/// `cmake_version` is the CMake that reads it (its CMAKE_VERSION, "3.25.1"; empty: a current one):
/// CMAKE_CUDA_ARCHITECTURES takes `a` from CMake 3.25.0 and `f` from 4.0.2 (docs/conformance.md).
/// Errors: not_expressible for LTO IR (CMake has no spelling for it) and for a suffix that CMake
/// lacks (naming the CMake release that has it); invalid_version for a version that is not M.m.p.
CUARCH_FUNC expected<std::string, error> cmake_architectures(const target_set& targets,
                                                             std::string_view cmake_version = {});

/// TORCH_CUDA_ARCH_LIST: "8.6", "9.0a", "9.0+PTX" (machine code and PTX of one arch; "9.0a+PTX" is
/// sm_90a with compute_90a), joined with ';': what the torch reader (core/parse.hpp) reads back.
/// Errors (not_expressible): PTX without its machine code (PyTorch's +PTX always adds both), any
/// arch PyTorch's supported_arches lacks (8.8, every `f`: "Unknown CUDA arch"), and LTO IR.
CUARCH_FUNC expected<std::string, error> torch_cuda_arch_list(const target_set& targets);

/// A key for a JIT cache, stable across runs and machines (no pointers, no hash seeds), one line:
///   cuarch-jit-key/2 compiler=<kind> version=<version> build=<build-id or "none"> path=<byte length>:<path>
///   targets=<t1>,<t2>,...
/// What each field is and why: docs/design.md, "Outputs and the JIT cache key". Add your source and
/// options to it; hash it with jit_cache_digest() for a file name.
CUARCH_FUNC std::string jit_cache_key(const compiler_info& compiler, const target_set& targets);

/// 16 lowercase hex digits: FNV-1a (64 bit) of the bytes of `key`. Deterministic everywhere.
CUARCH_FUNC std::string jit_cache_digest(std::string_view key);

/// The whole resolution as one JSON document (schema "cuarch.resolve/1", docs/json.md); the cache
/// key only when `compiler` is given.
CUARCH_FUNC std::string to_json(const resolution& r, const compiler_info* compiler = nullptr,
                                const std::vector<resolution_warning>& warnings = {});

/// The same document with the compiler's provenance: its "compiler" also says the path as found
/// and how it was found ("found"), as a failure's does.
CUARCH_FUNC std::string to_json(const resolution& r, const compiler_provenance& compiler,
                                const std::vector<resolution_warning>& warnings = {});

/// A failed resolution as one JSON document (schema "cuarch.resolve/1"): "ok": false, the summary
/// error, and the diagnostics. Who decided and what else would have built it are the front door's
/// (to_json(const resolve_outcome&)); here "compiler" is null and the lists empty.
CUARCH_FUNC std::string to_json(const resolution_failure& f, const option_speller& spell = {});

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "../core/detail/json.hpp"

CUARCH_BEGIN_NAMESPACE

CUARCH_FUNC std::vector<std::string> nvcc_gencode_flags(const target_set& targets) {
  std::vector<std::string> flags;
  flags.reserve(targets.size() + 1);
  bool lto = false;
  for (const auto& t : targets) {
    flags.push_back(gencode_flag(t).str());
    lto = lto || t.form == arch_form::lto;
  }
  if (lto) flags.emplace_back(nvcc_lto_flag);
  return flags;
}

CUARCH_FUNC std::string nvcc_flags(const target_set& targets) {
  std::string line;
  for (const auto& f : nvcc_gencode_flags(targets)) line += (line.empty() ? "" : " ") + f;
  return line;
}

CUARCH_FUNC std::vector<nvrtc_compile> nvrtc_compiles(const target_set& targets) {
  std::vector<nvrtc_compile> compiles;
  compiles.reserve(targets.size());
  for (const auto& t : targets) {
    nvrtc_compile c{t, {nvrtc_arch_option(t).str()}};
    if (t.form == arch_form::lto) c.options.emplace_back("-dlto");
    compiles.push_back(std::move(c));
  }
  return compiles;
}

namespace detail {

/// Spells each (compute capability, variant) of the set, in set order, with f(sass, ptx) (each the
/// form's target or null; the set's order puts them next to each other), joined with ';'. LTO IR,
/// which neither CMake nor PyTorch (`who`) spells, is refused.
template <class F>
expected<std::string, error> join_arch_groups(const target_set& targets, std::string_view format, std::string_view who,
                                              F&& f) {
  std::string out;
  for (std::size_t i = 0; i < targets.size();) {
    const arch_target* forms[3] = {nullptr, nullptr, nullptr};
    const arch_target& first = targets[i];
    for (; i < targets.size() && targets[i].cc == first.cc && targets[i].variant == first.variant; ++i)
      forms[static_cast<std::size_t>(targets[i].form)] = &targets[i];
    if (forms[2])
      return unexpected(errors::not_expressible(source_kind::none, *forms[2], format,
                                                std::string(who) + " has no spelling for LTO IR"));
    const expected<std::string, error> entry = f(forms[0], forms[1]);
    if (!entry) return entry;
    out.append(out.empty() ? "" : ";").append(*entry);
  }
  return out;
}

/// The first CMake release whose CMAKE_CUDA_ARCHITECTURES takes the suffix of v: its validation regex
/// gained `a?` in 3.25.0 and `(a|f)?` in 4.0.2 (the commits: docs/conformance.md). The CUDA_ARCHITECTURES
/// property is passed through unchecked, but the variable a project sets before enable_language(CUDA) is refused.
constexpr cuda_version cmake_spells_from(arch_variant v) noexcept {
  switch (v) {
    case arch_variant::arch_specific: return {3, 25, 0};
    case arch_variant::family_specific: return {4, 0, 2};
    case arch_variant::baseline: break;
  }
  return {3, 18, 0};  // CUDA_ARCHITECTURES itself
}

}  // namespace detail

CUARCH_FUNC expected<std::string, error> cmake_architectures(const target_set& targets, std::string_view cmake_version) {
  // CMAKE_VERSION: M.m.p, then anything ("-rc1", a dev build's "-g1234"); M.m.p is compared.
  cuda_version cmake{99, 99, 99};
  detail::text<96> format("CMake CUDA_ARCHITECTURES");
  if (!cmake_version.empty()) {
    std::string_view s = cmake_version;
    int* parts[] = {&cmake.major, &cmake.minor, &cmake.patch};
    for (std::size_t i = 0; i < 3; ++i) {
      const std::size_t n = detail::read_uint(s, *parts[i]);
      if (n == 0 || (i < 2 && (n == s.size() || s[n] != '.')))
        return unexpected(errors::invalid_version(source_kind::user_input, cmake_version));
      s.remove_prefix(i < 2 ? n + 1 : n);
    }
    format = "CMake ";
    format.append(cmake_version).append(" CUDA_ARCHITECTURES");
  }
  return detail::join_arch_groups(
      targets, format.view(), "CMake",
      [&](const arch_target* sass, const arch_target* ptx) -> expected<std::string, error> {
        const arch_target& t = sass ? *sass : *ptx;
        const cuda_version since = detail::cmake_spells_from(t.variant);
        if (cmake < since) {
          detail::text<200> why("its CMAKE_CUDA_ARCHITECTURES takes the '");
          why.append(suffix(t.variant)).append("' suffix from CMake ").append(to_text(since).view());
          why.append(" on; use CMake >= ").append(to_text(since).view()).append(", or ask for ");
          if (t.variant == arch_variant::family_specific)
            why.append(to_text(arch_target{t.cc, arch_variant::arch_specific, t.form}).view()).append(" or ");
          why.append(to_text(arch_target{t.cc, arch_variant::baseline, t.form}).view());
          return unexpected(errors::not_expressible(source_kind::none, t, format.view(), why.view()));
        }
        const auto entry = cmake_spelling(t, sass && ptx);
        if (!entry) return unexpected(entry.error());
        return std::string(entry->view());
      });
}

CUARCH_FUNC expected<std::string, error> torch_cuda_arch_list(const target_set& targets) {
  constexpr std::string_view format = "TORCH_CUDA_ARCH_LIST";
  return detail::join_arch_groups(
      targets, format, "PyTorch", [&](const arch_target* sass, const arch_target* ptx) -> expected<std::string, error> {
        if (!sass)
          return unexpected(errors::not_expressible(
              source_kind::none, *ptx, format, "+PTX always adds the machine code too; PTX alone has no spelling"));
        if (!detail::torch_supports(dotted(*sass).view()))  // the list the torch reader holds input to
          return unexpected(
              errors::not_expressible(source_kind::none, *sass, format,
                                      "PyTorch 2.15.0's _get_cuda_arch_flags rejects it (\"Unknown CUDA arch\"): "
                                      "not in its supported_arches (no 8.8, no f)"));
        return std::string(dotted(*sass).view()) + (ptx ? "+PTX" : "");
      });
}

CUARCH_FUNC std::string jit_cache_key(const compiler_info& compiler, const target_set& targets) {
  std::string key = "cuarch-jit-key/2 compiler=";
  key.append(to_string(compiler.kind)).append(" version=").append(to_text(compiler.version).view());
  key.append(" build=").append(compiler.build_id.empty() ? "none" : compiler.build_id);
  key.append(" path=").append(std::to_string(compiler.location.size())).append(":").append(compiler.location);
  key.append(" targets=");
  for (std::size_t i = 0; i < targets.size(); ++i) key.append(i ? "," : "").append(to_text(targets[i]).view());
  return key;
}

CUARCH_FUNC std::string jit_cache_digest(std::string_view key) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (std::size_t i = 0; i < 16; ++i) out[15 - i] = hex[(h >> (4 * i)) & 0xf];
  return out;
}

namespace detail {

inline void json_target(json_writer& w, const arch_target& t) {
  w.begin_object().key("name").value(to_text(t).view()).key("cc").value(to_text(t.cc).view());
  w.key("variant").value(to_string(t.variant)).key("form").value(to_string(t.form)).end_object();
}

inline void json_diagnostics(json_writer& w, const std::vector<diagnostic>& diags, const option_speller& spell = {}) {
  json_objects(w.key("diagnostics"), diags, [&](const diagnostic& d) {
    w.key("input").value(d.input.view());
    json_index(w.key("position"),
               d.position == error::no_position ? std::nullopt : std::optional<std::size_t>(d.position));
    w.key("device");
    if (d.device) {
      w.begin_object().key("ordinal").value(d.device->ordinal).key("cc").value(to_text(d.device->cc).view());
      w.key("name").value(d.device->name.view()).end_object();
    } else {
      w.null();
    }
    w.key("requested").value(to_text(d.requested).view()).key("outcome").value(to_string(d.outcome));
    text_or_null(w.key("result"), d.result);
    w.key("decided_by").value(to_string(d.decided_by)).key("reason");
    json_optional_error(w, d.reason, spell);
    w.key("ptx_fallback").value(to_string(d.fallback)).key("ptx_fallback_error");
    json_optional_error(w, d.fallback_error, spell);
    text_or_null(w.key("preference"), d.preference.view());  // native: the variant rule that applied
    text_or_null(w.key("note"), d.note.view());
    w.key("message").value(d.message(spell));
  });
}

inline void json_spelling(json_writer& w, std::string_view name, const expected<std::string, error>& s) {
  const std::string error_key = std::string(name) + "_error";
  if (s) w.key(name).value(*s).key(error_key).null();
  else json_error(w.key(name).null().key(error_key), s.error());
}

/// A compiler object with the keys of a success's "compiler" (kind, version, location,
/// supported_sm_numbers, table_older_than_compiler), plus where it was found ("path" as found,
/// "found" in words: null when the caller passed a value) and, for an alternative, its "fix".
inline void json_compiler_provenance(json_writer& w, const compiler_provenance& p, bool with_fix) {
  w.begin_object().key("kind").value(to_string(p.compiler.kind)).key("version").value(to_text(p.compiler.version).view());
  w.key("location").value(p.compiler.location).key("supported_sm_numbers").value(p.compiler.supported_sm_numbers);
  w.key("table_older_than_compiler").value(table_is_older_than(p.compiler));
  text_or_null(w.key("path").value(p.path.empty() ? p.compiler.location : p.path).key("found"), p.found);
  text_or_null(w.key("how"), p.how);
  text_or_null(w.key("origin"), p.origin);
  text_or_null(w.key("why"), p.why);
  if (with_fix) w.key("fix").value(p.fix);
  w.end_object();
}

inline void json_warnings(json_writer& w, const std::vector<resolution_warning>& warnings) {
  json_objects(w.key("warnings"), warnings, [&](const resolution_warning& x) {
    w.key("kind").value(x.kind).key("what").value(x.what).key("meaning").value(x.meaning);
  });
}

/// The success document; `compiler` null: only what the resolution knows of its compiler.
inline std::string resolution_json(const resolution& r, const compiler_provenance* compiler,
                                   const std::vector<resolution_warning>& warnings) {
  detail::json_writer w;
  detail::begin_document(w, json_schema::resolve).key("ok").value(true);
  text_or_null(w.key("request").begin_object().key("keyword"), to_string(r.keyword));  // null for an explicit list
  text_or_null(w.key("origin").value(to_string(r.origin.source)).key("variable"), r.origin.variable).end_object();
  w.key("compiler");
  if (compiler) {
    detail::json_compiler_provenance(w, *compiler, false);  // the same object as a failure's
  } else {
    w.begin_object().key("kind").value(to_string(r.compiler_kind)).key("version").value(to_text(r.compiler_version).view());
    w.key("table_older_than_compiler").value(r.table_older_than_compiler).end_object();
  }
  w.key("targets").begin_array();
  for (const auto& t : r.targets) detail::json_target(w, t);
  w.end_array();
  w.key("nvcc").value(nvcc_gencode_flags(r.targets));
  json_objects(w.key("nvrtc"), nvrtc_compiles(r.targets), [&](const nvrtc_compile& c) {
    w.key("target").value(to_text(c.target).view()).key("options").value(c.options);
  });
  detail::json_spelling(w, "cmake", cmake_architectures(r.targets));
  detail::json_spelling(w, "torch", torch_cuda_arch_list(r.targets));
  if (compiler) w.key("cache_key").value(jit_cache_key(compiler->compiler, r.targets));
  detail::json_warnings(w, warnings);
  detail::json_diagnostics(w, r.diagnostics);
  w.end_object();
  return w.str();
}

/// The failure document: `f`, who decided (null: none), every alternative with its fix, the places
/// searched and the warnings. The front door passes what it knows (front_door/resolve_outcome.hpp).
inline std::string failure_json(const resolution_failure& f, const compiler_provenance* compiler,
                                const std::vector<compiler_provenance>& alternatives,
                                const std::vector<std::string>& searched,
                                const std::vector<resolution_warning>& warnings, const option_speller& spell) {
  json_writer w;
  begin_document(w, json_schema::resolve).key("ok").value(false).key("error");
  json_error(w, f.summary, spell);
  w.key("compiler");  // null when none decided
  if (compiler) json_compiler_provenance(w, *compiler, false);
  else w.null();
  w.key("alternatives").begin_array();
  for (const auto& a : alternatives) json_compiler_provenance(w, a, true);
  w.end_array().key("searched").value(searched);
  json_warnings(w, warnings);
  json_diagnostics(w, f.diagnostics, spell);
  w.end_object();
  return w.str();
}

}  // namespace detail

CUARCH_FUNC std::string to_json(const resolution& r, const compiler_info* compiler,
                                const std::vector<resolution_warning>& warnings) {
  if (!compiler) return detail::resolution_json(r, nullptr, warnings);
  const compiler_provenance p = bare_provenance(*compiler);
  return detail::resolution_json(r, &p, warnings);
}

CUARCH_FUNC std::string to_json(const resolution& r, const compiler_provenance& compiler,
                                const std::vector<resolution_warning>& warnings) {
  return detail::resolution_json(r, &compiler, warnings);
}

CUARCH_FUNC std::string to_json(const resolution_failure& f, const option_speller& spell) {
  return detail::failure_json(f, nullptr, {}, {}, {}, spell);
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
