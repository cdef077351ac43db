// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER applied as the CUDA driver applies them, a pure function
// over the GPUs NVML lists: the devices CUDA *would* show, without cuInit (which a fork()ed child cannot
// survive). Checked against the real driver by scripts/gpu/devices-on-gpu.sh. The rules and their sources:
//  * unset: every GPU; set to "": no GPU. An integer is an index in CUDA_DEVICE_ORDER order; a
//    "GPU-<uuid>" entry or any unique prefix of it (e.g. "GPU-8932f937") names a GPU; "MIG-<uuid>" a
//    MIG device. The devices come in the order of the list. An invalid entry (e.g. -1) ends the list:
//    "0,2,-1,1" shows 0 and 2. (CUDA Programming Guide, "CUDA Environment Variables",
//    docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html.)
//  * integers are read like strtoul (leading blanks skipped, trailing junk ignored: "1gpu2,2ampere" is
//    "1,2"; no range syntax); an index >= the number of devices ends the list; the first entry decides
//    the form of the list (an entry of another form ends it: "0,GPU-..." is "0"); "GPU-"/"MIG-" must be
//    written so, the hex digits may be in either case; an ambiguous UUID prefix ends the list. A device
//    named twice before the list ends ("0,0", "1,0,1", a UUID twice) makes cuInit itself fail with
//    CUDA_ERROR_INVALID_DEVICE (101): no CUDA call works in that process; a repeat after the end does not
//    count ("0,bogus,0", and "0,2,0" on two GPUs, are "0"). Not in NVIDIA's documentation: seen on an H200
//    pair with driver 580.159.04 (scripts/gpu/devices-on-gpu.sh compares each form with cuInit). PyTorch's
//    reading (torch/cuda/__init__.py, _parse_visible_devices and _transform_uuid_to_ordinals; pytorch/pytorch
//    PRs 84879 and 92315) agrees on strtoul, the first entry's form and prefixes, but says a repeat gives
//    "0 devices" (driver 580: cuInit fails) and checks repeats before range ("0,2,0": PyTorch 0 devices,
//    the driver 1) and is case-sensitive on the hex (the driver is not).
//  * CUDA_DEVICE_ORDER: FASTEST_FIRST (the default) orders devices "fastest to slowest using a simple
//    heuristic" the driver does not publish; PCI_BUS_ID orders them by PCI bus id (the NVML order once
//    sorted by bus id). FASTEST_FIRST is approximated here by compute capability, highest first, PCI bus
//    order among equals; the result says `order_guessed` whenever the GPUs differ (compute capability
//    or name) and the order decides something (the ordinals, or which GPUs integer indices pick).
//  * MIG: on a GPU in MIG mode CUDA enumerates its MIG devices instead of the GPU. Enumeration of
//    MIG devices without a MIG- list, and the legacy "MIG-GPU-<uuid>/<gi>/<ci>" form, are not
//    documented precisely: the result says `mig_guessed`, or `needs_driver` for the legacy form.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../core/detail/chars.hpp"

CUARCH_BEGIN_NAMESPACE

/// CUDA_DEVICE_ORDER.
enum class cuda_device_order : unsigned char { fastest_first, pci_bus_id };

/// One GPU as NVML describes it, listed in PCI bus order.
struct enumerated_gpu {
  std::string uuid;                    // "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"
  std::string name;                    // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;      // compute capability
  bool mig_enabled = false;            // MIG mode on: CUDA shows its MIG devices, not the GPU
  std::vector<std::string> mig_uuids;  // "MIG-<uuid>" of its MIG devices, in MIG index order
};

/// One device CUDA would show: a GPU, or one MIG device of it. Its CUDA ordinal is its position.
struct visible_device {
  std::size_t gpu = 0;  // index into the enumerated GPUs
  int mig = -1;         // index into that GPU's mig_uuids, or -1 for the whole GPU
  friend bool operator==(const visible_device& a, const visible_device& b) { return a.gpu == b.gpu && a.mig == b.mig; }
};

struct device_visibility {
  std::vector<visible_device> devices;  // in CUDA ordinal order
  std::string ended;                    // where and why the list was cut or emptied ("" when it was not)
  bool order_guessed = false;           // FASTEST_FIRST among different GPUs decided the ordinals or the pick
  bool mig_guessed = false;             // MIG devices were enumerated by rules not documented precisely
  bool needs_driver = false;            // only cuInit can answer (see `ended`)
  bool duplicate = false;  // a device named twice: cuInit fails (CUDA_ERROR_INVALID_DEVICE), no device usable
};

namespace detail {

/// strtoul's reading of an entry (blanks, a sign, digits, the rest ignored); -1 for no digit or a
/// negative number; a huge number saturates.
inline long long visible_index(std::string_view entry) {
  std::string_view s = trim(entry);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  long long v = 0;
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
    if (v < 1000000) v = v * 10 + (s[digits] - '0');
    ++digits;
  }
  if (digits == 0 || (negative && v != 0)) return -1;
  return v;
}

}  // namespace detail

/// CUDA_DEVICE_ORDER's value (nullopt: unset). Anything but "PCI_BUS_ID" is the default FASTEST_FIRST.
inline cuda_device_order parse_cuda_device_order(const std::optional<std::string>& value) {
  return value && detail::trim(*value) == "PCI_BUS_ID" ? cuda_device_order::pci_bus_id
                                                       : cuda_device_order::fastest_first;
}

/// The GPUs (indices into `gpus`) in CUDA enumeration order: PCI_BUS_ID keeps theirs; FASTEST_FIRST
/// is approximated by compute capability, highest first (stable).
inline std::vector<std::size_t> cuda_enumeration_order(const std::vector<enumerated_gpu>& gpus, cuda_device_order order) {
  std::vector<std::size_t> idx(gpus.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  if (order == cuda_device_order::fastest_first)  // stable: equal capabilities keep their order (the index decides)
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const enumerated_gpu &ga = gpus[a], &gb = gpus[b];
      if (ga.cc_major != gb.cc_major) return ga.cc_major > gb.cc_major;
      return ga.cc_minor != gb.cc_minor ? ga.cc_minor > gb.cc_minor : a < b;
    });
  return idx;
}

/// Whether FASTEST_FIRST is a guess for these GPUs: they differ in compute capability or name.
inline bool fastest_first_is_guess(const std::vector<enumerated_gpu>& gpus) {
  return std::any_of(gpus.begin(), gpus.end(), [&](const enumerated_gpu& g) {
    return std::tie(g.cc_major, g.cc_minor, g.name) !=
           std::tie(gpus.front().cc_major, gpus.front().cc_minor, gpus.front().name);
  });
}

/// The devices CUDA would show for `gpus` given CUDA_VISIBLE_DEVICES (nullopt: unset) and
/// CUDA_DEVICE_ORDER, by the rules at the top of this header.
inline device_visibility apply_cuda_visible_devices(const std::vector<enumerated_gpu>& gpus,
                                                    const std::optional<std::string>& visible, cuda_device_order order) {
  device_visibility out;
  const std::vector<std::size_t> enumeration = cuda_enumeration_order(gpus, order);
  const bool heterogeneous = fastest_first_is_guess(gpus);
  // CUDA's devices before CUDA_VISIBLE_DEVICES: each GPU, or the MIG devices of a GPU in MIG mode.
  std::vector<visible_device> all;
  bool all_has_mig = false;  // matters only where `all` is used: unset, or integer indices
  for (const std::size_t g : enumeration) {
    if (!gpus[g].mig_enabled) {
      all.push_back({g, -1});
      continue;
    }
    all_has_mig = true;
    for (std::size_t m = 0; m < gpus[g].mig_uuids.size(); ++m) all.push_back({g, static_cast<int>(m)});
  }
  const bool order_matters_by_index = heterogeneous && order == cuda_device_order::fastest_first;
  if (!visible) {
    out.devices = all;
    out.mig_guessed = all_has_mig;
    out.order_guessed = order_matters_by_index && out.devices.size() > 1;
    return out;
  }
  const std::string_view list(*visible);
  if (list.empty()) {
    out.ended = "CUDA_VISIBLE_DEVICES is set and empty: no device is visible";
    return out;
  }
  const bool by_uuid = detail::starts_with(list, "GPU-") || detail::starts_with(list, "MIG-");
  const std::string_view prefix = by_uuid ? list.substr(0, 4) : std::string_view();
  if (detail::starts_with(list, "MIG-GPU-")) {
    out.needs_driver = true;
    out.ended =
        "CUDA_VISIBLE_DEVICES uses the legacy MIG-GPU-<uuid>/<gpu instance>/<compute instance> form, which NVML cannot map";
    return out;
  }
  out.mig_guessed = by_uuid ? prefix == "MIG-" : all_has_mig;
  // The devices an entry names (into `named`): indices into `all`, or UUIDs and their prefixes; else
  // why the entry ends the list.
  const auto resolve = [&](std::string_view entry, std::vector<visible_device>& named) -> std::string {
    if (!by_uuid) {
      const long long x = detail::visible_index(entry);
      if (x < 0) return "is not a device index";
      if (x >= static_cast<long long>(all.size()))
        return "is out of range (" + std::to_string(all.size()) + " device(s))";
      named.push_back(all[static_cast<std::size_t>(x)]);
      return {};
    }
    if (!detail::starts_with(entry, prefix)) return "is not a " + std::string(prefix) + " UUID like the first entry";
    // "GPU-" alone names nothing (driver 580 shows no device for it)
    if (entry.size() == prefix.size()) return "has no UUID digits after " + std::string(prefix);
    std::optional<visible_device> match;
    bool ambiguous = false;
    for (std::size_t g = 0; g < gpus.size() && !ambiguous; ++g) {
      // "GPU-"/"MIG-" exactly; the hex digits in either case.
      auto consider = [&](const std::string& uuid, int mig) {
        if (!detail::starts_with(uuid, prefix) ||
            !detail::istarts_with(std::string_view(uuid).substr(4), entry.substr(4)))
          return;
        if (match) ambiguous = true;
        match = visible_device{g, mig};
      };
      if (prefix == "GPU-") {
        consider(gpus[g].uuid, -1);
      } else {
        for (std::size_t m = 0; m < gpus[g].mig_uuids.size(); ++m) consider(gpus[g].mig_uuids[m], static_cast<int>(m));
      }
    }
    if (ambiguous || !match) return ambiguous ? "is a prefix of more than one UUID" : "matches no device";
    // A GPU named by UUID while in MIG mode: CUDA shows its MIG devices instead (not documented precisely).
    if (match->mig >= 0 || !gpus[match->gpu].mig_enabled) {
      named.push_back(*match);
      return {};
    }
    out.mig_guessed = true;
    for (std::size_t m = 0; m < gpus[match->gpu].mig_uuids.size(); ++m)
      named.push_back({match->gpu, static_cast<int>(m)});
    return {};
  };
  // The first invalid entry ends the list; a device named twice before that invalidates it all.
  const auto entries = detail::split(list, ',');
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::vector<visible_device> named;
    if (const std::string why = resolve(entries[i], named); !why.empty()) {
      out.ended = "entry '" + std::string(entries[i]) + "' " + why + ": the list ends there";
      if (i + 1 < entries.size()) out.ended += " (later entries are ignored)";
      break;
    }
    for (const visible_device& d : named) {
      if (std::find(out.devices.begin(), out.devices.end(), d) == out.devices.end()) {
        out.devices.push_back(d);
        continue;
      }
      out.devices.clear();
      out.duplicate = true;
      out.ended = "entry '" + std::string(entries[i]) +
                  "' names a device a second time: the driver's cuInit then fails with CUDA_ERROR_INVALID_DEVICE (101)";
      return out;
    }
  }
  if (!by_uuid) out.order_guessed = order_matters_by_index && !out.devices.empty();
  return out;
}

CUARCH_END_NAMESPACE
