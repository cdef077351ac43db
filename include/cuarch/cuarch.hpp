// cuarch: resolve and validate CUDA target architectures against the toolkit that compiles them.
// The umbrella header: every public header of the pure core. (fmt support is opt-in: cuarch/fmt.hpp.)
#pragma once

#include "arch.hpp"
#include "arch_table.hpp"
#include "compatibility.hpp"
#include "compute_capability.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "decode.hpp"
#include "error.hpp"
#include "expected.hpp"
#include "format.hpp"
#include "literals.hpp"
#include "observation.hpp"
#include "parse.hpp"
#include "source_kind.hpp"
#include "version.hpp"
