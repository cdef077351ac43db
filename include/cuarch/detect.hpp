// cuarch's edge entry point: everything in cuarch/cuarch.hpp, plus the sources that ask real
// libraries, programs, files and devices (sources/), the discovery that finds and ranks them
// (detect/), and the doctor's findings and renderers (doctor/). docs/design.md describes the layers.
#pragma once

#include "cuarch.hpp"

#include "sources/compile_time.hpp"
#include "sources/device_source.hpp"
#include "sources/driver_source.hpp"
#include "sources/environment.hpp"
#include "sources/nvcc_source.hpp"
#include "sources/nvrtc_source.hpp"
#include "sources/posix/dynamic_library.hpp"
#include "sources/posix/subprocess.hpp"
#include "sources/runtime_source.hpp"
#include "sources/toolkit_files.hpp"
#include "sources/wheel_layout.hpp"

#include "detect/detector.hpp"

#include "doctor/report.hpp"
