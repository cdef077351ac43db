# ctest driver: configures tests/cmake_module and expects success or a configure failure with a message.
#   -DCUARCH_ROOT=<source> -DWORK=<dir> -DARGS=<;-list of -D options> -DEXPECT=pass|fail [-DREGEX=<regex>]
#   [-DPROJECT_DIR=<consumer project; default tests/cmake_module>]
# A project that configures also builds (a resolved list must compile).
if(NOT PROJECT_DIR)
  set(PROJECT_DIR "${CUARCH_ROOT}/tests/cmake_module")
endif()
file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${WORK}" "-DCUARCH_ROOT=${CUARCH_ROOT}" ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
set(all "${out}${err}")
string(REGEX REPLACE "[ \t\r\n]+" " " all "${all}")  # CMake wraps long messages: match words, not lines
if(EXPECT STREQUAL "pass" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "configure should succeed but failed:\n${all}")
elseif(EXPECT STREQUAL "fail" AND rc EQUAL 0)
  message(FATAL_ERROR "configure should fail but succeeded:\n${all}")
endif()
if(REGEX AND NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output lacks /${REGEX}/:\n${all}")
endif()
if(EXPECT STREQUAL "pass")
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configured, but the build failed:\n${out}${err}")
  endif()
endif()
message(STATUS "ok (${EXPECT}): ${ARGS}")
