// The CUDA driver (libcuda.so.1) as a version source: cuDriverGetVersion (no cuInit, no context):
// the newest CUDA it serves and PTX ISA it can JIT. Loaded by its SONAME or a path the caller gives,
// never from a toolkit's lib64/stubs (whose CUDA_ERROR_STUB_LIBRARY is reported as such).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <iterator>
#include <vector>

#include "../core/decode.hpp"
#include "posix/dynamic_library.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// The driver's SONAME: the only name the loader is asked for.
inline constexpr std::string_view driver_soname = "libcuda.so.1";

namespace detail {

/// The loader's names for the driver, as a list like nvrtc_sonames(): its one SONAME.
inline std::vector<std::string> driver_sonames() { return {std::string(driver_soname)}; }

/// CUresult names of the codes detection can meet (the stub has no cuGetErrorName), and hints.
struct cu_result_text {
  int code;
  std::string_view name, hint;
};
inline constexpr cu_result_text cu_results[] = {
    {1, "CUDA_ERROR_INVALID_VALUE", ""},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", ""},
    {3, "CUDA_ERROR_NOT_INITIALIZED", ""},
    {4, "CUDA_ERROR_DEINITIALIZED", ""},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "this is the CUDA toolkit's stub libcuda (lib64/stubs), not the NVIDIA driver: install the driver, or take the stubs directory out of LD_LIBRARY_PATH"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", ""},
    {100, "CUDA_ERROR_NO_DEVICE", "the driver sees no GPU"},
    {101, "CUDA_ERROR_INVALID_DEVICE", ""},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED", ""},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", ""},
    {801, "CUDA_ERROR_NOT_SUPPORTED", ""},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", ""},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "the user-mode driver (libcuda) and the kernel module are different versions"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "the forward-compatibility libcuda does not support this GPU"},
    {999, "CUDA_ERROR_UNKNOWN", ""},
};

/// The driver entry points cuarch calls (CUresult is an int-sized C enum; CUdevice is int).
struct driver_api {
  dynamic_library lib;
  int (*init)(unsigned) = nullptr;
  int (*driver_get_version)(int*) = nullptr;
  int (*device_get_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*device_get_attribute)(int*, int, int) = nullptr;
  int (*device_get_name)(char*, int, int) = nullptr;
};

inline error driver_call_failed(std::string_view call, int rc, const std::string& where) {
  error e = located_error(rc == 100 ? errc::no_device : errc::library_call_failed, source_kind::driver, call, where, {},
                          rc);
  const auto* t = std::find_if(std::begin(cu_results), std::end(cu_results),
                               [rc](const cu_result_text& r) { return r.code == rc; });
  e.raw.append(call).append(": ");
  if (t == std::end(cu_results)) e.raw.append("CUresult ").append_int(rc);
  else e.raw.append(t->name).append(t->hint.empty() ? "" : "; ").append(t->hint);
  return e;
}

/// The driver version in the first line of /proc/driver/nvidia/version:
///   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun ..." or, for the open modules,
///   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...".
inline std::string parse_kernel_module_line(std::string_view line) {
  constexpr std::string_view key = "Kernel Module";
  line = line.substr(0, line.find('\n'));
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + key.size());
  while (!(rest = trim(rest)).empty()) {
    const std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
    const std::string_view word = rest.substr(0, end);
    if (is_digit(word.front()) && parse_driver_version(word)) return std::string(word);
    rest.remove_prefix(end);
  }
  return {};
}

}  // namespace detail

/// libcuda.so.1 (or a named file): the driver-source contract, `driver_version()`, and its devices.
class driver_library_source {
 public:
  explicit driver_library_source(std::string path, discovery how = discovery::explicit_argument,
                                 library_path_policy policy = library_path_policy::allow_relative)
      : locator_(library_locator::file(std::move(path), policy)), how_(how) {}
  /// The loader's search for libcuda.so.1.
  static driver_library_source from_loader() {
    return driver_library_source(library_locator::search(detail::driver_sonames()), discovery::loader_search);
  }

  /// The library with every entry point resolved; symbol_not_found for the first one missing.
  expected<detail::driver_api, error> load() const {
    auto lib = locator_.load(source_kind::driver);
    if (!lib) return unexpected(lib.error());
    detail::driver_api api{std::move(*lib)};
    const source_kind k = source_kind::driver;
    for (auto e :
         {api.lib.bind(api.driver_get_version, "cuDriverGetVersion", k), api.lib.bind(api.init, "cuInit", k),
          api.lib.bind(api.device_get_count, "cuDeviceGetCount", k), api.lib.bind(api.device_get, "cuDeviceGet", k),
          api.lib.bind(api.device_get_attribute, "cuDeviceGetAttribute", k),
          api.lib.bind(api.device_get_name, "cuDeviceGetName", k)})
      if (e) return unexpected(std::move(*e));
    return api;
  }

  /// cuDriverGetVersion, bounded by the detection's deadline, the library's load included.
  expected<observation, error> driver_version() const {
    return detail::bounded_call(source_kind::driver, library_name(), "cuDriverGetVersion",
                                [self = *this] { return self.driver_version_now(); });
  }

  std::string library_name() const { return locator_.searches() ? std::string(driver_soname) : locator_.path; }

 private:
  expected<observation, error> driver_version_now() const {
    const auto api = load();
    if (!api) return unexpected(api.error());
    int v = -1;
    if (const int rc = api->driver_get_version(&v); rc != 0)
      return unexpected(detail::driver_call_failed("cuDriverGetVersion", rc, api->lib.path()));
    const auto version = detail::reported_version(v, source_kind::driver, api->lib.path(), "cuDriverGetVersion");
    if (!version) return unexpected(version.error());
    observation o{source_kind::driver, *version, locator_.searches() ? api->lib.path() : locator_.path, how_,
                  "cuDriverGetVersion: " + std::to_string(v)};
    // The kernel module's version names the driver branch, which cuDriverGetVersion's number does not. A
    // /proc file (size 0 to fstat): its first line is all that is needed; 4 KiB holds it.
    const auto proc = detail::read_regular_file("/proc/driver/nvidia/version", 4096, source_kind::driver,
                                                detail::read_extent::prefix);
    if (const std::string km = proc ? detail::parse_kernel_module_line(*proc) : ""; !km.empty())
      o.raw += "; kernel module " + km;
    api->lib.retain();  // it answered: loaded once per process
    return o;
  }

  driver_library_source(library_locator where, discovery how) : locator_(std::move(where)), how_(how) {}

  library_locator locator_;
  discovery how_ = discovery::explicit_argument;
};

CUARCH_END_NAMESPACE
