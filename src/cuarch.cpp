// cuarch's compiled mode (the cuarch::compiled target): the one translation unit that defines the
// functions the headers declare with CUARCH_FUNC — detection, the doctor, the front door (its options, the
// resolution against this machine and its warnings), the output writers and JSON documents, the failure messages — and
// instantiates the common resolutions (resolve/resolver.hpp), so the program's other TUs parse
// declarations and generate no code for them. The definitions are the headers' own, not copies:
// this file only compiles them where core/config.hpp says they belong. Every header that uses
// CUARCH_FUNC is named here; the layering check (cmake/check_layers.cmake) fails the build when one
// is missing.
#ifndef CUARCH_COMPILED
#  define CUARCH_COMPILED
#endif
#define CUARCH_COMPILING_LIBRARY

#include "cuarch/detect/detector.hpp"
#include "cuarch/doctor/analysis.hpp"
#include "cuarch/doctor/report.hpp"
#include "cuarch/front_door/options.hpp"
#include "cuarch/front_door/resolve_here.hpp"
#include "cuarch/front_door/resolve_outcome.hpp"
#include "cuarch/front_door/resolve_warnings.hpp"
#include "cuarch/front_door/tool_env.hpp"
#include "cuarch/resolve/json_documents.hpp"
#include "cuarch/resolve/outputs.hpp"
#include "cuarch/resolve/resolution.hpp"
#include "cuarch/resolve/resolver.hpp"
