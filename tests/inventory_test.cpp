// A fleet (`--inventory FILE`, core/inventory.hpp): `kubectl get nodes -o json` with GPU feature
// discovery's labels, and CSVs of nvidia-smi --query-gpu (real ones captured on an H200), read into
// nodes; `resolve --inventory` gives one target set every GPU node loads, or says which node cannot
// and why; `inspect --inventory` judges every node under its own driver (docs/inspect.md, "A fleet").
#include <cuarch/detect.hpp>
#include <cuarch/front_door/inspect_here.hpp>
#include <cuarch/sources/code_file.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "test_paths.hpp"
#include "cpu_seconds.hpp"

namespace {

using cuarch::compute_capability;
using cuarch::cuda_version;
using cuarch::errc;

const std::string data = std::string(CUARCH_TEST_DATA_DIR) + "/inventory/";
const std::string fleet_json = data + "kubectl-nodes.json";

std::string scratch(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/cuarch-inventory-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

cuarch::inventory read(const std::string& path) {
  auto inv = cuarch::read_inventory_file(path);
  INFO((inv ? std::string() : inv.error().message()));
  REQUIRE(inv.has_value());
  return *inv;
}

cuarch::error refused(const std::string& path) {
  auto inv = cuarch::read_inventory_file(path);
  REQUIRE_FALSE(inv.has_value());
  INFO(inv.error().message());
  CHECK(inv.error().code == errc::unreadable_input);  // the caller's input: exit 2
  CHECK(inv.error().message().find(path) != std::string::npos);
  CHECK(inv.error().message().find("fix: ") != std::string::npos);
  return inv.error();
}

/// A kubectl List of one node with these labels (JSON members, already quoted) and status.
std::string one_node(const std::string& labels, const std::string& status = "{}") {
  return R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"n1","labels":{)" + labels +
         R"(}},"status":)" + status + "}]}";
}

}  // namespace

TEST_CASE("a driver release serves the CUDA of cuarch's table of minimum drivers", "[inventory]") {
  CHECK(cuarch::toolkit_served_by({580, 159, 4}) == cuda_version{13, 0, -1});  // the H200's driver
  CHECK(cuarch::toolkit_served_by({580, 65, 6}) == cuda_version{13, 0, -1});   // 13.0's own minimum
  CHECK(cuarch::toolkit_served_by({580, 65, 5}) == cuda_version{12, 9, -1});
  CHECK(cuarch::toolkit_served_by({535, 183, 1}) == cuda_version{12, 2, -1});
  cuda_version newest_published{};  // rows whose minimum driver NVIDIA has not published answer for no driver
  for (const auto& row : cuarch::toolkit_table)
    if (row.min_driver.major != 0) newest_published = row.release;
  CHECK(cuarch::toolkit_served_by({595, 99, -1}) == newest_published);  // the newest published branch
  // A later branch may serve a release whose minimum is unpublished, or one newer than the table:
  // unknown (PTX not checked for it, a note says so), never a release it would be "too old" for.
  CHECK(cuarch::toolkit_served_by({610, 43, 2}).major == 0);
  CHECK(cuarch::toolkit_served_by({999, 0, -1}).major == 0);
  CHECK(cuarch::toolkit_served_by({400, 0, -1}).major == 0);  // older than the table: unknown
  CHECK(cuarch::driver_runs_code_of({12, 2, -1}, {12, 8, -1}));
  CHECK_FALSE(cuarch::driver_runs_code_of({12, 2, -1}, {13, 0, -1}));
}

TEST_CASE("kubectl get nodes -o json: an H200 node, a T4 node on an older driver, a CPU-only node", "[inventory]") {
  const auto inv = read(fleet_json);
  CHECK(inv.format == "kubectl");
  REQUIRE(inv.nodes.size() == 3);
  const auto& h200 = inv.nodes[0];
  CHECK(h200.name == "gpu-h200-0");
  REQUIRE(h200.gpus.size() == 1);
  CHECK(h200.gpus[0].cc == compute_capability{9, 0});
  CHECK(h200.gpus[0].count == 8);
  CHECK(h200.gpus[0].product == "NVIDIA-H200");
  CHECK(h200.driver == cuda_version{13, 0, -1});  // nvidia.com/cuda.runtime-version.*: the label, not the table
  CHECK_FALSE(h200.driver_by_table);
  const auto& t4 = inv.nodes[1];  // an older GFD: only nvidia.com/cuda.runtime.* and cuda.driver.*
  CHECK(t4.gpus.at(0).cc == compute_capability{7, 5});
  CHECK(t4.driver == cuda_version{12, 2, -1});
  CHECK(t4.driver_said == "nvidia.com/cuda.runtime 12.2");
  CHECK(inv.nodes[2].name == "cpu-0");
  CHECK(inv.nodes[2].gpus.empty());
  CHECK_FALSE(inv.nodes[2].no_gpu.empty());
  const auto devices = inv.devices();
  REQUIRE(devices.size() == 2);  // one per GPU node and cc, named after the node
  CHECK(devices[0].name == "gpu-h200-0");
  CHECK(devices[1].cc == compute_capability{7, 5});
  const auto notes = cuarch::inventory_notes(inv);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("node cpu-0 has no GPU") == 0);
}

TEST_CASE("kubectl: the driver from the release when no CUDA label, one Node, missing and bad labels", "[inventory]") {
  // Only the release (the newer full label, or the older major/minor/rev): the table infers the CUDA.
  auto inv = read(
      scratch("full.json", one_node(R"("nvidia.com/gpu.compute.major":"12","nvidia.com/gpu.compute.minor":"0",)"
                                    R"("nvidia.com/cuda.driver-version.full":"575.57.08")")));
  CHECK(inv.nodes.at(0).gpus.at(0).cc == compute_capability{12, 0});
  CHECK(inv.nodes[0].driver == cuda_version{12, 9, -1});
  CHECK(inv.nodes[0].driver_by_table);
  CHECK(cuarch::inventory_notes(inv).at(0).find("by cuarch's table") != std::string::npos);
  inv = read(scratch("old.json", one_node(R"("nvidia.com/gpu.compute.major":"8","nvidia.com/gpu.compute.minor":"0",)"
                                          R"("nvidia.com/cuda.driver.major":"535","nvidia.com/cuda.driver.minor":"54",)"
                                          R"("nvidia.com/cuda.driver.rev":"03")")));
  CHECK(inv.nodes.at(0).driver == cuda_version{12, 2, -1});
  // No driver label at all: the node is judged, its PTX is not checked, and that is said.
  inv = read(
      scratch("nodriver.json", one_node(R"("nvidia.com/gpu.compute.major":"8","nvidia.com/gpu.compute.minor":"6")")));
  CHECK(inv.nodes.at(0).driver.major == 0);
  CHECK(cuarch::inventory_notes(inv).at(0).find("PTX is not checked") != std::string::npos);
  // `kubectl get node NAME -o json`: one Node, not a List.
  inv = read(scratch("one.json",
                     R"({"kind":"Node","metadata":{"name":"solo","labels":{"nvidia.com/gpu.compute.major":"9",)"
                     R"("nvidia.com/gpu.compute.minor":"0"}}})"));
  CHECK(inv.nodes.at(0).name == "solo");
  // GPUs without the compute labels (no GFD): an error naming the node, never a CPU-only node.
  auto e = refused(scratch("nocc.json", one_node(R"("nvidia.com/gpu.product":"NVIDIA-H200")")));
  CHECK(e.message().find("node n1") != std::string::npos);
  CHECK(e.message().find("GPU feature discovery") != std::string::npos);
  e = refused(scratch("capacity.json", one_node("", R"({"capacity":{"nvidia.com/gpu":"4"}})")));
  CHECK(e.message().find("node n1") != std::string::npos);
  CHECK(read(scratch("zero.json", one_node("", R"({"capacity":{"nvidia.com/gpu":"0"}})"))).nodes.at(0).gpus.empty());
  e = refused(scratch("half.json", one_node(R"("nvidia.com/gpu.compute.major":"9")")));
  CHECK(e.message().find("must both be numbers") != std::string::npos);
  refused(scratch("nan.json", one_node(R"("nvidia.com/gpu.compute.major":"nine","nvidia.com/gpu.compute.minor":"0")")));
  // Any other label or count cuarch reads is read or refused, as the CSV's columns are: never one
  // GPU for "4x", never "no driver label" for a driver label it could not read.
  const std::string h200 = R"("nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0",)";
  for (const auto& [label, status] : std::vector<std::pair<std::string, std::string>>{
           {R"("nvidia.com/gpu.count":"4x")", "{}"},
           {R"("nvidia.com/gpu.product":"H200")", R"({"capacity":{"nvidia.com/gpu":"four"}})"},
           {R"("nvidia.com/cuda.runtime-version.major":"13","nvidia.com/cuda.runtime-version.minor":"zero")", "{}"},
           {R"("nvidia.com/cuda.driver-version.full":"580.x")", "{}"},
           {R"("nvidia.com/cuda.driver.major":"580","nvidia.com/cuda.driver.minor":"sixty")", "{}"}}) {
    INFO(label << " " << status);
    e = refused(scratch("badlabel.json", one_node(h200 + label, status)));
    CHECK(e.message().find("node n1") != std::string::npos);
  }
}

TEST_CASE("kubectl: malformed JSON, another kind, and control characters are refused naming the file", "[inventory]") {
  CHECK(refused(scratch("cut.json", one_node(R"("a":"b")").substr(0, 50))).message().find("not valid JSON") !=
        std::string::npos);
  CHECK(refused(scratch("pods.json", R"({"kind":"PodList","items":[]})")).message().find("PodList") != std::string::npos);
  refused(
      scratch("ctl.json", one_node("\"nvidia.com/gpu.product\":\"a\x01z\"")));  // a raw control character is not JSON
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "{\"a\":";
  refused(scratch("deep.json", deep));  // nesting is bounded
}

TEST_CASE("nvidia-smi CSVs: the real H200 captures, a gathered fleet, and what is refused", "[inventory]") {
  // nvidia-smi --query-gpu=name,compute_cap,driver_version,uuid,pci.bus_id,memory.total --format=csv on an H200.
  auto inv = read(data + "h200-query.csv");
  CHECK(inv.format == "csv");
  REQUIRE(inv.nodes.size() == 1);
  CHECK(inv.nodes[0].name == data + "h200-query.csv");  // no host column: the file is one host
  CHECK(inv.nodes[0].gpus.at(0).cc == compute_capability{9, 0});
  CHECK(inv.nodes[0].gpus[0].product == "NVIDIA H200");
  CHECK(inv.nodes[0].driver == cuda_version{13, 0, -1});  // 580.159.04, by the table (nvidia-smi said 13.0 too)
  CHECK(inv.nodes[0].driver_said == "580.159.04");
  CHECK(inv.nodes[0].driver_by_table);
  CHECK(read(data + "h200-nounits.csv").nodes.at(0).gpus.at(0).cc == compute_capability{9, 0});
  // noheader: the columns cannot be known; the fix says what to write.
  const auto e = refused(data + "h200-noheader.csv");
  CHECK(e.message().find("line 1") != std::string::npos);
  CHECK(e.message().find("not noheader") != std::string::npos);

  inv = read(data + "fleet.csv");
  REQUIRE(inv.nodes.size() == 3);
  CHECK(inv.nodes[0].gpus.at(0).count == 2);
  CHECK(inv.nodes[1].driver == cuda_version{12, 2, -1});
  CHECK(inv.nodes[2].gpus.empty());
  // Hosts' outputs concatenated, each with its header; a cuda_version column beats the table; a
  // mixed host has one device per compute capability.
  inv = read(scratch("cat.csv",
                     "host, name, compute_cap, driver_version, cuda_version\n"
                     "a, NVIDIA H200, 9.0, 580.159.04, 13.0\n"
                     "host, name, compute_cap, driver_version, cuda_version\n"
                     "b, NVIDIA L4, 8.9, 550.54.15, 12.4\r\n"
                     "b, NVIDIA RTX PRO 6000 Blackwell, 12.0, 550.54.15, 12.4\n"));
  REQUIRE(inv.nodes.size() == 2);
  CHECK_FALSE(inv.nodes[1].driver_by_table);
  CHECK(inv.nodes[1].driver == cuda_version{12, 4, -1});
  CHECK(inv.devices().size() == 3);
  refused(scratch("fields.csv", "host, compute_cap\na, 9.0, extra\n"));
  refused(scratch("badcc.csv", "host, compute_cap\na, nine\n"));
  refused(scratch("baddrv.csv", "host, compute_cap, driver_version\na, 9.0, new\n"));
  CHECK(refused(scratch("twodrv.csv", "host, compute_cap, driver_version\na, 9.0, 580.159.04\na, 9.0, 535.54.03\n"))
            .message()
            .find("host a") != std::string::npos);
  refused(scratch("empty.csv", "\n# nothing\n"));
  // Control characters in a host name are escaped wherever it is said.
  inv = read(scratch("ctl.csv", "host, compute_cap\nevil\x1b[31m, \n"));
  const auto notes = cuarch::inventory_notes(inv);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find('\x1b') == std::string::npos);
}

TEST_CASE("an inventory file is read bounded: a FIFO, a huge file, a directory, a missing file", "[inventory][hostile]") {
  const std::string fifo = "/tmp/cuarch-inventory-fifo-" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refused(fifo).message().find("FIFO") != std::string::npos);  // never opened for a blocking read
  ::unlink(fifo.c_str());
  const std::string huge = scratch("huge.json", "{");
  REQUIRE(::truncate(huge.c_str(), static_cast<off_t>(cuarch::max_inventory_bytes + 1)) == 0);  // sparse: no disk
  CHECK(refused(huge).message().find("larger than") != std::string::npos);
  refused("/tmp");
  refused("/nonexistent/nodes.json");
}

TEST_CASE("resolve --inventory: one target set every GPU node loads, or the node that cannot and why",
          "[inventory][front_door]") {
  cuarch::resolve_options o;
  o.inventory = fleet_json;
  o.toolkit = cuda_version{12, 8, -1};
  auto done = cuarch::resolve_here(o);
  INFO((done.result ? std::string() : done.message()));
  REQUIRE(done.result);
  // The done criterion: every GPU node loads one of the targets; one per node's cc, no more.
  const auto inv = read(fleet_json);
  for (const auto& node : inv.nodes)
    for (const auto& gpu : node.gpus) {
      bool loads = false;
      for (const auto& t : done.result->targets) loads = loads || cuarch::can_load(t, gpu.cc);
      CHECK(loads);
    }
  CHECK(done.result->targets.size() == 2);
  CHECK(done.result->diagnostics.at(1).device->name.view() == "gpu-t4-0");  // the diagnostics name the node
  CHECK(done.notes.at(0).find("cpu-0") != std::string::npos);               // a CPU-only node is said, not an error

  // CUDA 13.0 builds what the T4 node's driver (CUDA 12.2) cannot run: the node is named, exit 1.
  o.toolkit = cuda_version{13, 0, -1};
  done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  CHECK(done.exit_status() == 1);
  const std::string why = done.message();
  INFO(why);
  CHECK(why.find("node gpu-t4-0") != std::string::npos);
  CHECK(why.find("CUDA 12.2") != std::string::npos);
  CHECK(why.find("fix: update its driver, or build with CUDA 12.x") != std::string::npos);

  // A cc the compiler cannot build: the resolver's own diagnostic names the node.
  o.toolkit = cuda_version{12, 8, -1};
  o.inventory = scratch("old.csv", "host, compute_cap, driver_version\nk80, 3.7, 470.57.02\nh, 9.0, 580.159.04\n");
  done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  CHECK(done.message().find("k80, cc 3.7") != std::string::npos);

  // Devices and a driver beside an inventory: one or the other; a bad file: exit 2 before anything runs.
  o.devices = std::vector<compute_capability>{{9, 0}};
  CHECK(cuarch::resolve_here(o).usage);
  o.devices.reset();
  o.inventory = data + "h200-noheader.csv";
  done = cuarch::resolve_here(o);
  CHECK(done.exit_status() == 2);
}

TEST_CASE("inspect --inventory: every GPU node judged under its own driver, every node listed", "[inventory][inspect]") {
  cuarch::resolve_options o;
  o.inventory = fleet_json;
  const auto done = cuarch::inspect_here({std::string(CUARCH_TEST_DATA_DIR) + "/inspect/mix_80_90a_c90.o"},
                                         o);  // sm_80 sm_90a compute_90
  REQUIRE_FALSE(done.failure);
  const auto& r = done.report;
  REQUIRE(r.devices.size() == 2);
  CHECK(r.driver_of(0) == cuda_version{13, 0, -1});
  CHECK(r.driver_of(1) == cuda_version{12, 2, -1});
  const auto& f = r.files.at(0);
  CHECK(f.devices.at(0).loads());        // the H200 node: sm_90a
  CHECK_FALSE(f.devices.at(1).loads());  // the T4 node: nothing for 7.5
  CHECK(r.exit_status() == 1);
  const std::string text = cuarch::inspect_text(r);
  INFO(text);
  CHECK(text.find("node cpu-0: no GPU") != std::string::npos);
  CHECK(text.find("cc 7.5 (gpu-t4-0): CANNOT LOAD") != std::string::npos);
  const std::string json = cuarch::inspect_json(r);
  CHECK(json.find(
            R"("nodes":[{"name":"gpu-h200-0","gpus":[{"cc":"9.0","count":8,"product":"NVIDIA-H200"}],"driver":"13.0")") !=
        std::string::npos);
  CHECK(json.find(R"({"cc":"7.5","name":"gpu-t4-0","loads":false)") != std::string::npos);

  // A node's own driver decides PTX: compute_90 (PTX ISA 9.0) JITs on a CUDA 13.0 node, not on 12.8.
  o.inventory = scratch("ptx.csv", "host, compute_cap, cuda_version\nnew, 10.0, 13.0\nold, 10.0, 12.8\n");
  const auto ptx = cuarch::inspect_here({std::string(CUARCH_TEST_DATA_DIR) + "/inspect/compute_90.o"}, o);
  REQUIRE(ptx.report.files.at(0).devices.size() == 2);
  CHECK(ptx.report.files[0].devices[0].loads());
  CHECK(ptx.report.files[0].devices[1].failing.at(0).why.code == errc::ptx_too_new_for_driver);
}

TEST_CASE("inspect and resolve --inventory agree: a 12.x driver does not run what CUDA 13.0 built",
          "[inventory][inspect]") {
  // sm_80.o and all_major.o: machine code built by nvcc 13.0, uncompressed, each cubin's
  // .note.nv.tkinfo saying "release 13.0". The same fleet, the same CUDA: the same verdict.
  const std::string built = std::string(CUARCH_TEST_DATA_DIR) + "/inspect/";
  cuarch::resolve_options o;
  o.inventory = scratch("majors.csv", "host, compute_cap, cuda_version\nnew, 8.0, 13.0\nold, 8.0, 12.8\n");
  const auto done = cuarch::inspect_here({built + "sm_80.o"}, o);
  REQUIRE(done.report.files.at(0).devices.size() == 2);
  const auto& on = done.report.files[0].devices;
  CHECK(on[0].loads());  // the CUDA 13.0 node
  REQUIRE_FALSE(on[1].loads());
  const cuarch::error& why = on[1].failing.at(0).why;
  INFO(why.message());
  CHECK(why.found == cuda_version{12, 8, -1});     // the node's driver
  CHECK(why.required == cuda_version{13, 0, -1});  // the CUDA that built it, as its cubin says
  CHECK(why.message().find("minor-version compatibility does not cross majors") != std::string::npos);
  CHECK(done.exit_status() == 1);
  o.toolkit = cuda_version{13, 0, -1};  // resolve's verdict on the same fleet for the same CUDA
  o.archs = "8.0";
  CHECK(cuarch::resolve_here(o).exit_status() == 1);
  o.toolkit.reset();
  o.archs = cuarch::given_text{};
  // The T4 node of the kubectl fleet serves CUDA 12.2: all_major.o's sm_75 (built by 13.0) does not run there.
  o.inventory = fleet_json;
  const auto fleet = cuarch::inspect_here({built + "all_major.o"}, o);
  REQUIRE(fleet.report.files.at(0).devices.size() == 2);
  CHECK(fleet.report.files[0].devices[0].loads());
  CHECK_FALSE(fleet.report.files[0].devices[1].loads());
  const std::string text = cuarch::inspect_text(fleet.report);
  INFO(text);
  CHECK(text.find("fix: update the driver to one that serves CUDA 13.0 or newer, or build with CUDA 12.x") !=
        std::string::npos);
  // What the file does not say is not invented either way: a compressed cubin's note unread, its
  // SASS is neither "loads" nor "cannot load" on a 12.8 node but unknown (issue 32); its PTX (ISA
  // 9.0) a 12.8 driver cannot JIT. Once compressed cubins are read, it is built by 13.0: cannot load.
  o.inventory = scratch("majors.csv", "host, compute_cap, cuda_version\nold, 9.0, 12.8\n");
  const auto compressed = cuarch::inspect_here({built + "compress_all.o"}, o);
  const auto& verdict = compressed.report.files.at(0).devices.at(0);
  CHECK_FALSE(verdict.loads());
  CHECK(verdict.verdict() == (compressed.report.files[0].listing.objects.at(0).images.at(0).built_by.major
                                  ? cuarch::load_verdict::cannot_load
                                  : cuarch::load_verdict::unknown));
}

TEST_CASE("a driver of a later branch than cuarch's table of minimum drivers is never called too old", "[inventory]") {
  // 610.43.02: past every minimum driver the table publishes (595.45.04: CUDA 13.2), so it may serve
  // 13.3 or later; PTX ISA 9.3 (CUDA 13.3) must not be refused with "update the driver", by either command.
  const std::string ptx = scratch("k93.ptx", ".version 9.3\n.target sm_90\n.address_size 64\n");
  cuarch::resolve_options o;
  o.inventory = scratch("610.csv", "host, compute_cap, driver_version\nnew, 9.0, 610.43.02\n");
  const auto done = cuarch::inspect_here({ptx}, o);
  REQUIRE(done.report.files.at(0).devices.size() == 1);
  INFO(cuarch::inspect_text(done.report));
  CHECK(done.report.files[0].devices[0].loads());
  o.toolkit = cuda_version{13, 3, -1};
  o.archs = "9.0+PTX";
  CHECK(cuarch::resolve_here(o).exit_status() == 0);
}

TEST_CASE("inspect refuses what check_options refuses, first, as resolve does: a usage error",
          "[inventory][inspect][options]") {
  const std::vector<std::string> built{std::string(CUARCH_TEST_DATA_DIR) + "/inspect/sm_90.o"};
  cuarch::resolve_options o;  // no inventory: a toolkit by release and an nvcc to detect
  o.devices = std::vector<compute_capability>{{9, 0}};
  o.driver = cuarch::driver_from::given;
  o.driver_version = cuda_version{13, 0, -1};
  o.toolkit = cuda_version{12, 8, -1};
  o.nvcc = "/usr/bin/nvcc";
  REQUIRE(cuarch::check_options(o));
  auto done = cuarch::inspect_here(built, o);
  CHECK(done.exit_status() == 2);
  CHECK(done.usage == cuarch::check_options(o));
  CHECK(done.report.files.empty());  // nothing was judged
  // An inventory with devices: the library's usage error, not an unreadable inventory.
  o = cuarch::resolve_options{};
  o.inventory = fleet_json;
  o.devices = std::vector<compute_capability>{{9, 0}};
  REQUIRE(cuarch::check_options(o));
  done = cuarch::inspect_here(built, o);
  CHECK(done.exit_status() == 2);
  CHECK_FALSE(done.failure);
  CHECK(done.usage.value_or("").find("inventory gives the devices") == 0);
  CHECK(done.report.files.empty());
}

#ifdef CUARCH_CLI_PATH
TEST_CASE("the command line: resolve and inspect --inventory, text and json", "[inventory][cli]") {
  const auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), CUARCH_CLI_PATH);
    auto r = cuarch::run_process(args, cuarch::process_limits{});
    REQUIRE(r);
    return *r;
  };
  auto r = run({"resolve", "--toolkit", "12.8", "--inventory", fleet_json});
  INFO(r.out << r.err);
  CHECK(r.exit_status == 0);
  CHECK(r.out == "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_90a,code=sm_90a\n");
  CHECK(r.err.find("note: node cpu-0 has no GPU") != std::string::npos);
  r = run({"resolve", "--toolkit", "12.8", "--inventory", fleet_json, "--format", "json"});
  CHECK(r.out.find(R"("device":{"ordinal":1,"cc":"7.5","name":"gpu-t4-0"})") != std::string::npos);
  r = run({"resolve", "--toolkit", "13.0", "--inventory", fleet_json, "--format", "json"});
  CHECK(r.exit_status == 1);
  CHECK(r.out.find(R"("ok":false)") != std::string::npos);
  CHECK(r.err.find("node gpu-t4-0: its driver serves CUDA 12.2") != std::string::npos);
  r = run({"resolve", "--toolkit", "12.8", "--inventory", fleet_json, "--device-cc", "9.0"});
  CHECK(r.exit_status == 2);
  CHECK(r.err.find("--inventory gives the devices") != std::string::npos);

  const std::string built = std::string(CUARCH_TEST_DATA_DIR) + "/inspect/";
  r = run({"inspect", built + "sm_90a.o", built + "sm_75.o", "--inventory", data + "fleet.csv"});
  CHECK(r.exit_status == 1);
  CHECK(r.out.find("node gpu-t4-0: 2 x Tesla T4 (cc 7.5); driver serves CUDA 12.2 (535.183.01, by cuarch's table)") !=
        std::string::npos);
  CHECK(r.out.find("cc 7.5 (gpu-t4-0): CANNOT LOAD") != std::string::npos);
  r = run({"inspect", built + "all_major.o", "--inventory", fleet_json, "--format", "json"});
  CHECK(r.exit_status == 1);  // nvcc 13.0 built it: the T4 node's driver (CUDA 12.2) does not run it, as resolve says
  CHECK(r.out.find("which a driver serving CUDA 12.2 does not run") != std::string::npos);
  CHECK(r.out.find(R"("no_gpu":"no nvidia.com/gpu.compute label and no nvidia.com/gpu capacity")") != std::string::npos);
  r = run({"inspect", built + "sm_90a.o", "--inventory", fleet_json, "--device-cc", "9.0", "--format", "json"});
  CHECK(r.exit_status == 2);  // check_options: a usage error, as for resolve
  CHECK(r.out.find(R"("code":"bad_usage")") != std::string::npos);
  CHECK(r.err.find("--inventory gives the devices") != std::string::npos);
  r = run({"inspect", built + "sm_90a.o", "--inventory", data + "h200-noheader.csv", "--format", "json"});
  CHECK(r.exit_status == 2);
  CHECK(r.out.find(R"("code":"unreadable_input")") != std::string::npos);
}
#endif

// ---- issue 32, item 8: --inventory linear and exact -----------------------------------------

TEST_CASE("kubectl: every JSON escape is decoded per RFC 8259, a bad one is refused naming where", "[inventory][json]") {
  // \r \b \f \/ and \uXXXX, a surrogate pair included: the product as the cluster wrote it.
  auto inv = read(scratch("esc.json", one_node(R"("nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0",)"
                                               R"("nvidia.com/gpu.product":"a\r\b\f\/\u00e9\ud83d\ude00\u0041z")")));
  CHECK(inv.nodes.at(0).gpus.at(0).product ==
        "a\r\b\f/\xC3\xA9\xF0\x9F\x98\x80"
        "Az");
  for (const std::string bad : {R"(\ud800x)", R"(\udc00)", R"(\ud83d\u0041)", R"(\x)", R"(\u12g4)", R"(\u12)"}) {
    const std::string text = "{\"kind\":\"List\",\n\"items\":[{\"metadata\":{\"name\":\"n" + bad + "\"}}]}";
    const auto e = refused(scratch("badesc.json", text));
    INFO(bad << ": " << e.message());
    CHECK(e.message().find("line 2") != std::string::npos);   // where: the line
    CHECK(e.message().find("offset ") != std::string::npos);  // and the byte offset
  }
}

TEST_CASE("kubectl: a duplicate key is refused naming it and where, never the last one winning", "[inventory][json]") {
  // A second "kind" would turn a List into one Node.
  auto e = refused(scratch("dupkind.json", R"({"kind":"List","items":[{"metadata":{"name":"n1"}}],"kind":"Node"})"));
  INFO(e.message());
  CHECK(e.message().find("duplicate key \"kind\"") != std::string::npos);
  CHECK(e.message().find("offset ") != std::string::npos);
  e = refused(
      scratch("duplabel.json", one_node(R"("nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.major":"7")")));
  CHECK(e.message().find("duplicate key \"nvidia.com/gpu.compute.major\"") != std::string::npos);
  // Many keys in one object: still found (the check is not a scan of each key against each).
  std::string many = R"({"kind":"List","items":[],"x":{)";
  for (int i = 0; i < 5000; ++i) many += "\"k" + std::to_string(i) + "\":1,";
  many += R"("k17":2}})";
  CHECK(refused(scratch("dupmany.json", many)).message().find("duplicate key \"k17\"") != std::string::npos);
}

TEST_CASE("a UTF-8 BOM before a kubectl document or a CSV header is accepted; anywhere else it is named",
          "[inventory][bom]") {
  const std::string bom = "\xEF\xBB\xBF";
  auto inv = read(
      scratch("bom.json", bom + one_node(R"("nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0")")));
  CHECK(inv.format == "kubectl");
  CHECK(inv.nodes.at(0).gpus.at(0).cc == compute_capability{9, 0});
  inv = read(scratch("bom.csv", bom + "host, compute_cap, driver_version\nh1, 9.0, 580.159.04\n"));
  CHECK(inv.format == "csv");
  CHECK(inv.nodes.at(0).name == "h1");  // the host column is kept
  auto e = refused(scratch("bom2.csv", "host, compute_cap\nh1, 9.0\n" + bom + "h2, 9.0\n"));
  CHECK(e.message().find("byte order mark") != std::string::npos);
  CHECK(e.message().find("line 3") != std::string::npos);
  e = refused(scratch("bom3.json", one_node("\"nvidia.com/gpu.product\":\"a" + bom + "\"")));
  CHECK(e.message().find("byte order mark") != std::string::npos);
  refused(scratch("bom4.json", bom + bom + "{\"kind\":\"List\",\"items\":[]}"));
}

TEST_CASE("node names and products with control characters are escaped in every output line", "[inventory][hostile]") {
  // A name holding a newline could forge a verdict line; every line cuarch prints escapes it.
  const std::string forged = "cc 9.0 (x): loads: every code object has an image";
  const std::string path = scratch(
      "forge.json", R"({"kind":"List","items":[{"metadata":{"name":"evil\n)" + forged +
                        R"(","labels":{"nvidia.com/gpu.compute.major":"7","nvidia.com/gpu.compute.minor":"5",)"
                        R"("nvidia.com/gpu.product":"T4\n)" +
                        forged +
                        R"(","nvidia.com/cuda.runtime-version.major":"13",)"
                        R"("nvidia.com/cuda.runtime-version.minor":"0"}}},{"metadata":{"name":"cpu\u001b[2J"}}]})");
  cuarch::resolve_options o;
  o.inventory = path;
  const auto done = cuarch::inspect_here({std::string(CUARCH_TEST_DATA_DIR) + "/inspect/sm_90a.o"}, o);
  REQUIRE_FALSE(done.failure);
  std::string all = cuarch::inspect_text(done.report);
  for (const auto& n : done.notes) all += n + "\n";
  INFO(all);
  CHECK(all.find("\n" + forged) == std::string::npos);
  CHECK(all.find('\x1b') == std::string::npos);
  CHECK(all.find("cc 7.5 (evil\\n") != std::string::npos);
  o.toolkit = cuda_version{12, 8, -1};
  o.archs = "9.0";
  cuarch::apply_policy(cuarch::policy_name::verify_devices, o.policy);  // 7.5 fails: the diagnostics name the node
  const auto resolved = cuarch::resolve_here(o);
  std::string said;
  for (const auto& n : resolved.notes) said += n + "\n";
  if (!resolved.result) said += resolved.message() + "\n";
  else
    for (const auto& d : resolved.result->diagnostics) said += d.message() + "\n";
  INFO(said);
  CHECK(said.find("\n" + forged) == std::string::npos);
  CHECK(said.find('\x1b') == std::string::npos);
}

namespace {
/// A fleet of n hosts, as an nvidia-smi CSV or a kubectl List.
std::string fleet_csv(std::size_t n) {
  std::string s = "host, name, compute_cap, driver_version\n";
  for (std::size_t i = 0; i < n; ++i) s += "host-" + std::to_string(i) + ", NVIDIA H200, 9.0, 580.159.04\n";
  return s;
}
std::string fleet_kubectl(std::size_t n) {
  std::string s = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (std::size_t i = 0; i < n; ++i)
    s += std::string(i ? "," : "") + R"({"kind":"Node","metadata":{"name":"gpu-)" + std::to_string(i) +
         R"(","labels":{"nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0","nvidia.com/gpu.product":"NVIDIA-H200",)"
         R"("nvidia.com/gpu.count":"8","nvidia.com/cuda.runtime-version.major":"13","nvidia.com/cuda.runtime-version.minor":"0"}},)"
         R"("status":{"capacity":{"nvidia.com/gpu":"8"}}})";
  return s + "]}";
}
/// CPU seconds (the work, not a loaded machine's waits) to read the fleet and judge a file on it
/// (inspect), and to resolve for it.
double seconds_for(const std::string& path) {
  return cuarch_test::cpu_seconds_of([&] {
    cuarch::resolve_options o;
    o.inventory = path;
    const auto done = cuarch::inspect_here({std::string(CUARCH_TEST_DATA_DIR) + "/inspect/sm_90a.o"}, o);
    CHECK(done.exit_status() == 0);
    o.toolkit = cuda_version{13, 0, -1};
    CHECK(cuarch::resolve_here(o).exit_status() == 0);
  });
}
}  // namespace

TEST_CASE("--inventory is linear in the hosts: 10 times the hosts, about 10 times the time",
          "[inventory][hostile][timing]") {
  // The bound is a ratio measured in this run (tests/timing_bound.hpp's rule: no absolute time).
  // Quadratic work gives 100; linear 10, with n log n and the machine's noise well inside 30.
  for (const bool kubectl : {false, true}) {
    const auto make = kubectl ? fleet_kubectl : fleet_csv;
    const std::string small = scratch(kubectl ? "lin-s.json" : "lin-s.csv", make(4000));
    const std::string large = scratch(kubectl ? "lin-l.json" : "lin-l.csv", make(40000));
    seconds_for(small);  // warm the caches
    // The fastest of three, interleaved: a busy moment on a loaded machine slows one run, not all
    // three (one run each gave 37x under four CPU hogs, 2026-12-07).
    double a = 1e9, b = 1e9;
    for (int i = 0; i < 3; ++i) {
      a = std::min(a, seconds_for(small));
      b = std::min(b, seconds_for(large));
    }
    INFO((kubectl ? "kubectl" : "csv") << ": 4,000 hosts " << a << " s, 40,000 hosts " << b << " s");
    CHECK(b < 30 * a);
    ::unlink(small.c_str());
    ::unlink(large.c_str());
  }
}

TEST_CASE("resolve --inventory: a node whose driver cannot drive its GPU fails the call, naming it",
          "[inventory][driver]") {
  // CUDA 12.4's driver does not drive Blackwell (12.0): the node cannot run anything, whatever is built.
  cuarch::resolve_options o;
  o.toolkit = cuda_version{12, 8, -1};
  o.inventory = scratch("nodrive.csv", "host, compute_cap, cuda_version\nrtx, 12.0, 12.4\nh200, 9.0, 12.8\n");
  auto done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  CHECK(done.exit_status() == 1);
  const std::string why = done.message();
  INFO(why);
  CHECK(why.find("node rtx") != std::string::npos);
  CHECK(why.find("update the driver to one that serves CUDA 12.8 or newer") != std::string::npos);
  // No request was given: the refusal speaks of the fleet, not of "the request 'native'".
  CHECK(why.find("the request 'native'") == std::string::npos);
  CHECK(why.find("fleet") != std::string::npos);
  // So does the resolver's own refusal (a cc CUDA 12.8 no longer builds), and the driver-major one.
  o.inventory = scratch("old.csv", "host, compute_cap, driver_version\nk80, 3.7, 470.57.02\nh, 9.0, 580.159.04\n");
  done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  INFO(done.message());
  CHECK(done.message().find("what is built for the fleet in " + o.inventory + " was refused: ") == 0);
  o.toolkit = cuda_version{13, 0, -1};
  o.inventory = fleet_json;
  done = cuarch::resolve_here(o);
  REQUIRE_FALSE(done.result);
  CHECK(done.message().find("the request 'native'") == std::string::npos);
  // inspect says the same of that node.
  o = cuarch::resolve_options{};
  o.inventory = scratch("nodrive.csv", "host, compute_cap, cuda_version\nrtx, 12.0, 12.4\nh200, 9.0, 12.8\n");
  const auto seen = cuarch::inspect_here({std::string(CUARCH_TEST_DATA_DIR) + "/inspect/sm_120.o"}, o);
  REQUIRE(seen.report.files.at(0).devices.size() == 2);
  CHECK_FALSE(seen.report.files[0].devices[0].loads());
  CHECK(seen.report.files[0].devices[0].failing.at(0).why.required == cuda_version{12, 8});
}
