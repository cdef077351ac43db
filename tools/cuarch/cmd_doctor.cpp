// cuarch doctor: every CUDA source this process can see, with provenance; which compiler governs
// the JIT and offline compile paths and which driver the load path, and why; the devices; and
// every disagreement with what it means. Diagnoses only: exit 0 unless --strict finds a problem.
#include <cuarch/sources/compile_time.hpp>  // the compile-time CUDA_VERSION of this very file

#include <utility>
#include <cuarch/detect.hpp>
#include <cuarch/doctor/report.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.hpp"
#include "detection_options.hpp"

namespace {

constexpr const char* doctor_help =
    "usage: cuarch doctor [options]\n"
    "\n"
    "Shows every CUDA source this process can see (NVRTC, nvcc, ptxas, CUDA runtime, driver,\n"
    "toolkit files, pip wheels, compile-time CUDA_VERSION) with its version and where it was\n"
    "found; which compiler governs the JIT path (NVRTC) and the offline path (nvcc), which driver\n"
    "governs loading, and why; the devices; and every disagreement with what it means.\n"
    "\n"
    "options:\n"
    "  --json                 print the report as one JSON object\n"
    "  --cuda-home DIR        a toolkit root to consider first (before $CUDA_HOME)\n"
    "  --nvrtc PATH           the libnvrtc to use for JIT (as CUARCH_NVRTC)\n"
    "  --nvcc PATH            the nvcc to use for offline builds (as CUARCH_NVCC)\n"
    "  --cudart PATH          the libcudart to report (as CUARCH_CUDART)\n"
    "  --libcuda PATH         the driver library to use (as CUARCH_LIBCUDA)\n"
    "  --ptxas PATH           a ptxas to report (as CUARCH_PTXAS)\n"
    "  --device-cc LIST       devices to plan for, e.g. 12.0,9.0 (build machines without GPUs)\n"
    "  --python-prefix DIR    a Python environment to scan for pip nvidia-* wheels and Triton's\n"
    "                         ptxas (repeatable; $VIRTUAL_ENV and $CONDA_PREFIX are scanned anyway)\n"
    "  --timeout SECONDS      how long nvcc/ptxas --version may take (default 10)\n"
    "  --isolated             look only at the options above and the environment variables: no\n"
    "                         loader search, no PATH, no already-loaded libraries, no default locations\n"
    "  --no-device-query      do not call cuInit to list the driver's devices\n"
    "  --strict               exit 1 when a finding is a problem (default: exit 0 after reporting)\n"
    "\n"
    "Discovery order (per component, see include/cuarch/detect.hpp): explicit option, CUARCH_*\n"
    "variable, already loaded, --cuda-home, --python-prefix, $CUDA_HOME, $CUDA_PATH, loader\n"
    "search / PATH, $VIRTUAL_ENV / $CONDA_PREFIX, /usr/local/cuda*. Exit codes: 0 reported,\n"
    "1 a problem with --strict, 2 bad usage.\n";

int run_doctor(cuarch_cli::arguments& args) {
  cuarch::detect_options opts;
  opts.probe_ptxas = true;
  // The doctor's own compile-time CUDA_VERSION is a source only when it was built with CUDA headers;
  // a doctor built without them has nothing to say there (that is not a fault of the machine).
  if (auto built_with = CUARCH_COMPILE_TIME_OBSERVATION(); built_with) opts.compile_time = std::move(built_with);
  const bool json = args.flag("--json");
  const bool strict = args.flag("--strict");
  if (args.flag("--no-device-query")) opts.query_devices = false;
  if (const auto chosen = cuarch_cli::take_detection_options("doctor", args, opts); chosen.status != 0) return chosen.status;
  if (auto v = args.take("--timeout")) {
    char* end = nullptr;
    const double seconds = std::strtod(v->c_str(), &end);
    if (end == v->c_str() || *end != '\0' || !(seconds > 0) || seconds > 3600)
      return cuarch_cli::usage_error("doctor", "--timeout needs a number of seconds between 0 and 3600, not '" + *v + "'");
    opts.tool_timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }
  if (const int rc = cuarch_cli::reject_leftovers("doctor", args, false)) return rc;

  const cuarch::detection found = cuarch::detect(opts);
  std::vector<cuarch::finding> findings = cuarch::find_disagreements(found);
  // The compile-time CUDA_VERSION here is the doctor's own build, not the user's program: what it
  // disagrees with is worth showing, not worth a warning.
  for (auto& f : findings)
    if ((f.kind == cuarch::finding_kind::compile_time_vs_nvrtc || f.kind == cuarch::finding_kind::compile_time_vs_runtime) &&
        f.level != cuarch::severity::info) {
      f.level = cuarch::severity::info;
      f.meaning += " (here: the cuarch executable's own build, which does not affect your programs)";
    }
  const std::string report = json ? cuarch::render_json(found, findings) + "\n" : cuarch::render_text(found, findings);
  std::fwrite(report.data(), 1, report.size(), stdout);
  if (strict)
    for (const auto& f : findings)
      if (f.level == cuarch::severity::problem) return cuarch_cli::exit_failed;
  return cuarch_cli::exit_ok;
}

const cuarch_cli::register_command doctor_command{
    "doctor", "every CUDA source with provenance, the devices, and where they disagree", doctor_help, run_doctor};

}  // namespace
