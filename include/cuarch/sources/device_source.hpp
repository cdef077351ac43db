// Device sources: the GPUs code will run on (docs/design.md, "Devices without touching CUDA"). No
// visible device is a typed error (no_device): never a default architecture.
#pragma once

#include <string>
#include <vector>

#include "driver_source.hpp"
#include "nvml_device_source.hpp"
#include "../resolve/fixed_sources.hpp"

CUARCH_BEGIN_NAMESPACE

/// The GPUs the driver shows this process, after cuInit(0) (no context); libcuda then stays mapped.
/// Satisfies the device-source contract: `devices()`.
class driver_device_source {
 public:
  driver_device_source() : driver_(driver_library_source::from_loader()) {}
  explicit driver_device_source(driver_library_source driver) : driver_(std::move(driver)) {}

  /// Bounded by the detection's deadline (posix/bounded_call.hpp), cuInit and the load included.
  expected<std::vector<device_info>, error> devices() const {
    return detail::bounded_call(source_kind::driver, driver_.library_name(), "cuInit and the device queries",
                                [self = *this] { return self.devices_now(); });
  }

 private:
  expected<std::vector<device_info>, error> devices_now() const {
    const auto api = driver_.load();
    if (!api) return unexpected(api.error());
    const std::string& where = api->lib.path();
    const auto failed = [&](std::string_view call, int rc) {
      return unexpected(detail::driver_call_failed(call, rc, where));
    };
    if (const int rc = api->init(0); rc != 0)
      return unexpected(with_visibility(detail::driver_call_failed("cuInit", rc, where)));
    // After cuInit the driver has started threads and registered exit handlers: never unmapped.
    api->lib.retain();
    int count = -1;
    if (const int rc = api->device_get_count(&count); rc != 0)
      return unexpected(with_visibility(detail::driver_call_failed("cuDeviceGetCount", rc, where)));
    if (count <= 0)
      return unexpected(with_visibility(errors::no_device(
          source_kind::driver, "cuDeviceGetCount: " + std::to_string(count), "cuDeviceGetCount", where)));
    std::vector<device_info> out;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      int dev = -1, major = -1, minor = -1;
      if (const int rc = api->device_get(&dev, ordinal); rc != 0) return failed("cuDeviceGet", rc);
      if (const int rc = api->device_get_attribute(&major, 75, dev);
          rc != 0)  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        return failed("cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)", rc);
      if (const int rc = api->device_get_attribute(&minor, 76, dev);
          rc != 0)  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
        return failed("cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", rc);
      if (auto e = detail::implausible_cc(major, minor, "cuDeviceGetAttribute", where,
                                          "device " + std::to_string(ordinal)))
        return unexpected(std::move(*e));
      char name[256] = {};
      if (const int rc = api->device_get_name(name, static_cast<int>(sizeof name - 1), dev); rc != 0)
        return failed("cuDeviceGetName", rc);
      out.push_back(device_info{ordinal, compute_capability{major, minor}, name, source_kind::driver});
    }
    return out;
  }

  /// Names CUDA_VISIBLE_DEVICES when it hides the GPUs: the process's own, which cuInit reads.
  static error with_visibility(error e) {
    if (e.code != errc::no_device) return e;
    if (const char* v = environment::process_value("CUDA_VISIBLE_DEVICES"))
      e.raw.append("; CUDA_VISIBLE_DEVICES=\"").append(v).append("\" limits what the driver shows");
    return e;
  }

  driver_library_source driver_;
};

/// Whether system_device_source may call cuInit when NVML cannot answer.
enum class cuinit_fallback : unsigned char { allowed, forbidden };

/// The default device source: NVML first (no CUDA initialisation); cuInit only where NVML is
/// unavailable or cannot answer (a CUDA_VISIBLE_DEVICES form it cannot map), and the notes then say so.
/// NVML's "no device is visible" is an answer, never retried through cuInit. `devices()`.
class system_device_source {
 public:
  system_device_source() : driver_(driver_library_source::from_loader()) {}
  system_device_source(nvml_device_source nvml, driver_library_source driver,
                       cuinit_fallback fallback = cuinit_fallback::allowed)
      : nvml_(std::move(nvml)), driver_(std::move(driver)), fallback_(fallback) {}

  expected<device_reading, error> read() const {
    auto r = nvml_.read();
    if (r || !nvml_cannot_answer(r.error())) return r;
    if (fallback_ == cuinit_fallback::forbidden) {  // NVML's failure is the answer, and says why no cuInit
      r.error().raw.append("; cuInit was not tried: the cuInit fallback is off (this process must not initialise CUDA)");
      return r;
    }
    const error& why = r.error();
    auto d = driver_device_source(driver_).devices();
    if (!d) {
      d.error().raw.append("; NVML before it: ").append(why.message());
      return unexpected(std::move(d.error()));
    }
    device_reading out;
    out.devices = std::move(*d);
    out.uuids.assign(out.devices.size(), std::string());
    out.via = "cuInit (" + driver_.library_name() + ")";
    out.notes.push_back("devices read through cuInit because " + why.message() +
                        "; a process forked after this cannot use CUDA");
    return out;
  }

  expected<std::vector<device_info>, error> devices() const { return devices_of(read()); }

 private:
  /// NVML is unavailable or cannot answer. Not: no device (an answer), a refused LD_LIBRARY_PATH
  /// (the driver would be refused the same way).
  static bool nvml_cannot_answer(const error& e) {
    return e.code == errc::library_not_found || e.code == errc::symbol_not_found ||
           e.code == errc::library_call_failed || e.code == errc::malformed_output;
  }

  nvml_device_source nvml_;
  driver_library_source driver_;
  cuinit_fallback fallback_ = cuinit_fallback::allowed;
};

CUARCH_END_NAMESPACE
