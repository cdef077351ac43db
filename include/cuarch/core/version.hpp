// cuarch version: the only place it is written (CMake reads these three lines).
#pragma once

#define CUARCH_VERSION_MAJOR 0
#define CUARCH_VERSION_MINOR 1
#define CUARCH_VERSION_PATCH 0

#define CUARCH_VERSION (CUARCH_VERSION_MAJOR * 10000 + CUARCH_VERSION_MINOR * 100 + CUARCH_VERSION_PATCH)
