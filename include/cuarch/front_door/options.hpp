// resolve_options (docs/library.md) and the one reading of every option's text (set_option): front
// ends only map their spelling onto option_name, so defaults, grammars and rules cannot drift.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/detail/name_map.hpp"
#include "../core/environment.hpp"
#include "../core/error.hpp"
#include "../core/parse.hpp"
#include "../detect/result.hpp"
#include "../resolve/env_request.hpp"
#include "../resolve/output_format.hpp"
#include "../resolve/policy.hpp"

CUARCH_BEGIN_NAMESPACE

/// Which compiler decides what can be built (docs/library.md, "Which compiler decides").
enum class compile_path : unsigned char { automatic, nvrtc, nvcc };
inline constexpr std::string_view compile_path_names[] = {"auto", "nvrtc", "nvcc"};
inline constexpr auto all_compile_paths = detail::enumerators<compile_path>(compile_path_names);
constexpr std::string_view to_string(compile_path e) noexcept { return detail::name_of(compile_path_names, e); }

/// Where resolution learns the driver's CUDA version, which PTX must not be newer than.
enum class driver_from : unsigned char {
  none,      // not at all: PTX is not checked (right for builds: not the driver that will run it)
  given,     // resolve_options::driver_version
  detected,  // the driver detection finds (libcuda.so.1)
};

/// Text a caller may give or not: `o.archs = "9.0a";` gives it. Not std::optional<std::string>,
/// whose assignment from a literal makes GCC 12 warn -Wmaybe-uninitialized at -O2 in the caller's
/// code (a false positive, but an error under -Werror).
class given_text {
 public:
  given_text() = default;
  given_text(std::string_view text) : text_(text), given_(true) {}             // NOLINT: implicit, as text is
  given_text(const char* text) : given_text(std::string_view(text)) {}         // NOLINT
  given_text(const std::string& text) : given_text(std::string_view(text)) {}  // NOLINT
  explicit operator bool() const noexcept { return given_; }
  const std::string& operator*() const noexcept { return text_; }
  std::string value_or(std::string_view otherwise) const { return given_ ? text_ : std::string(otherwise); }

 private:
  std::string text_;
  bool given_ = false;
};

/// One resolution against this machine; each field has the command line's default (docs/library.md).
struct resolve_options {
  given_text archs;  // not given: "native"
  arch_dialect dialect = arch_dialect::generic;
  std::optional<env_override> env;  // nullopt: CUARCH_ARCHS when archs is not given, else none
  resolve_policy policy;
  bool strict = false;
  compile_path compiler = compile_path::automatic;
  std::optional<cuda_version> toolkit;
  std::optional<std::vector<int>> toolkit_supported_sm;
  std::optional<output_format> output;
  std::string cuda_home, nvrtc, nvcc, cudart, libcuda, ptxas;  // where to look first (empty: not given)
  std::vector<std::string> python_prefixes;
  bool isolated = false;
  std::optional<std::vector<compute_capability>> devices;  // nullopt: the driver's, through NVML
  driver_from driver = driver_from::none;
  cuda_version driver_version{};  // with driver_from::given
  bool cuinit_fallback = true;
  std::string inventory;  // a fleet instead (core/inventory.hpp): its GPU nodes are the devices
  std::chrono::milliseconds timeout = default_detection_deadline;
  const std::atomic<bool>* cancel = nullptr;  // detect_options::cancel (not an option text)
  progress_hook progress;                     // detect_options::progress, and each file inspect_here() reads
  std::optional<environment> env_snapshot;    // nullopt: the process's, snapshotted at the call
  option_speller spelling;                    // how the caller writes an option, in every message (error.hpp)
};

/// The options a front end may set from text: the request and policy, the compiler, where to look,
/// the devices and driver. Listed once: each library name (Python's keyword, the CMake helper's key)
/// is its enumerator's spelling.
#define CUARCH_OPTION_NAMES(X)                                                                                        \
  X(archs), X(dialect), X(env), X(policy), X(native_variant), X(strict), X(compiler), X(toolkit), X(supported_archs), \
      X(output), X(cuda_home), X(nvrtc), X(nvcc), X(cudart), X(libcuda), X(ptxas), X(python_prefix), X(isolated),     \
      X(devices), X(driver), X(cuinit_fallback), X(timeout), X(inventory)
#define CUARCH_OPTION_ENUMERATOR(name) name
#define CUARCH_OPTION_NAME(name) #name
enum class option_name : unsigned char { CUARCH_OPTION_NAMES(CUARCH_OPTION_ENUMERATOR) };
inline constexpr std::string_view option_names[] = {CUARCH_OPTION_NAMES(CUARCH_OPTION_NAME)};
#undef CUARCH_OPTION_NAME
#undef CUARCH_OPTION_ENUMERATOR
#undef CUARCH_OPTION_NAMES
inline constexpr auto all_option_names = detail::enumerators<option_name>(option_names);
constexpr std::string_view to_string(option_name e) noexcept { return detail::name_of(option_names, e); }
constexpr std::optional<option_name> parse_option_name(std::string_view name) noexcept {
  return detail::find_by_name(all_option_names, name);
}

/// What is wrong with an option's text: the words, which the front end prefixes with its spelling of
/// the option, and the parser's error where the text was a value (Python raises ResolveInputError).
struct option_problem {
  option_problem(std::string words, std::optional<error> parsed = std::nullopt)
      : message(std::move(words)), cause(std::move(parsed)) {}
  std::string message;
  std::optional<error> cause;
};

/// Reads `value` into option `name` of `o` (env, policy, python_prefix add to what is there).
CUARCH_FUNC std::optional<option_problem> set_option(resolve_options& o, option_name name, std::string_view value);

/// The first rule between options that is broken (a toolkit named by release cannot also be detected,
/// ...), in the front end's spelling, or nullopt.
CUARCH_FUNC std::optional<std::string> check_options(const resolve_options& o, const option_speller& spell = {});

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include <cstdlib>

#  include "../core/decode.hpp"
#  include "../core/device_list.hpp"
#  include "../resolve/native_variant.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

template <class Names>
std::string one_of(const Names& all) {
  std::string out;
  const std::size_t n = std::size(all);
  for (std::size_t i = 0; i < n; ++i) out.append(i == 0 ? "" : i + 1 == n ? " or " : ", ").append(to_string(all[i]));
  return out;
}

inline std::vector<std::string_view> split_any(std::string_view s, std::string_view separators) {
  std::vector<std::string_view> parts;
  while (!s.empty()) {
    const std::size_t at = s.find_first_of(separators);
    if (const std::string_view part = trim(s.substr(0, at)); !part.empty()) parts.push_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

inline std::optional<bool> read_flag(std::string_view v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  return std::nullopt;
}

}  // namespace detail

CUARCH_FUNC std::optional<option_problem> set_option(resolve_options& o, option_name name, std::string_view value) {
  const auto not_this = [&](const std::string& wanted) {
    return option_problem{wanted + ", not '" + detail::echoed(value) + "'"};
  };
  const auto take = [&](auto& into, auto read, const std::string& wanted) -> std::optional<option_problem> {
    if (!read) return not_this(wanted);
    into = std::move(*read);
    return std::nullopt;
  };
  const auto flag = [&](bool& into) { return take(into, detail::read_flag(value), "takes true or false"); };
  const auto parsed = [&](auto& into, auto read) -> std::optional<option_problem> {
    if (!read) return option_problem{read.error().message(), read.error()};
    into = std::move(*read);
    return std::nullopt;
  };
  switch (name) {
    case option_name::archs: o.archs = value; return std::nullopt;
    case option_name::dialect:
      return take(o.dialect, parse_arch_dialect(value), "must be " + detail::one_of(all_arch_dialects));
    case option_name::env: {
      env_override set = o.env.value_or(env_override::none);
      for (const auto one : detail::split_any(value, ",")) {
        const auto e = parse_env_override(one);
        if (!e)
          return option_problem{"takes " + detail::one_of(all_env_overrides) + " (comma-separated), not '" +
                                detail::echoed(one) + "'"};
        set = set | *e;
      }
      o.env = set;
      return std::nullopt;
    }
    case option_name::policy:
      if (const auto bad = apply_policy_list(value, o.policy))
        return option_problem{"takes " + detail::one_of(all_policy_names) + " (comma-separated), not '" +
                              detail::echoed(*bad) + "'"};
      return std::nullopt;
    case option_name::native_variant: {
      const auto spec = parse_native_variant_spec(value);
      if (!spec) return option_problem{spec.error().message()};
      o.policy.native_preferences = *spec;
      return std::nullopt;
    }
    case option_name::strict: return flag(o.strict);
    case option_name::compiler:
      return take(o.compiler, detail::find_by_name(all_compile_paths, value), "must be nvcc, nvrtc or auto");
    case option_name::toolkit: return parsed(o.toolkit, parse_cuda_version(value));
    case option_name::supported_archs: {
      std::vector<int> sms;
      for (const auto part : detail::split_any(value, ",; ")) {
        int sm = 0;
        if (!detail::parse_uint(part, sm) || !decode_sm_number(sm))
          return option_problem{"takes sm numbers like 75,90,120, not '" + std::string(part) + "'"};
        sms.push_back(sm);
      }
      o.toolkit_supported_sm = std::move(sms);
      return std::nullopt;
    }
    case option_name::output:
      return take(o.output, parse_output_format(value), "must be " + detail::one_of(all_output_formats));
    case option_name::cuda_home: o.cuda_home = std::string(value); return std::nullopt;
    case option_name::nvrtc: o.nvrtc = std::string(value); return std::nullopt;
    case option_name::nvcc: o.nvcc = std::string(value); return std::nullopt;
    case option_name::cudart: o.cudart = std::string(value); return std::nullopt;
    case option_name::libcuda: o.libcuda = std::string(value); return std::nullopt;
    case option_name::ptxas: o.ptxas = std::string(value); return std::nullopt;
    case option_name::python_prefix: o.python_prefixes.emplace_back(value); return std::nullopt;
    case option_name::isolated: return flag(o.isolated);
    case option_name::devices: return parsed(o.devices, parse_device_list(value));
    case option_name::driver: {
      const auto v = parse_cuda_version(value);
      if (!v && value != "detected")
        return option_problem{"takes a CUDA version or 'detected': " + v.error().message(), v.error()};
      o.driver = v ? driver_from::given : driver_from::detected;
      if (v) o.driver_version = *v;
      return std::nullopt;
    }
    case option_name::cuinit_fallback: return flag(o.cuinit_fallback);
    case option_name::inventory: o.inventory = std::string(value); return std::nullopt;
    case option_name::timeout: {
      // A deadline below a millisecond cannot run one probe; an hour is longer than any probe needs.
      const std::string text(value);
      char* end = nullptr;
      const double seconds = std::strtod(text.c_str(), &end);
      // Written so that NaN and infinity fail the range test (<cmath> would cost every includer).
      if (text.empty() || end != text.c_str() + text.size() || !(seconds >= 0.001 && seconds <= 3600))
        return not_this("needs a number of seconds from 0.001 to 3600");
      const double ms = seconds * 1000;
      const auto whole = static_cast<long long>(ms);
      o.timeout = std::chrono::milliseconds(static_cast<double>(whole) < ms ? whole + 1 : whole);  // rounded up
      return std::nullopt;
    }
  }
  return not_this("is not an option");
}

CUARCH_FUNC std::optional<std::string> check_options(const resolve_options& o, const option_speller& spell) {
  const auto n = [&](option_name name) { return spell(to_string(name)); };
  const bool named_nvrtc = !o.nvrtc.empty(), named_nvcc = !o.nvcc.empty();
  if (o.compiler == compile_path::nvrtc && named_nvcc && !named_nvrtc)
    return n(option_name::compiler) + " nvrtc does not use the nvcc that " + n(option_name::nvcc) + " names";
  if (o.compiler == compile_path::nvcc && named_nvrtc && !named_nvcc)
    return n(option_name::compiler) + " nvcc does not use the NVRTC that " + n(option_name::nvrtc) + " names";
  if (o.compiler == compile_path::automatic && named_nvrtc && named_nvcc)
    return n(option_name::nvrtc) + " and " + n(option_name::nvcc) +
           " both name a compiler: say which one compiles with " + n(option_name::compiler) + " nvrtc|nvcc";
  const bool detecting = named_nvrtc || named_nvcc || !o.cuda_home.empty() || !o.python_prefixes.empty() ||
                         o.isolated || o.compiler != compile_path::automatic;
  if (o.toolkit && detecting)
    return n(option_name::toolkit) + " names the compiler by release; " + n(option_name::compiler) + ", " +
           n(option_name::nvcc) + ", " + n(option_name::nvrtc) + ", " + n(option_name::cuda_home) + ", " +
           n(option_name::python_prefix) + " and " + n(option_name::isolated) + " detect one: use one or the other";
  if (o.devices && o.devices->empty()) return n(option_name::devices) + ": " + parse_device_list("").error().message();
  if (!o.inventory.empty() && (o.devices || o.driver != driver_from::none))
    return n(option_name::inventory) + " gives the devices and their drivers, node by node; " +
           n(option_name::devices) + " and " + n(option_name::driver) + " give them too: use one or the other";
  if (o.toolkit_supported_sm && !o.toolkit)
    return n(option_name::supported_archs) + " describes a toolkit named by release: give " + n(option_name::toolkit) +
           " too";
  return std::nullopt;
}

CUARCH_END_NAMESPACE
#endif  // CUARCH_DEFINITIONS
