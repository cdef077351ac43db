# cmake -P driver for compile-fail tests.
#   -DBUILD_DIR=<build tree> -DTARGET=<target> -DREGEX_FILE=<file holding the regex> [-DCONFIG=<cfg>]
# Builds TARGET (which must not be part of `all`) and passes only if the build FAILS and its output
# matches the regular expression. A build that succeeds, or fails for another reason (no match, a
# missing header, a build-system error), fails the test.
foreach(_v BUILD_DIR TARGET REGEX_FILE)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "expect_build_failure: ${_v} not set")
  endif()
endforeach()
file(READ "${REGEX_FILE}" _regex)
string(STRIP "${_regex}" _regex)
set(_config_args "")
if(CONFIG)
  set(_config_args --config "${CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" ${_config_args}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "FAIL: ${TARGET} compiled, but it must not.\n${_out}")
endif()
# A missing header or a broken build system is never the failure a compile-fail test is about.
set(_unrelated "No such file or directory|file not found|CMake Error")
if(_out MATCHES "${_unrelated}" AND NOT "${_regex}" MATCHES "No such file|not found|CMake Error")
  message(FATAL_ERROR "FAIL: ${TARGET} failed for an unrelated reason (missing file or build-system error)\n${_out}")
endif()
if(NOT _out MATCHES "${_regex}")
  message(FATAL_ERROR "FAIL: ${TARGET} failed to build as required, but its output does not match\n"
    "  ${_regex}\n--- output ---\n${_out}")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" _first "${_out}")
message(STATUS "ok: ${TARGET} fails to compile with a diagnostic matching: ${_regex}\n  first error: ${_first}")
