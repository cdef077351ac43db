// Device sources: the GPUs code will run on. Either the driver (libcuda via dlopen: cuInit, count,
// compute capability, name; CUDA_VISIBLE_DEVICES is applied by the driver itself), or a list the
// caller gives (build machines without GPUs). No visible device is a typed error (no_device) that
// tells the user to pass a list: there is never a default architecture.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/detail/chars.hpp"
#include "driver_source.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "../core/device_list.hpp"

CUARCH_BEGIN_NAMESPACE

/// Devices the caller names (build machines without GPUs, or to plan for other machines).
/// Satisfies the device-source contract: `devices()`.
class explicit_device_source {
 public:
  explicit explicit_device_source(std::vector<compute_capability> ccs) : ccs_(std::move(ccs)) {}

  expected<std::vector<device_info>, error> devices() const {
    if (ccs_.empty()) {
      error e = detail::make_error(errc::no_device, source_kind::device_list);
      e.raw = "the device list is empty";
      return unexpected(e);
    }
    std::vector<device_info> out;
    for (std::size_t i = 0; i < ccs_.size(); ++i) {
      device_info d;
      d.ordinal = static_cast<int>(i);
      d.cc = ccs_[i];
      d.source = source_kind::device_list;
      out.push_back(d);
    }
    return out;
  }

 private:
  std::vector<compute_capability> ccs_;
};

/// The GPUs the driver shows this process. cuInit(0) is called (it creates no context); the
/// driver is then pinned in memory, because libcuda cannot be unloaded safely after cuInit.
/// Satisfies the device-source contract: `devices()`.
class driver_device_source {
 public:
  driver_device_source() : driver_(driver_library_source::from_loader()) {}
  explicit driver_device_source(driver_library_source driver) : driver_(std::move(driver)) {}

  expected<std::vector<device_info>, error> devices() const {
    const auto api = driver_.load();
    if (!api) return unexpected(api.error());
    const std::string& where = api->lib.path();
    if (const int rc = api->init(0); rc != 0) return unexpected(with_visibility(detail::driver_call_failed("cuInit", rc, where)));
    api->lib.pin();  // after cuInit libcuda must never be unmapped
    api->lib.retain();
    int count = -1;
    if (const int rc = api->device_get_count(&count); rc != 0)
      return unexpected(with_visibility(detail::driver_call_failed("cuDeviceGetCount", rc, where)));
    if (count <= 0) {
      error e = detail::make_error(errc::no_device, source_kind::driver);
      e.subject = "cuDeviceGetCount";
      e.location = where;
      e.raw.append("cuDeviceGetCount: ").append_int(count);
      return unexpected(with_visibility(e));
    }
    std::vector<device_info> out;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      int dev = -1, major = -1, minor = -1;
      if (const int rc = api->device_get(&dev, ordinal); rc != 0) return unexpected(detail::driver_call_failed("cuDeviceGet", rc, where));
      if (const int rc = api->device_get_attribute(&major, 75, dev); rc != 0)  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        return unexpected(detail::driver_call_failed("cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)", rc, where));
      if (const int rc = api->device_get_attribute(&minor, 76, dev); rc != 0)  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
        return unexpected(detail::driver_call_failed("cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", rc, where));
      if (major < 1 || major > 99 || minor < 0 || minor > 9) {
        error e = detail::make_error(errc::malformed_output, source_kind::driver);
        e.subject = "cuDeviceGetAttribute";
        e.location = where;
        e.raw.append("device ").append_int(ordinal).append(" reports compute capability ").append_int(major).append('.').append_int(minor);
        return unexpected(e);
      }
      char name[256] = {};
      if (const int rc = api->device_get_name(name, static_cast<int>(sizeof name - 1), dev); rc != 0)
        return unexpected(detail::driver_call_failed("cuDeviceGetName", rc, where));
      device_info d;
      d.ordinal = ordinal;
      d.cc = compute_capability{major, minor};
      d.name = name;
      d.source = source_kind::driver;
      out.push_back(std::move(d));
    }
    return out;
  }

  const driver_library_source& driver() const noexcept { return driver_; }

 private:
  /// Says when CUDA_VISIBLE_DEVICES is what hides the GPUs (the driver applies it at cuInit).
  static error with_visibility(error e) {
    if (e.code != errc::no_device) return e;
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) e.raw.append("; CUDA_VISIBLE_DEVICES=\"").append(v).append("\" limits what the driver shows");
    return e;
  }

  driver_library_source driver_;
};

CUARCH_END_NAMESPACE
