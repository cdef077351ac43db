// NVML (libnvidia-ml.so.1) as a device source: the GPUs and their compute capabilities without cuInit,
// which breaks a fork()ed child; NVML is shut down again after the query. Also a driver-version
// source (nvmlSystemGetCudaDriverVersion_v2: what cuDriverGetVersion returns).
//
// NVML API facts, from nvml.h (github.com/NVIDIA/go-nvml pkg/nvml/nvml.h, NVML_API_VERSION 13; the
// NVML API reference at docs.nvidia.com/deploy/nvml-api/): the entry points and their C types are
// those of nvml_api below; nvmlReturn_t is an int-sized C enum, NVML_SUCCESS = 0;
// nvmlInit_v2 / nvmlShutdown are reference counted. "The NVML index may not correlate with other APIs,
// such as the CUDA device index": the GPUs are therefore put in PCI bus order (nvmlDeviceGetPciInfo_v3)
// before the CUDA rules apply. The other constants are named where they are used.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <array>
#include <utility>
#include <vector>

#include "../core/compute_capability.hpp"
#include "../core/observation.hpp"
#include "cuda_visible_devices.hpp"
#include "posix/dynamic_library.hpp"

CUARCH_BEGIN_NAMESPACE

/// NVML's SONAME: the only name the loader is asked for (never a relative path).
inline constexpr std::string_view nvml_soname = "libnvidia-ml.so.1";

/// The variables the visibility rules read. Unset and empty differ.
struct device_visibility_env {
  std::optional<std::string> visible_devices;  // CUDA_VISIBLE_DEVICES
  std::optional<std::string> device_order;     // CUDA_DEVICE_ORDER
  static device_visibility_env from(const environment& env) {
    return {env.get("CUDA_VISIBLE_DEVICES"), env.get("CUDA_DEVICE_ORDER")};
  }
};

/// What a device source read: the devices in CUDA ordinal order, how, and the notes a report shows.
struct device_reading {
  std::vector<device_info> devices;
  std::vector<std::string> uuids;  // per device, "GPU-..." or "MIG-..."; empty strings where unknown
  std::string via;                 // "NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.95.05)"
  std::vector<std::string> notes;
};

/// The devices of a reading (the device-source contract's `devices()`).
inline expected<std::vector<device_info>, error> devices_of(expected<device_reading, error> r) {
  if (!r) return unexpected(std::move(r.error()));
  return std::move(r->devices);
}

namespace detail {

inline error nvml_call_failed(std::string_view call, int rc, const std::string& where) {
  // nvmlReturn_t names (nvml.h, enum nvmlReturn_enum) less their NVML_ERROR_ prefix: 1 to 29, then 999.
  // clang-format off
  constexpr std::string_view names[] = {
      /*  1 */ "UNINITIALIZED", "INVALID_ARGUMENT", "NOT_SUPPORTED", "NO_PERMISSION", "ALREADY_INITIALIZED",
      /*  6 */ "NOT_FOUND", "INSUFFICIENT_SIZE", "INSUFFICIENT_POWER", "DRIVER_NOT_LOADED", "TIMEOUT",
      /* 11 */ "IRQ_ISSUE", "LIBRARY_NOT_FOUND", "FUNCTION_NOT_FOUND", "CORRUPTED_INFOROM", "GPU_IS_LOST",
      /* 16 */ "RESET_REQUIRED", "OPERATING_SYSTEM", "LIB_RM_VERSION_MISMATCH", "IN_USE", "MEMORY",
      /* 21 */ "NO_DATA", "VGPU_ECC_NOT_SUPPORTED", "INSUFFICIENT_RESOURCES", "FREQ_NOT_SUPPORTED", "ARGUMENT_VERSION_MISMATCH",
      /* 26 */ "DEPRECATED", "NOT_READY", "GPU_NOT_FOUND", "INVALID_STATE"};
  // clang-format on
  static_assert(sizeof names / sizeof names[0] == 29, "names[rc - 1] for rc 1 to 29");
  const std::string_view name = rc >= 1 && rc <= 29 ? names[rc - 1] : rc == 999 ? "UNKNOWN" : "";
  const std::string_view hint = rc == 9    ? "the NVIDIA kernel driver is not loaded"
                                : rc == 4  ? "no permission to talk to the driver (/dev/nvidia*)"
                                : rc == 18 ? "libnvidia-ml and the kernel module are different driver versions"
                                           : "";
  error e = errors::library_call_failed(source_kind::driver, call, rc, where);
  e.raw.append(call)
      .append(": ")
      .append(name.empty() ? "nvmlReturn_t" : "NVML_ERROR_")
      .append(name)
      .append(" (")
      .append_int(rc)
      .append(')');
  if (!hint.empty()) e.raw.append("; ").append(hint);
  return e;
}

using nvml_device = struct nvml_device_opaque*;  // nvmlDevice_t

/// nvml.h's nvmlPciInfo_t, as nvmlDeviceGetPciInfo_v3 fills it.
struct nvml_pci_info {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
static_assert(sizeof(nvml_pci_info) == 68, "nvmlPciInfo_t is 68 bytes");

/// The NVML entry points cuarch calls.
struct nvml_api {
  dynamic_library lib;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*device_get_count)(unsigned*) = nullptr;
  int (*device_get_handle_by_index)(unsigned, nvml_device*) = nullptr;
  int (*device_get_cuda_compute_capability)(nvml_device, int*, int*) = nullptr;
  int (*device_get_name)(nvml_device, char*, unsigned) = nullptr;
  int (*device_get_uuid)(nvml_device, char*, unsigned) = nullptr;
  // optional
  int (*device_get_pci_info)(nvml_device, nvml_pci_info*) = nullptr;
  int (*device_get_mig_mode)(nvml_device, unsigned*, unsigned*) = nullptr;
  int (*device_get_max_mig_device_count)(nvml_device, unsigned*) = nullptr;
  int (*device_get_mig_device_handle_by_index)(nvml_device, unsigned, nvml_device*) = nullptr;
  int (*system_get_cuda_driver_version)(int*) = nullptr;
};

/// nvmlInit_v2, and nvmlShutdown when the returned guard goes: NVML holds nothing open after a query.
inline expected<std::shared_ptr<void>, error> nvml_session(const nvml_api& api) {
  if (const int rc = api.init(); rc != 0) return unexpected(nvml_call_failed("nvmlInit_v2", rc, api.lib.path()));
  return std::shared_ptr<void>(nullptr, [shutdown = api.shutdown](void*) { shutdown(); });
}

/// A name or UUID from NVML (buffer size 96: NVML_DEVICE_*_V2_BUFFER_SIZE); "" when the call fails.
inline std::string nvml_text(int (*get)(nvml_device, char*, unsigned), nvml_device device, int& rc) {
  char buf[96] = {};
  rc = get(device, buf, static_cast<unsigned>(sizeof buf));
  return rc == 0 ? std::string(buf, ::strnlen(buf, sizeof buf)) : std::string();
}

/// Every GPU NVML reports (before CUDA_VISIBLE_DEVICES), what to note about the list, and the library.
struct nvml_gpu_list {
  std::vector<enumerated_gpu> gpus;  // PCI bus order
  std::vector<std::string> notes;
  std::string library;  // real path of the libnvidia-ml that answered
};

}  // namespace detail

/// The GPUs NVML reports, as CUDA would show them: the device-source contract (`devices()`) and the
/// driver-source contract (`driver_version()`).
class nvml_device_source {
 public:
  /// The loader's search for libnvidia-ml.so.1; the process environment, read per query.
  nvml_device_source() = default;
  /// A named library file (absolute, unless `policy` allows a relative path the caller gave).
  explicit nvml_device_source(std::string path, discovery how = discovery::explicit_argument,
                              library_path_policy policy = library_path_policy::absolute_only)
      : path_(std::move(path)), how_(how), policy_(policy) {}

  /// Uses these variables instead of the process environment.
  nvml_device_source& with_environment(device_visibility_env env) {
    env_ = std::move(env);
    return *this;
  }

  /// The devices CUDA would show, with notes. no_device when none is visible (naming
  /// CUDA_VISIBLE_DEVICES); invalid_environment when it names a device twice (cuInit then fails);
  /// library_call_failed when only cuInit can say (see system_device_source).
  expected<device_reading, error> read() const {
    const auto listed = gpus();
    if (!listed) return unexpected(listed.error());
    const std::vector<enumerated_gpu>& all = listed->gpus;
    const device_visibility_env env = env_ ? *env_ : device_visibility_env::from(environment::from_process());
    const device_visibility vis = apply_cuda_visible_devices(all, env.visible_devices,
                                                             parse_cuda_device_order(env.device_order));
    const std::string& where = listed->library;
    if (vis.needs_driver) {
      return unexpected(errors::library_call_failed(source_kind::driver, "CUDA_VISIBLE_DEVICES", 0, where,
                                                    "NVML cannot answer: " + vis.ended));
    }
    if (vis.duplicate) {  // the driver's cuInit fails outright: say so, not "no device"
      return unexpected(errors::invalid_environment(source_kind::environment, "CUDA_VISIBLE_DEVICES",
                                                    *env.visible_devices,
                                                    vis.ended + ", so no CUDA call can work in this process"));
    }
    device_reading r;
    r.via = "NVML (" + where + ")";
    r.notes = listed->notes;
    for (std::size_t i = 0; i < vis.devices.size(); ++i) {
      const visible_device& v = vis.devices[i];
      const enumerated_gpu& g = all[v.gpu];
      r.devices.push_back(
          device_info{static_cast<int>(i), compute_capability{g.cc_major, g.cc_minor}, g.name, source_kind::driver});
      r.uuids.push_back(v.mig < 0 ? g.uuid : g.mig_uuids[static_cast<std::size_t>(v.mig)]);
    }
    if (!vis.ended.empty()) r.notes.push_back("CUDA_VISIBLE_DEVICES=\"" + *env.visible_devices + "\": " + vis.ended);
    if (vis.order_guessed)
      r.notes.push_back(
          "CUDA_DEVICE_ORDER=FASTEST_FIRST (the default) among different GPUs: the driver's order is approximated "
          "by compute capability, highest first; set CUDA_DEVICE_ORDER=PCI_BUS_ID for an exact order");
    if (vis.mig_guessed)
      r.notes.push_back(
          "MIG devices are enumerated as NVML lists them; CUDA's MIG enumeration is not documented precisely");
    if (r.devices.empty()) {
      error e = errors::no_device(source_kind::driver, {}, "nvmlDeviceGetCount_v2", where);
      e.raw.append("NVML: ").append_int(static_cast<long long>(all.size())).append(" GPU(s)");
      if (env.visible_devices)
        e.raw.append("; CUDA_VISIBLE_DEVICES=\"").append(*env.visible_devices).append("\" limits what the driver shows");
      if (!vis.ended.empty()) e.raw.append(": ").append(vis.ended);
      return unexpected(e);
    }
    return r;
  }

  expected<std::vector<device_info>, error> devices() const { return devices_of(read()); }

  /// nvmlSystemGetCudaDriverVersion_v2: the CUDA version the driver serves. Bounded like gpus().
  expected<observation, error> driver_version() const {
    return detail::bounded_call(source_kind::driver, library_name(), "nvmlSystemGetCudaDriverVersion_v2",
                                [self = *this] { return self.driver_version_now(); });
  }

 private:
  expected<detail::nvml_api, error> load() const {
    auto lib = path_.empty() ? load_library_by_name(std::string(nvml_soname), source_kind::driver)
                             : load_library_file(path_, source_kind::driver, policy_);
    if (!lib) return unexpected(lib.error());
    detail::nvml_api api{std::move(*lib)};
    const source_kind k = source_kind::driver;
    for (auto e : {api.lib.bind(api.init, "nvmlInit_v2", k), api.lib.bind(api.shutdown, "nvmlShutdown", k),
                   api.lib.bind(api.device_get_count, "nvmlDeviceGetCount_v2", k),
                   api.lib.bind(api.device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2", k),
                   api.lib.bind(api.device_get_cuda_compute_capability, "nvmlDeviceGetCudaComputeCapability", k),
                   api.lib.bind(api.device_get_name, "nvmlDeviceGetName", k),
                   api.lib.bind(api.device_get_uuid, "nvmlDeviceGetUUID", k)})
      if (e) return unexpected(std::move(*e));
    // Optional: absent from older libraries (left null). The symbol_not_found errors are ignored.
    api.lib.bind(api.device_get_pci_info, "nvmlDeviceGetPciInfo_v3", k);
    api.lib.bind(api.device_get_mig_mode, "nvmlDeviceGetMigMode", k);
    api.lib.bind(api.device_get_max_mig_device_count, "nvmlDeviceGetMaxMigDeviceCount", k);
    api.lib.bind(api.device_get_mig_device_handle_by_index, "nvmlDeviceGetMigDeviceHandleByIndex", k);
    api.lib.bind(api.system_get_cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2", k);
    return api;
  }

  /// Every GPU NVML reports, in PCI bus order (else NVML's), before CUDA_VISIBLE_DEVICES; those NVML
  /// counts but may not open (NVML_ERROR_NO_PERMISSION) are left out and noted. Bounded, the load included.
  expected<detail::nvml_gpu_list, error> gpus() const {
    return detail::bounded_call(source_kind::driver, library_name(), "nvmlInit_v2 and the device queries",
                                [self = *this] { return self.gpus_now(); });
  }
  std::string library_name() const { return path_.empty() ? std::string(nvml_soname) : path_; }

  expected<detail::nvml_gpu_list, error> gpus_now() const {
    const auto api = load();
    if (!api) return unexpected(api.error());
    const std::string& where = api->lib.path();
    const auto failed = [&](std::string_view call, int rc) {
      return unexpected(detail::nvml_call_failed(call, rc, where));
    };
    const auto session = detail::nvml_session(*api);
    if (!session) return unexpected(session.error());
    api->lib.retain();  // it answered: loaded once per process
    unsigned count = 0;
    if (const int rc = api->device_get_count(&count); rc != 0) return failed("nvmlDeviceGetCount_v2", rc);
    detail::nvml_gpu_list out;
    out.library = where;
    std::vector<std::pair<std::array<unsigned, 3>, enumerated_gpu>> found;  // PCI domain, bus, device; the GPU
    bool all_pci = api->device_get_pci_info != nullptr;
    for (unsigned i = 0; i < count; ++i) {
      detail::nvml_device h = nullptr;
      if (const int rc = api->device_get_handle_by_index(i, &h);
          rc == 4) {  // NVML_ERROR_NO_PERMISSION: not usable (nor by CUDA)
        out.notes.push_back("NVML GPU " + std::to_string(i) + " left out: NVML_ERROR_NO_PERMISSION");
        continue;
      } else if (rc != 0) {
        return failed("nvmlDeviceGetHandleByIndex_v2", rc);
      }
      enumerated_gpu g;
      if (const int rc = api->device_get_cuda_compute_capability(h, &g.cc_major, &g.cc_minor); rc != 0)
        return failed("nvmlDeviceGetCudaComputeCapability", rc);
      if (auto e = detail::implausible_cc(g.cc_major, g.cc_minor, "nvmlDeviceGetCudaComputeCapability", where,
                                          "NVML GPU " + std::to_string(i)))
        return unexpected(std::move(*e));
      int rc = 0;
      g.uuid = detail::nvml_text(api->device_get_uuid, h, rc);
      if (rc != 0) return failed("nvmlDeviceGetUUID", rc);
      g.name = detail::nvml_text(api->device_get_name, h, rc);
      detail::nvml_pci_info p{};
      all_pci = all_pci && api->device_get_pci_info(h, &p) == 0;
      unsigned current = 0, pending = 0, max_migs = 0;
      if (api->device_get_mig_mode && api->device_get_mig_mode(h, &current, &pending) == 0 &&
          current == 1) {  // NVML_DEVICE_MIG_ENABLE
        g.mig_enabled = true;
        if (!api->device_get_max_mig_device_count || !api->device_get_mig_device_handle_by_index)
          out.notes.push_back("NVML GPU " + std::to_string(i) + " is in MIG mode, but this NVML cannot list MIG devices");
        else if (const int mrc = api->device_get_max_mig_device_count(h, &max_migs); mrc != 0)
          return failed("nvmlDeviceGetMaxMigDeviceCount", mrc);
      }
      for (unsigned m = 0; m < max_migs; ++m) {
        detail::nvml_device mh = nullptr;
        rc = api->device_get_mig_device_handle_by_index(h, m, &mh);
        if (rc == 6) continue;  // NVML_ERROR_NOT_FOUND: no MIG device at this index
        if (rc != 0) return failed("nvmlDeviceGetMigDeviceHandleByIndex", rc);
        g.mig_uuids.push_back(detail::nvml_text(api->device_get_uuid, mh, rc));
        if (rc != 0) return failed("nvmlDeviceGetUUID", rc);
      }
      found.push_back({{p.domain, p.bus, p.device}, std::move(g)});
    }
    if (all_pci)
      std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    else if (found.size() > 1)
      out.notes.push_back("NVML gave no PCI bus id for every GPU: NVML's index order is taken as PCI bus order");
    for (auto& f : found) out.gpus.push_back(std::move(f.second));
    return out;
  }

  expected<observation, error> driver_version_now() const {
    const auto api = load();
    if (!api) return unexpected(api.error());
    const std::string& where = api->lib.path();
    if (!api->system_get_cuda_driver_version)
      return unexpected(errors::symbol_not_found(source_kind::driver, "nvmlSystemGetCudaDriverVersion_v2", where));
    const auto session = detail::nvml_session(*api);
    if (!session) return unexpected(session.error());
    int v = -1;
    if (const int rc = api->system_get_cuda_driver_version(&v); rc != 0)
      return unexpected(detail::nvml_call_failed("nvmlSystemGetCudaDriverVersion_v2", rc, where));
    const auto version = detail::reported_version(v, source_kind::driver, where, "nvmlSystemGetCudaDriverVersion_v2");
    if (!version) return unexpected(version.error());
    api->lib.retain();
    return observation{source_kind::driver, *version, where, path_.empty() ? discovery::loader_search : how_,
                       "nvmlSystemGetCudaDriverVersion_v2: " + std::to_string(v)};
  }

  std::string path_;  // empty: the loader's search for libnvidia-ml.so.1
  discovery how_ = discovery::loader_search;
  library_path_policy policy_ = library_path_policy::absolute_only;
  std::optional<device_visibility_env> env_;
};

CUARCH_END_NAMESPACE
