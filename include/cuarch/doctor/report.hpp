// report: the doctor (docs/design.md, "The doctor"): its three entry points, defined in analysis.hpp,
// render_text.hpp and render_json.hpp where definitions are compiled.
#pragma once

#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../detect/detector.hpp"
#include "finding.hpp"

CUARCH_BEGIN_NAMESPACE

/// Every disagreement and broken source in a detection, most severe first.
CUARCH_FUNC std::vector<finding> find_disagreements(const detection& d);

/// The `cuarch doctor` screen: the governing compilers and driver with why, the devices, every
/// source found (chosen or not, failed or not), the toolkit roots, and the findings.
CUARCH_FUNC std::string render_text(const detection& d, const std::vector<finding>& findings);

/// The same report as JSON: one document, schema "cuarch.doctor/1" (docs/json.md).
CUARCH_FUNC std::string render_json(const detection& d, const std::vector<finding>& findings);

CUARCH_END_NAMESPACE

#if CUARCH_DEFINITIONS
#  include "analysis.hpp"
#  include "render_json.hpp"
#  include "render_text.hpp"
#endif
