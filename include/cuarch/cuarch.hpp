// cuarch's pure entry point: the core (value types, parsing, the knowledge table, rules, errors)
// and resolution; nothing here loads a library, starts a process or includes a platform header.
// The edge layer is cuarch/detect.hpp, fmt support cuarch/fmt.hpp (docs/design.md: the layers).
#pragma once

#include "core/arch.hpp"
#include "core/arch_table.hpp"
#include "core/compatibility.hpp"
#include "core/compute_capability.hpp"
#include "core/config.hpp"
#include "core/cuda_version.hpp"
#include "core/decode.hpp"
#include "core/device_list.hpp"
#include "core/error.hpp"
#include "core/expected.hpp"
#include "core/format.hpp"
#include "core/literals.hpp"
#include "core/observation.hpp"
#include "core/parse.hpp"
#include "core/source_kind.hpp"
#include "core/version.hpp"

#include "resolve/compiler_rules.hpp"
#include "resolve/env_request.hpp"
#include "resolve/fixed_sources.hpp"
#include "resolve/output_format.hpp"
#include "resolve/outputs.hpp"
#include "resolve/policy.hpp"
#include "resolve/resolution.hpp"
#include "resolve/resolver.hpp"
#include "resolve/target_set.hpp"
