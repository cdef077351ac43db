// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER applied as the driver applies them (the rules and their
// sources are at the top of include/cuarch/sources/cuda_visible_devices.hpp): a table of cases over
// identical GPUs, mixed GPUs and a GPU in MIG mode. Pure: nothing is loaded.
#include <cuarch/sources/cuda_visible_devices.hpp>

#include <catch2/catch_test_macros.hpp>

#include <optional>
#include <string>
#include <vector>

using cuarch::cuda_device_order;
using cuarch::enumerated_gpu;

namespace {

enumerated_gpu gpu(std::string uuid, int major, int minor, std::string name, std::vector<std::string> migs = {},
                   bool mig = false) {
  enumerated_gpu g;
  g.uuid = std::move(uuid);
  g.cc_major = major;
  g.cc_minor = minor;
  g.name = std::move(name);
  g.mig_enabled = mig || !migs.empty();
  g.mig_uuids = std::move(migs);
  return g;
}

// Two identical H200s, PCI bus order.
const std::vector<enumerated_gpu>& twins() {
  static const std::vector<enumerated_gpu> g{gpu("GPU-aaaa1111-0000-0000-0000-000000000000", 9, 0, "NVIDIA H200"),
                                             gpu("GPU-aaaa2222-0000-0000-0000-000000000000", 9, 0, "NVIDIA H200")};
  return g;
}
// Mixed GPUs, PCI bus order: the slowest sits first on the bus.
const std::vector<enumerated_gpu>& mixed() {
  static const std::vector<enumerated_gpu> g{
      gpu("GPU-bbbb0000-0000-0000-0000-000000000000", 8, 6, "NVIDIA RTX A6000"),
      gpu("GPU-cccc0000-0000-0000-0000-000000000000", 12, 0, "NVIDIA RTX PRO 6000"),
      gpu("GPU-dddd0000-0000-0000-0000-000000000000", 9, 0, "NVIDIA H100")};
  return g;
}
// One GPU (an H200 machine of the GPU checks).
const std::vector<enumerated_gpu>& single() {
  static const std::vector<enumerated_gpu> g{gpu("GPU-23c1acd2-e755-75b1-24a0-5cc67e3c8197", 9, 0, "NVIDIA H200")};
  return g;
}
// A GPU in MIG mode with two MIG devices, then a GPU without MIG.
const std::vector<enumerated_gpu>& mig() {
  static const std::vector<enumerated_gpu> g{
      gpu("GPU-eeee0000-0000-0000-0000-000000000000", 9, 0, "NVIDIA H200",
          {"MIG-11110000-0000-0000-0000-000000000000", "MIG-22220000-0000-0000-0000-000000000000"}),
      gpu("GPU-ffff0000-0000-0000-0000-000000000000", 9, 0, "NVIDIA H200")};
  return g;
}

/// "0,1" (GPU indices, PCI order), "0/1" for MIG device 1 of GPU 0.
std::string render(const std::vector<cuarch::visible_device>& devs) {
  std::string out;
  for (const auto& d : devs) {
    if (!out.empty()) out += ',';
    out += std::to_string(d.gpu);
    if (d.mig >= 0) out.append("/").append(std::to_string(d.mig));  // not "/" + ...: g++ 12 -O3 -Wrestrict
  }
  return out;
}

struct row {
  const std::vector<enumerated_gpu>& (*gpus)();
  std::optional<std::string> visible;
  cuda_device_order order;
  std::string expected;  // render() of the devices
  std::string ended;     // a substring of `ended`, or "" when the list must not have been cut
  bool order_guessed = false;
  bool mig_guessed = false;
  bool needs_driver = false;
};

constexpr auto pci = cuda_device_order::pci_bus_id;
constexpr auto fastest = cuda_device_order::fastest_first;

}  // namespace

TEST_CASE("CUDA_VISIBLE_DEVICES: indices, UUIDs and prefixes, invalid entries, duplicates, order, MIG",
          "[devices][visible]") {
  const std::vector<row> rows{
      // --- unset, empty, integer indices (identical GPUs: the order is no guess) ---
      {twins, std::nullopt, fastest, "0,1", ""},
      {twins, std::string(""), fastest, "", "set and empty"},
      {twins, std::string("0"), fastest, "0", ""},
      {twins, std::string("1"), fastest, "1", ""},
      {twins, std::string("1,0"), fastest, "1,0", ""},
      {twins, std::string("2"), fastest, "", "'2' is out of range (2 device(s))"},
      {twins, std::string("0,2,1"), fastest, "0", "later entries are ignored"},
      {twins, std::string("0,-1,1"), fastest, "0", "'-1' is not a device index"},
      {twins, std::string("0,bogus,1"), fastest, "0", "'bogus' is not a device index: the list ends there (later"},
      {twins, std::string("0,,1"), fastest, "0", "'' is not a device index"},
      {twins, std::string("-1"), fastest, "", "not a device index"},
      {twins, std::string("bogus"), fastest, "", "not a device index"},
      // "GPU-" with no digits names nothing (seen on driver 580: cuInit shows no device), also with one GPU
      // "GPU-" with no digits names nothing, even where it would be a unique prefix (one GPU): driver
      // 580 on an H200 shows no device for it
      {single, std::string("GPU-"), fastest, "", "has no UUID digits after GPU-"},
      {twins, std::string("GPU-aaaa1111,GPU-"), fastest, "0", "has no UUID digits"},
      {twins, std::string("1gpu2,0ampere"), fastest, "1,0", ""},  // strtoul reading: trailing junk ignored
      {twins, std::string(" 1 , 0 "), fastest, "1,0", ""},
      {twins, std::string("+1"), fastest, "1", ""},
      {twins, std::string("0-1"), fastest, "0", ""},  // no range syntax: strtoul reads 0
      {twins, std::string("0,"), fastest, "0", "'' is not a device index"},
      // --- duplicates: a repeated device hides every device; after the end of the list it does not count ---
      {twins, std::string("0,0"), fastest, "", "'0' names a device a second time: the driver's cuInit then fails"},
      {twins, std::string("1,0,1"), fastest, "", "second time"},
      {twins, std::string("0,bogus,0"), fastest, "0", "'bogus' is not a device index"},
      {twins, std::string("0,2,0"), fastest, "0", "'2' is out of range"},  // the end comes before the repeat
      {twins, std::string("0, 0"), fastest, "", "second time"},
      // --- UUIDs: full, unique prefixes, ambiguous and unknown ones, form changes ---
      {twins, std::string("GPU-aaaa2222-0000-0000-0000-000000000000"), fastest, "1", ""},
      {twins, std::string("GPU-aaaa2222"), fastest, "1", ""},
      {twins, std::string("GPU-aaaa2222,GPU-aaaa1"), fastest, "1,0", ""},
      {twins, std::string("GPU-aaaa"), fastest, "", "'GPU-aaaa' is a prefix of more than one UUID"},
      {twins, std::string("GPU-"), fastest, "", "has no UUID digits after GPU-"},
      {twins, std::string("GPU-9999"), fastest, "", "'GPU-9999' matches no device"},
      {twins, std::string("GPU-aaaa2222,GPU-9999,GPU-aaaa1111"), fastest, "1", "later entries are ignored"},
      {twins, std::string("GPU-aaaa1111,GPU-aaaa1"), fastest, "", "'GPU-aaaa1' names a device a second time"},
      {twins, std::string("GPU-aaaa1111,GPU-aaaa1111"), fastest, "", "second time"},
      {twins, std::string("GPU-aaaa2222,GPU-9999,GPU-aaaa2222"), fastest, "1", "'GPU-9999' matches no device"},
      {twins, std::string("GPU-AAAA2222"), fastest, "1", ""},  // the hex digits in either case
      {twins, std::string("GPU-aaaa1111,1"), fastest, "0", "'1' is not a GPU- UUID like the first entry"},
      {twins, std::string("0,GPU-aaaa2222"), fastest, "0", "'GPU-aaaa2222' is not a device index"},
      {twins, std::string("gpu-aaaa1111"), fastest, "", "not a device index"},  // "GPU-" itself is case-sensitive
      {twins, std::string("MIG-GPU-aaaa1111-0000-0000-0000-000000000000/1/0"), fastest, "", "legacy MIG-GPU-", false,
       false, true},
      // --- CUDA_DEVICE_ORDER among different GPUs ---
      {mixed, std::nullopt, pci, "0,1,2", ""},
      {mixed, std::nullopt, fastest, "1,2,0", "", true},
      {mixed, std::string("0"), fastest, "1", "", true},
      {mixed, std::string("0"), pci, "0", ""},
      {mixed, std::string("2,0"), pci, "2,0", ""},
      {mixed, std::string("2,0"), fastest, "0,1", "", true},
      {mixed, std::string("GPU-dddd,GPU-bbbb"), fastest, "2,0", ""},  // UUIDs: the order is the list's, no guess
      {mixed, std::string(""), fastest, "", "set and empty"},
      // --- MIG ---
      {mig, std::nullopt, pci, "0/0,0/1,1", "", false, true},
      {mig, std::string("MIG-2222"), pci, "0/1", "", false, true},
      {mig, std::string("MIG-22220000-0000-0000-0000-000000000000,MIG-1111"), pci, "0/1,0/0", "", false, true},
      {mig, std::string("MIG-2222,MIG-2222"), pci, "", "second time", false, true},
      {mig, std::string("MIG-1111,GPU-eeee"), pci, "0/0", "not a MIG- UUID", false, true},
      {mig, std::string("MIG-"), pci, "", "has no UUID digits after MIG-", false, true},
      {mig, std::string("MIG-2222,GPU-ffff"), pci, "0/1", "not a MIG- UUID", false, true},
      {mig, std::string("GPU-ffff"), pci, "1", ""},
      {mig, std::string("GPU-eeee"), pci, "0/0,0/1", "", false, true},
      {mig, std::string("2"), pci, "1", "", false, true},  // indices count MIG devices in place of their GPU
  };
  for (const auto& r : rows) {
    const auto v = cuarch::apply_cuda_visible_devices(r.gpus(), r.visible, r.order);
    INFO("CUDA_VISIBLE_DEVICES=" << (r.visible ? "\"" + *r.visible + "\"" : std::string("(unset)"))
                                 << (r.order == pci ? " PCI_BUS_ID" : " FASTEST_FIRST") << " -> ended: " << v.ended);
    CHECK(render(v.devices) == r.expected);
    if (r.ended.empty()) {
      CHECK(v.ended.empty());
    } else {
      CHECK(v.ended.find(r.ended) != std::string::npos);
    }
    CHECK(v.order_guessed == r.order_guessed);
    CHECK(v.mig_guessed == r.mig_guessed);
    CHECK(v.needs_driver == r.needs_driver);
    CHECK(v.duplicate == (r.ended.find("second time") != std::string::npos));
  }
}

TEST_CASE("CUDA_DEVICE_ORDER: PCI_BUS_ID, else the driver's default FASTEST_FIRST", "[devices][visible]") {
  CHECK(cuarch::parse_cuda_device_order(std::nullopt) == fastest);
  CHECK(cuarch::parse_cuda_device_order(std::string("PCI_BUS_ID")) == pci);
  CHECK(cuarch::parse_cuda_device_order(std::string("FASTEST_FIRST")) == fastest);
  CHECK(cuarch::parse_cuda_device_order(std::string("")) == fastest);
  // FASTEST_FIRST is approximated by compute capability, highest first, PCI order among equals.
  std::vector<enumerated_gpu> g{gpu("GPU-1", 9, 0, "A"), gpu("GPU-2", 12, 0, "B"), gpu("GPU-3", 9, 0, "C"),
                                gpu("GPU-4", 12, 1, "D")};
  CHECK(cuarch::cuda_enumeration_order(g, fastest) == std::vector<std::size_t>{3, 1, 0, 2});
  CHECK(cuarch::cuda_enumeration_order(g, pci) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(cuarch::fastest_first_is_guess(g));
  CHECK_FALSE(cuarch::fastest_first_is_guess(twins()));
  // Same compute capability, different products: still a guess (the driver's heuristic is unpublished).
  CHECK(cuarch::fastest_first_is_guess(
      {gpu("GPU-1", 9, 0, "NVIDIA H100 PCIe"), gpu("GPU-2", 9, 0, "NVIDIA H100 80GB HBM3")}));
}

TEST_CASE("CUDA_VISIBLE_DEVICES with no GPU at all", "[devices][visible]") {
  const std::vector<enumerated_gpu> none;
  CHECK(cuarch::apply_cuda_visible_devices(none, std::nullopt, fastest).devices.empty());
  const auto v = cuarch::apply_cuda_visible_devices(none, std::string("0"), fastest);
  CHECK(v.devices.empty());
  CHECK(v.ended.find("out of range (0 device(s))") != std::string::npos);
}
