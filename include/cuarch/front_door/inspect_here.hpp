// inspect_here(): `cuarch inspect` and cuarch.inspect(): the devices and the driver (given, or this
// machine's, found as resolve finds them), every file read (sources/code_file.hpp) and judged;
// inspect_loaded(): the same for the files a process has mapped as code (`--pid`, inspect_loaded()).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../detect/detector.hpp"
#include "../resolve/inspect.hpp"
#include "../sources/code_file.hpp"
#include "../sources/mapped_files.hpp"
#include "options.hpp"
#include "resolve_here.hpp"

CUARCH_BEGIN_NAMESPACE

/// The report, notes for people, or what stopped it before any file was judged: options that
/// check_options() refuses (`usage`, exit 2, as resolve_here's), else an error.
struct inspect_outcome {
  inspect_report report;
  std::vector<std::string> notes;
  std::optional<error> failure;
  std::optional<std::string> usage;
  int exit_status() const noexcept {
    return usage ? 2 : failure ? cuarch::exit_status(failure->code) : report.exit_status();
  }
};

/// Judges every file under `paths` on the devices `o.devices` (or inventory) names, else this
/// machine's, against the driver `o.driver` names (none named: the detected one for this machine's).
/// With no device named and none visible (a build machine), the files are listed, not judged, as
/// cuobjdump lists them: the report has no devices, and a note says why.
inline inspect_outcome inspect_here(const std::vector<std::string>& paths, const resolve_options& o) {
  inspect_outcome out;
  inspect_report& report = out.report;
  const auto fail = [&](const error& e) {
    out.failure = e;
    return std::move(out);
  };
  if ((out.usage = check_options(o, o.spelling))) return out;
  if (!o.inventory.empty()) {  // a fleet: every GPU node under its own driver (core/inventory.hpp)
    auto fleet = read_inventory_file(o.inventory);
    if (!fleet) return fail(fleet.error());
    std::vector<std::size_t> node_of;  // each device's node, whose driver it is judged under
    report.devices = fleet->devices(&node_of);
    for (const std::size_t k : node_of) report.device_drivers.push_back(fleet->nodes[k].driver);
    out.notes = inventory_notes(*fleet);
    report.nodes = std::move(fleet->nodes);
    if (report.devices.empty())
      return fail(errors::no_device(source_kind::device_list, "none of its nodes has a GPU", o.inventory, o.inventory));
  }
  const bool native = !o.devices && o.inventory.empty();
  const bool detect_driver = o.driver == driver_from::detected ||
                             (native && o.driver == driver_from::none);  // never with a fleet
  if (o.devices)
    for (std::size_t i = 0; i < o.devices->size(); ++i)
      report.devices.push_back(device_info{static_cast<int>(i), (*o.devices)[i], "", source_kind::device_list});
  if (o.driver == driver_from::given) {
    report.driver = o.driver_version;
    report.driver_source = "given";
  }
  if (native || detect_driver) {
    detect_options d = detect_options_for(o, o.env_snapshot ? *o.env_snapshot : environment::from_process());
    d.roles = native ? detect_role::devices | detect_role::driver : role_set(detect_role::driver);
    d.mode = detect_mode::first_answer;
    const detection found = detect(d);
    if (native) {
      auto devices = found.devices();
      if (!devices && devices.error().code != errc::no_device) return fail(devices.error());
      if (devices) report.devices = *devices;
      else out.notes.push_back("nothing is judged: " + devices.error().message(o.spelling));
    }
    if (detect_driver) {
      if (auto v = found.driver_version()) {
        report.driver = v->version;
        report.driver_source = "detected: " + v->location;
      } else if (o.driver == driver_from::detected) {
        return fail(v.error());
      } else if (!report.devices.empty()) {  // no device either: nothing is judged, and the note says so
        out.notes.push_back("no driver found (" + v.error().message() + "); PTX is not checked against one");
      }
    }
  }
  // o.cancel (Ctrl-C in the command line and in Python) is looked at between files and on every
  // read inside one: a set flag stops within a read, and nothing read after it is judged.
  const auto cancelled = [&o] { return o.cancel && o.cancel->load(); };
  // A compressed cubin is decompressed only where its builder can change a verdict (builder_wanted):
  // machine code that a device judged under a known driver could load. Each compute capability once.
  builder_wanted wanted{false, {}};
  for (std::size_t i = 0; i < report.devices.size(); ++i)
    if (report.driver_of(i) &&
        std::find(wanted.devices.begin(), wanted.devices.end(), report.devices[i].cc) == wanted.devices.end())
      wanted.devices.push_back(report.devices[i].cc);
  for (const auto& p : paths) {
    if (o.progress) o.progress("reading " + p);
    auto files = code_files_under(p, max_code_files, 16, o.cancel);
    if (!files) {  // more files than the cap: the directory is an unreadable input, never cut silently
      report.files.push_back(judge_file(p, unexpected(files.error()), report));
      continue;
    }
    std::size_t done = 0;
    for (const auto& file : *files) {
      if (cancelled()) break;
      if (o.progress && (files->size() > 1 || file != p))  // a directory: how far its walk is
        o.progress("reading " + p + ": " + std::to_string(++done) + " of " + std::to_string(files->size()) + " files");
      auto listing = read_code_file(file, o.cancel, wanted);
      if (cancelled()) break;  // what a cancelled read said is no verdict on the file
      report.files.push_back(judge_file(file, std::move(listing), report));
    }
  }
  if (cancelled())
    return fail(errors::deadline_exceeded(source_kind::user_input, "inspect", {},
                                          "cancelled by the caller (a signal) before every file was read"));
  return out;
}

/// inspect_here() of the files process `pid` maps as code (mapped_files_of), or with no pid of
/// this process's program and shared libraries (mapped_files_here): will the code this process has
/// loaded run on these devices, before its first launch? Nothing is loaded, run or initialised: the
/// devices come through NVML unless named, and (o.cuinit_fallback false) never through cuInit.
inline inspect_outcome inspect_loaded(const resolve_options& o, std::optional<long> pid = std::nullopt) {
  const auto files = pid ? mapped_files_of(*pid) : expected<mapped_files, error>(mapped_files_here());
  if (!files) {
    inspect_outcome out;
    if (!(out.usage = check_options(o, o.spelling))) out.failure = files.error();
    return out;
  }
  inspect_outcome out = inspect_here(files->paths, o);
  if (!files->deleted.empty())
    out.notes.push_back(std::to_string(files->deleted.size()) + " mapped file(s) were deleted or replaced since (" +
                        files->deleted.front() + (files->deleted.size() > 1 ? ", ..." : "") +
                        "): not read; the process runs the old code, which no path names any more");
  return out;
}

CUARCH_END_NAMESPACE
