// cuarch doctor: every CUDA source this process can see, with provenance; which compiler governs
// the JIT and offline compile paths and which driver the load path, and why; the devices; and
// every disagreement with what it means. Diagnoses only: exit 0 unless --strict finds a problem.
#include <cuarch/sources/compile_time.hpp>  // the compile-time CUDA_VERSION of this very file

#include <utility>
#include <cuarch/detect.hpp>
#include <cuarch/doctor/report.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "detection_options.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;

constexpr const char* doctor_footer =
    "Shows every CUDA source this process can see (NVRTC, nvcc, ptxas, CUDA runtime, driver,\n"
    "toolkit files, pip wheels, compile-time CUDA_VERSION) with its version and where it was\n"
    "found; which compiler governs the JIT path (NVRTC) and the offline path (nvcc), which driver\n"
    "governs loading, and why; the devices; and every disagreement with what it means.\n"
    "\n"
    "Discovery order (per component, see include/cuarch/detect.hpp): explicit option, CUARCH_*\n"
    "variable, already loaded, --cuda-home, --python-prefix, $CUDA_HOME, $CUDA_PATH, loader\n"
    "search / PATH, $VIRTUAL_ENV / $CONDA_PREFIX, /usr/local/cuda*. Exit codes: 0 reported,\n"
    "1 a problem with --strict, 2 bad usage.";

struct doctor_flags {
  CLI::Option* format = nullptr;
  CLI::Option* json = nullptr;
  CLI::Option* strict = nullptr;
  CLI::Option* no_device_query = nullptr;
  library_flags detection;
};

int run_doctor(const doctor_flags& flags) {
  // Where to look, read by the library as for `cuarch resolve` (front_door/options.hpp).
  cuarch::resolve_options where;
  if (const auto bad = flags.detection.read(where)) return usage_error("doctor", *bad);
  cuarch::detect_options opts = cuarch::detect_options_for(where, cuarch::environment::from_process());
  opts.probe_ptxas = true;
  // The doctor's own compile-time CUDA_VERSION is a source only when it was built with CUDA headers;
  // a doctor built without them has nothing to say there (that is not a fault of the machine).
  // CUARCH_COMPILE_TIME_OBSERVATION() would name this source file (__FILE__), a path of the build
  // tree that an installed cuarch does not have: the observation is the executable's, so it names
  // the executable (issue 35). The same reading of CUDA_VERSION as the macro's.
  const std::string self = cuarch::detail::real_path("/proc/self/exe");
  auto built_with = [&self] {
    using namespace cuarch::detail;  // CUDA_VERSION = 0 where no CUDA header defined the macro
    return cuarch::compile_time_observation(CUDA_VERSION, self.empty() ? "the cuarch executable" : self.c_str());
  }();
  if (built_with) opts.compile_time = std::move(built_with);
  bool json = flag_set::given(flags.json);  // --json: --format json, as it was before --format
  if (json && flag_set::given(flags.format))
    return usage_error("doctor", "--json and --format: give one of them (--json is --format json)");
  if (const auto status = read_format("doctor", flags.format, json)) return *status;
  const bool strict = flag_set::given(flags.strict);
  if (flag_set::given(flags.no_device_query)) opts.query_devices = false;

  const cuarch::detection found = [&] {
    const detecting scope;  // stdout is the report's; Ctrl-C kills the probe and ends cuarch (cli.hpp)
    opts.cancel = &interrupted;
    opts.progress = scope.progress();
    return cuarch::detect(opts);
  }();
  std::vector<cuarch::finding> findings = cuarch::find_disagreements(found);
  // The compile-time CUDA_VERSION here is the doctor's own build, not the user's program: what it
  // disagrees with is worth showing, not worth a warning.
  for (auto& f : findings)
    if ((f.kind == cuarch::finding_kind::compile_time_vs_nvrtc ||
         f.kind == cuarch::finding_kind::compile_time_vs_runtime) &&
        f.level != cuarch::severity::info) {
      f.level = cuarch::severity::info;
      f.meaning += " (here: the cuarch executable's own build, which does not affect your programs)";
    }
  const std::string report = json ? cuarch::render_json(found, findings) + "\n" : cuarch::render_text(found, findings);
  std::fwrite(report.data(), 1, report.size(), stdout);
  if (strict)
    for (const auto& f : findings)
      if (f.level == cuarch::severity::problem) return exit_failed;
  return exit_ok;
}

std::function<int()> setup_doctor(flag_set& f) {
  doctor_flags flags;
  flags.format = f.value("--format", "text|json",
                         "text (default), or json: one cuarch.doctor/1 document (docs/json.md)", "output");
  flags.json = f.flag("--json", "the same as --format json", "output");
  flags.strict = f.flag("--strict", "exit 1 when a finding is a problem (default: exit 0 after reporting)", "output");
  add_detection_flags(flags.detection, f, "where to look", "devices");
  flags.no_device_query = f.flag("--no-device-query", "do not ask the driver for its devices", "devices");
  return [flags] { return run_doctor(flags); };
}

const register_command doctor_command{
    "doctor", {"every CUDA source with provenance, the devices, and where they disagree", doctor_footer, setup_doctor}};

}  // namespace
