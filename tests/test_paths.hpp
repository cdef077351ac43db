// The build's paths, for the tests that read files or run the command line: the source tree,
// tests/data and, where the command line is built (CUARCH_TEST_HAVE_CLI), its path. They are
// defined once, in test_paths.cpp, the one test object that holds an absolute path: every other test
// object is then the same in any clone of the tree, and a compiler cache (scripts/test.sh) reuses it.
// A script that compiles a test alone (asan_ubsan_test.sh, tsan_detect_test.sh) defines the macros.
#pragma once

namespace cuarch_test_paths {
extern const char* const source_dir;
extern const char* const test_data_dir;
extern const char* const cli_path;
}  // namespace cuarch_test_paths

#ifndef CUARCH_SOURCE_DIR
#  define CUARCH_SOURCE_DIR ::cuarch_test_paths::source_dir
#endif
#ifndef CUARCH_TEST_DATA_DIR
#  define CUARCH_TEST_DATA_DIR ::cuarch_test_paths::test_data_dir
#endif
#if defined(CUARCH_TEST_HAVE_CLI) && !defined(CUARCH_CLI_PATH)
#  define CUARCH_CLI_PATH ::cuarch_test_paths::cli_path
#endif
