// NVRTC as a version source and as the JIT compiler: nvrtcVersion and (11.2 and later)
// nvrtcGetSupportedArchs, of a loaded libnvrtc or of the NVRTC the program links. No CUDA headers:
// the entry points are declared here with their C ABI types.
#pragma once

#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/decode.hpp"
#include "elf_build_id.hpp"
#include "posix/dynamic_library.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// One successful question to a compiler: the observation (with provenance) and what resolution needs.
struct probed_compiler {
  observation seen;
  compiler_info info;
};

/// Gives a source whose `probe()` returns expected<probed_compiler, error> the compiler-source
/// contract, compiler(), and observe() (a report line).
template <class Source>
class probed_source {
 public:
  expected<compiler_info, error> compiler() const {
    auto p = static_cast<const Source&>(*this).probe();
    if (!p) return unexpected(p.error());
    return std::move(p->info);
  }
  expected<observation, error> observe() const {
    auto p = static_cast<const Source&>(*this).probe();
    if (!p) return unexpected(p.error());
    return std::move(p->seen);
  }
};

namespace detail {

/// The NVRTC entry points cuarch calls (count/archs: 11.2 and later). nvrtcResult is an int-sized C enum.
struct nvrtc_calls {
  int (*version)(int*, int*) = nullptr;
  int (*count_archs)(int*) = nullptr;
  int (*archs)(int*) = nullptr;
  const char* (*error_string)(int) = nullptr;
};

inline error nvrtc_failed(std::string_view call, int status, const std::string& where, const nvrtc_calls& c) {
  const char* text = c.error_string ? c.error_string(status) : nullptr;
  return errors::library_call_failed(source_kind::nvrtc, call, status, where,
                                     text ? std::string(text) : "nvrtcResult " + std::to_string(status));
}

/// nvrtcVersion says only major.minor; the real file name (libnvrtc.so.13.0.88) usually carries the
/// full release a JIT cache key needs. Used only when it agrees with nvrtcVersion.
inline cuda_version full_version_from_file_name(const std::string& location, const cuda_version& reported) {
  const std::string real = real_path(location);
  const std::string_view file = std::string_view(real).substr(real.rfind('/') + 1);
  const std::size_t so = file.find(".so.");
  if (so == std::string_view::npos) return reported;
  const auto full = parse_cuda_version(file.substr(so + 4), source_kind::nvrtc);
  return full && full->release() == reported.release() ? *full : reported;
}

/// Asks an NVRTC for its version and archs; `location` is its real path, `image` an address inside it
/// as loaded (the build-id of the code that runs is read there).
inline expected<probed_compiler, error> query_nvrtc(const nvrtc_calls& c, const std::string& location,
                                                    const std::string& found_as, discovery how, const void* image) {
  int major = -1, minor = -1;
  if (const int rc = c.version(&major, &minor); rc != 0)
    return unexpected(nvrtc_failed("nvrtcVersion", rc, location, c));
  const auto version = decode_nvrtc_version(major, minor);
  if (!version) {
    error e = version.error();
    e.location = location;
    e.raw.append("nvrtcVersion returned ").append_int(major).append('.').append_int(minor);
    return unexpected(e);
  }
  // Two builds of one release answer the same nvrtcVersion; the build-id (in the cache key) differs.
  // The mapped image's, else the file's: the file at `location` may have been replaced since the load.
  const std::string mapped = loaded_build_id(image, location);
  const auto on_disk = read_elf_build_id(location);
  const std::string build_id = !mapped.empty() ? mapped : on_disk ? *on_disk : std::string();
  probed_compiler p{{source_kind::nvrtc, *version, found_as.empty() ? location : found_as, how,
                     "nvrtcVersion: " + std::to_string(major) + "." + std::to_string(minor)},
                    {source_kind::nvrtc, full_version_from_file_name(location, *version), location, {}, build_id}};
  if (!mapped.empty() && on_disk && *on_disk != mapped)
    p.seen.raw += "; the file " + location + " was replaced after this process loaded it: it now holds build-id " +
                  *on_disk + ", the loaded library (which keys the cache) has " + mapped +
                  "; restart the process to use the new file";
  if (!c.count_archs || !c.archs) {
    p.seen.raw += "; nvrtcGetSupportedArchs: not in this library (NVRTC before 11.2)";
    return p;
  }
  int n = -1;
  if (const int rc = c.count_archs(&n); rc != 0)
    return unexpected(nvrtc_failed("nvrtcGetNumSupportedArchs", rc, location, c));
  if (n <= 0 || n > 256)
    return unexpected(errors::malformed_output(source_kind::nvrtc, "nvrtcGetNumSupportedArchs", location,
                                               "returned " + std::to_string(n) + " architectures"));
  std::vector<int> archs(static_cast<std::size_t>(n), 0);
  if (const int rc = c.archs(archs.data()); rc != 0)
    return unexpected(nvrtc_failed("nvrtcGetSupportedArchs", rc, location, c));
  p.seen.raw += "; nvrtcGetSupportedArchs:";
  for (const int a : archs) {
    if (!decode_sm_number(a, source_kind::nvrtc))
      return unexpected(errors::malformed_output(source_kind::nvrtc, "nvrtcGetSupportedArchs", location,
                                                 "returned " + std::to_string(a) + ", which is not an sm number"));
    p.seen.raw += " " + std::to_string(a);
  }
  p.info.supported_sm_numbers = std::move(archs);
  return p;
}

/// The entry points of a loaded libnvrtc; symbol_not_found if nvrtcVersion is missing.
inline expected<nvrtc_calls, error> nvrtc_calls_of(const dynamic_library& lib) {
  int (*version)(int*, int*) = nullptr, (*count_archs)(int*) = nullptr, (*archs)(int*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  if (auto e = lib.bind(version, "nvrtcVersion", source_kind::nvrtc)) return unexpected(std::move(*e));
  // Absent before NVRTC 11.2: not errors (left null).
  lib.bind(count_archs, "nvrtcGetNumSupportedArchs", source_kind::nvrtc);
  lib.bind(archs, "nvrtcGetSupportedArchs", source_kind::nvrtc);
  lib.bind(error_string, "nvrtcGetErrorString", source_kind::nvrtc);
  return nvrtc_calls{version, count_archs, archs, error_string};
}

}  // namespace detail

/// The NVRTC sonames, newest major first. NVRTC 11.2-11.8 all use libnvrtc.so.11.2.
inline std::vector<std::string> nvrtc_sonames() {
  return sonames_from_newest("libnvrtc.so", {"libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0"});
}

/// Asks a loaded libnvrtc, bounded by the detection's deadline; `found_as` / `how`: the provenance.
inline expected<probed_compiler, error> probe_nvrtc_library(const dynamic_library& lib, const std::string& found_as,
                                                            discovery how) {
  return detail::bounded_call(
      source_kind::nvrtc, lib.path(), "nvrtcVersion", [lib, found_as, how]() -> expected<probed_compiler, error> {
        const auto calls = detail::nvrtc_calls_of(lib);
        if (!calls) return unexpected(calls.error());
        auto p = detail::query_nvrtc(*calls, lib.path(), found_as, how, lib.raw_symbol("nvrtcVersion"));
        if (p) lib.retain();  // it answered: loaded once per process
        return p;
      });
}

namespace detail {
/// Per process: the answer of the library the loader's search found, per list of names, provenance
/// and LD_LIBRARY_PATH value, so a repeated from_loader() neither tries the absent newer sonames nor asks
/// again (the loader's answer changes only when files are installed; a new process sees them). Only
/// answers are kept (their library is retained for the process anyway); never destroyed.
struct loader_search_answer {
  std::vector<std::string> names;
  discovery how;
  std::string path_env;
  probed_compiler answer;
};
inline std::vector<loader_search_answer>& loader_search_answers() {  // under process_lock
  static auto* v = new std::vector<loader_search_answer>;
  return *v;
}
}  // namespace detail

/// A dynamically loaded NVRTC: a named library file, or the loader's search. Satisfies the
/// compiler-source contract. A named file's answer is kept for the source and its copies while the path
/// names the same file (detail::file_answer_memo); the search's, per process (from_loader()).
class nvrtc_library_source : public probed_source<nvrtc_library_source> {
 public:
  /// A library file; relative only under allow_relative (detection passes absolute_only).
  explicit nvrtc_library_source(std::string path, discovery how = discovery::explicit_argument,
                                library_path_policy policy = library_path_policy::allow_relative)
      : locator_(library_locator::file(std::move(path), policy)), how_(how) {}
  nvrtc_library_source(library_locator where, discovery how) : locator_(std::move(where)), how_(how) {}

  /// The loader's search: libnvrtc.so.<major>, newest first (its answer: detail::loader_search_answers).
  static nvrtc_library_source from_loader() {
    static const auto* const names = new std::vector<std::string>(nvrtc_sonames());
    return {library_locator::search(*names, "libnvrtc.so (any version)"), discovery::loader_search};
  }

  expected<probed_compiler, error> probe() const {
    if (locator_.searches()) return probe_search();
    return memo_->ask(locator_, source_kind::nvrtc,
                      [&](const dynamic_library& lib) { return probe_nvrtc_library(lib, locator_.path, how_); });
  }

 private:
  expected<probed_compiler, error> probe_search() const {
    const char* v = environment::process_value("LD_LIBRARY_PATH");
    const std::string path_env = v ? std::string(v) : std::string("\n(unset)");
    auto& known = detail::loader_search_answers();
    {
      detail::process_lock lock;
      for (const auto& k : known)
        if (k.names == locator_.sonames && k.how == how_ && k.path_env == path_env) return k.answer;
    }
    const auto lib = locator_.load(source_kind::nvrtc);
    if (!lib) return unexpected(lib.error());
    auto p = probe_nvrtc_library(*lib, lib->path(), how_);
    detail::process_lock lock;
    if (p) known.push_back({locator_.sonames, how_, path_env, *p});
    return p;
  }

  library_locator locator_;
  discovery how_ = discovery::explicit_argument;
  std::shared_ptr<detail::file_answer_memo<probed_compiler>> memo_ =
      std::make_shared<detail::file_answer_memo<probed_compiler>>();
};

/// The NVRTC the program links (CUDA::nvrtc), located by dladdr:
/// `cuarch::linked_nvrtc_source nvrtc(&nvrtcVersion, &nvrtcGetNumSupportedArchs, &nvrtcGetSupportedArchs);`
class linked_nvrtc_source : public probed_source<linked_nvrtc_source> {
 public:
  // NVRTC's functions return nvrtcResult, an int-sized C enum: called through the int-returning
  // pointers that dlsym() gives the loaded library's calls (detail::nvrtc_calls).
  template <class VersionFn>
  explicit linked_nvrtc_source(VersionFn* version) {
    static_assert(sizeof(version(nullptr, nullptr)) == sizeof(int), "nvrtcResult is not int-sized");
    calls_.version = reinterpret_cast<int (*)(int*, int*)>(version);
    const void* address = nullptr;
    static_assert(sizeof(address) == sizeof(version), "function and object pointers differ in size");
    std::memcpy(&address, &version, sizeof address);
    location_ = library_of(address);
    image_ = address;
  }
  template <class VersionFn, class CountFn, class ArchsFn>
  linked_nvrtc_source(VersionFn* version, CountFn* count, ArchsFn* archs) : linked_nvrtc_source(version) {
    calls_.count_archs = reinterpret_cast<int (*)(int*)>(count);
    calls_.archs = reinterpret_cast<int (*)(int*)>(archs);
  }

  expected<probed_compiler, error> probe() const {
    return detail::query_nvrtc(calls_, location_, location_, discovery::linked, image_);
  }

 private:
  static std::string library_of(const void* fn) {
    Dl_info info{};
    if (dladdr(fn, &info) == 0 || info.dli_fname == nullptr) return "(linked)";
    const std::string real = detail::real_path(info.dli_fname);
    return real.empty() ? std::string(info.dli_fname) : real;
  }

  detail::nvrtc_calls calls_;
  std::string location_;
  const void* image_ = nullptr;
};

CUARCH_END_NAMESPACE
