// The simple sources: a fixed compiler, fixed devices, no devices, a fixed driver, no driver. Real
// detection (NVRTC, nvcc, the driver API, NVML) lives in its own headers and meets the same contract
// (source_contract.hpp); tests, build tools and CLIs plug these in instead.
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/compute_capability.hpp"
#include "../core/config.hpp"
#include "../core/cuda_version.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/observation.hpp"
#include "../core/source_kind.hpp"
#include "source_contract.hpp"

CUARCH_BEGIN_NAMESPACE

/// A compiler known by value: a bare CUDA release (judged by the knowledge table), or a release
/// with the supported-arch list its compiler reported (judged by that list first).
class fixed_compiler {
 public:
  /// A bare release, e.g. `fixed_compiler({12, 8})` for "nvcc 12.8, not asked".
  explicit fixed_compiler(cuda_version version) : info_{source_kind::knowledge_table, version, {}, {}} {}
  /// A release with its compiler's list of sm numbers (75, 90, 120), as nvrtcGetSupportedArchs gives.
  fixed_compiler(cuda_version version, std::vector<int> supported_sm_numbers, source_kind kind = source_kind::nvrtc,
                 std::string location = {})
      : info_{kind, version, std::move(location), std::move(supported_sm_numbers)} {}

  expected<compiler_info, error> compiler() const { return info_; }

 private:
  compiler_info info_;
};

/// Devices known by value (`--device-cc 9.0,12.0`, build machines without GPUs, plans for other
/// machines, a fake multi-GPU box in a test). The one class for a given device list.
class fixed_devices {
 public:
  fixed_devices(std::initializer_list<compute_capability> ccs) : fixed_devices(std::vector<compute_capability>(ccs)) {}
  explicit fixed_devices(const std::vector<compute_capability>& ccs) {
    devices_.reserve(ccs.size());
    for (const auto& cc : ccs)
      devices_.push_back({static_cast<int>(devices_.size()), cc, {}, source_kind::device_list});
  }
  explicit fixed_devices(std::vector<device_info> list) : devices_(std::move(list)) {}

  /// The devices as given; an empty list is errc::no_device (there is never a default device).
  expected<std::vector<device_info>, error> devices() const {
    if (devices_.empty()) {
      return unexpected(errors::no_device(source_kind::device_list, "the device list is empty"));
    }
    return devices_;
  }

 private:
  std::vector<device_info> devices_;
};

/// No device source: `native` fails with errc::no_device, saying that no devices were given.
struct no_devices {
  expected<std::vector<device_info>, error> devices() const {
    return unexpected(errors::no_device(source_kind::none, "no device source was given to the resolver"));
  }
};

/// A driver known by value: the CUDA version it supports (cuDriverGetVersion, 13000 -> 13.0).
class fixed_driver {
 public:
  explicit fixed_driver(cuda_version version)
      : observation_{source_kind::driver, version, {}, discovery::explicit_argument, {}} {}

  expected<observation, error> driver_version() const { return observation_; }

 private:
  observation observation_;
};

/// No driver source: PTX is not checked against a driver (right for build tools, whose driver is
/// not the one that will run the code), and a PTX fallback is refused because it cannot be checked.
struct no_driver {
  expected<observation, error> driver_version() const {
    return unexpected(
        errors::library_not_found(source_kind::driver, "the CUDA driver", {},
                                  "no driver source was given, so PTX cannot be checked against the driver"));
  }
};

template <>
struct checks_ptx_against_driver<no_driver> : std::false_type {};

CUARCH_END_NAMESPACE
