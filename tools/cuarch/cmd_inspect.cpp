// `cuarch inspect PATH...`: will these built files load here? Reads the CUDA code in each file (or
// every file under a directory: a JIT cache) with the library (sources/code_file.hpp), judges every
// code object on each device under the driver (resolve/inspect.hpp), and prints the verdict. This
// command only gathers the devices and the driver and words the answer.
#include <cuarch/detect.hpp>
#include <cuarch/front_door/inspect_here.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "detection_options.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;
constexpr const char* command_name = "inspect";

constexpr const char* inspect_footer =
    R"(Reads ELF shared libraries, executables and objects (.nv_fatbin, and __nv_relfatbin for
relocatable device code), standalone .fatbin and .cubin files and PTX text, or every file under a
directory (a JIT cache), without a CUDA toolkit. For each code object (one fatbin: the kernels of
one compilation unit) and each device it names the image the driver picks: SASS of that compute
capability or a compatible one (same major, lower minor; `f` within its family; `a` only exactly),
else PTX the driver can JIT (compute capability <= the device's, PTX ISA <= what the driver reads);
or why none loads, with the targets to add.
Devices: --device-cc, else this machine's (NVML, as `cuarch resolve --archs native`). Driver:
--driver VERSION, or `detected` (the default when the devices are this machine's). A fleet:
--inventory FILE, each node with its own compute capabilities and driver (docs/inspect.md).
With no device named and none visible (a build machine), the files are listed, not judged.
A code object with no kernel (an empty fatbin, cubins without .text) is listed, not judged.
Verdicts per device: loads; dispatches (code for it beside code objects only for other
architectures: a library that picks its kernels, as cuBLAS; cuFFT keeps its code in data
sections, which are searched too); CANNOT LOAD (none for it, or one fails for the driver; with a
fix that works); unknown (machine code whose builder the file does not say, e.g. compressed,
under a driver that may not run it); no code found (a library with code in data sections, none of
it for the device).
exit status: 0 every device loads every file, or finds code for it in such a library (or
nothing was judged); 1 a device cannot load a file, whether it does is unknown, or no code for it
was found; 2 bad usage or a file that cannot be read or whose CUDA code is malformed.
--pid PID judges what a running process has loaded (its program and shared libraries).
example: cuarch inspect build/libkernels.so --device-cc 8.6,8.9,9.0 --driver 12.8)";

struct inspect_flags {
  CLI::Option* paths = nullptr;
  CLI::Option* pid = nullptr;
  CLI::Option* format = nullptr;
  library_flags options;
};

int run_inspect(const inspect_flags& flags) {
  cuarch::resolve_options o;
  if (const auto bad = flags.options.read(o)) return usage_error(command_name, *bad);
  bool json = false;
  if (const auto status = read_format(command_name, flags.format, json)) return *status;
  const std::vector<std::string> paths = flag_set::all(flags.paths);
  std::optional<long> pid;
  if (const auto text = flag_set::get(flags.pid)) {
    int n = 0;
    if (!cuarch::detail::parse_uint(*text, n) || n == 0)
      return usage_error(command_name, "--pid takes a process ID (a positive number), not '" + *text + "'");
    if (!paths.empty()) return usage_error(command_name, "name files or directories, or --pid, not both");
    pid = n;
  }
  if (paths.empty() && !pid)
    return usage_error(command_name, "name at least one file or directory to inspect, or --pid PID");

  const cuarch::inspect_outcome done = [&] {
    const detecting scope;  // stdout is the report's; SIGINT/SIGTERM/SIGHUP stop the reading and end cuarch by it (cli.hpp)
    o.cancel = &interrupted;
    o.progress = scope.progress();
    return pid ? cuarch::inspect_loaded(o, pid) : cuarch::inspect_here(paths, o);
  }();
  if (done.usage)
    return usage_error(command_name, *done.usage);  // flags.options.read() said it first, in flag spelling
  for (const auto& n : done.notes) print_to(stderr, "cuarch inspect: note: {}\n", say(n));
  if (done.failure) {
    if (json) print_to(stdout, "{}\n", cuarch::inspect_json(done.report, done.failure));
    print_to(stderr, "cuarch inspect: {}\n", say(done.failure->message()));
    return done.exit_status();
  }
  const cuarch::inspect_report& report = done.report;
  const std::string out = json ? cuarch::inspect_json(report) + "\n" : cuarch::inspect_text(report);
  std::fwrite(out.data(), 1, out.size(), stdout);  // an unreadable file's error is in it, once
  return report.exit_status();
}

std::function<int()> setup_inspect(flag_set& f) {
  using cuarch::option_name;
  inspect_flags flags;
  flags.paths = f.positionals("paths", "PATH", "files or directories to inspect");
  flags.pid = f.value("--pid", "PID",
                      "instead of files: the program and shared libraries process PID has mapped\n"
                      "(/proc/PID/maps), before a launch fails with \"no kernel image\"",
                      "input");
  flags.format = f.value("--format", "text|json",
                         "text (default), or json: one cuarch.inspect/1 document (docs/json.md)", "output");
  const std::string devices = "devices and driver";
  flags.options.value(f, option_name::devices, "--device-cc", "LIST",
                      "the devices' compute capabilities, e.g. 8.9,9.0 (default: this machine's)", devices);
  flags.options.value(
      f, option_name::driver, "--driver", "VERSION|detected",
      "the CUDA version the driver supports (PTX must be JIT-able by it), or\n`detected` (the default without --device-cc)",
      devices);
  flags.options.value(f, option_name::libcuda, "--libcuda", "PATH", "the driver library to ask (as CUARCH_LIBCUDA)",
                      devices);
  flags.options.value(f, option_name::inventory, "--inventory", "FILE",
                      "a fleet: `kubectl get nodes -o json` (GPU feature discovery's labels) or a\n"
                      "CSV of nvidia-smi --query-gpu with a host column; every GPU node is judged\n"
                      "under its own driver (instead of --device-cc and --driver)",
                      devices);
  return [flags] { return run_inspect(flags); };
}

const register_command registration{
    command_name,
    {"will these built files load? the images in each, judged per device and driver", inspect_footer, setup_inspect}};

}  // namespace
