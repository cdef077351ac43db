// The default bound on one tool run, apart so that detect/result.hpp names it without subprocess.hpp.
#pragma once

#include <chrono>

#include "../core/config.hpp"

CUARCH_BEGIN_NAMESPACE

/// How long `nvcc --version` may take by default (it takes ~20 ms; a cold network file system more).
inline constexpr std::chrono::milliseconds default_tool_timeout{10000};

CUARCH_END_NAMESPACE
