// report: the doctor, whole. Kept as the one include for everything the doctor does:
//   finding.hpp      finding, finding_kind (with its name map), severity
//   analysis.hpp     find_disagreements(detection) -> findings: what the sources' disagreements mean
//   render_text.hpp  render_text(): the `cuarch doctor` screen (control characters escaped)
//   render_json.hpp  render_json(): the same as one JSON object (always valid UTF-8)
#pragma once

#include "analysis.hpp"
#include "finding.hpp"
#include "render_json.hpp"
#include "render_text.hpp"
