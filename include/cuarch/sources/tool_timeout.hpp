// The default bound on one tool run (`nvcc --version`, `ptxas --version`), apart from the tool
// source itself so that detection's options (detect/result.hpp) can name it without the
// subprocess machinery.
#pragma once

#include <chrono>

#include "../core/config.hpp"

CUARCH_BEGIN_NAMESPACE

/// How long `nvcc --version` may take by default (it takes ~20 ms; a cold network file system more).
inline constexpr std::chrono::milliseconds default_tool_timeout{10000};

CUARCH_END_NAMESPACE
