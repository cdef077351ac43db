// The definitions behind test_paths.hpp, compiled with the build's paths as macros (tests/CMakeLists.txt).
#include "test_paths.hpp"

const char* const cuarch_test_paths::source_dir = CUARCH_SOURCE_DIR;
const char* const cuarch_test_paths::test_data_dir = CUARCH_TEST_DATA_DIR;
#ifdef CUARCH_CLI_PATH
const char* const cuarch_test_paths::cli_path = CUARCH_CLI_PATH;
#else
const char* const cuarch_test_paths::cli_path = nullptr;
#endif
