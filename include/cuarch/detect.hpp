// cuarch's edge entry point: everything in cuarch/cuarch.hpp, plus the sources that ask real
// libraries, programs, files and devices (sources/), the discovery that finds and ranks them
// (detect/), the doctor's findings and renderers (doctor/), and the front door that resolves
// against this machine (front_door/resolve_here.hpp). docs/design.md describes the layers.
//
// In compiled mode (CUARCH_COMPILED, the cuarch::compiled target: core/config.hpp) this header
// declares detection, its explanation and the doctor, whose definitions are compiled once in
// src/cuarch.cpp; the source classes are then included one by one where they are used
// (<cuarch/sources/nvrtc_source.hpp>, ...), so a TU pays only for what it names.
#pragma once

#include "cuarch.hpp"

#include "sources/compile_time.hpp"
#include "core/environment.hpp"

#include "detect/detector.hpp"
#include "detect/explain.hpp"

#include "doctor/report.hpp"

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
