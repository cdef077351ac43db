// cuarch's edge entry point: cuarch/cuarch.hpp, plus the sources that ask real libraries, programs,
// files and devices (sources/), detection (detect/), the doctor (doctor/) and the front door
// (front_door/). docs/design.md describes the layers. In compiled mode (CUARCH_COMPILED) it declares
// what src/cuarch.cpp defines, and a TU includes the source classes it names one by one.
#pragma once

#include "cuarch.hpp"

#include "sources/compile_time.hpp"
#include "core/environment.hpp"

#include "detect/detector.hpp"

#include "doctor/report.hpp"

#include "front_door/explain.hpp"
#include "front_door/options.hpp"
#include "front_door/resolve_here.hpp"
#include "front_door/resolve_warnings.hpp"

#if !defined(CUARCH_COMPILED)
#  include "sources/device_source.hpp"
#  include "sources/driver_source.hpp"
#  include "sources/nvcc_source.hpp"
#  include "sources/nvrtc_source.hpp"
#  include "sources/posix/dynamic_library.hpp"
#  include "sources/posix/subprocess.hpp"
#  include "sources/runtime_source.hpp"
#  include "sources/toolkit_files.hpp"
#  include "sources/wheel_layout.hpp"
#endif
