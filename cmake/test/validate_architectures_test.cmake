# ctest driver: configures tests/cmake_module and expects success or a configure failure with a message.
#   -DCUARCH_ROOT=<source> -DWORK=<dir> -DARGS=<;-list of -D options> -DEXPECT=pass|fail [-DREGEX=<regex>]
file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${CUARCH_ROOT}/tests/cmake_module" -B "${WORK}" "-DCUARCH_ROOT=${CUARCH_ROOT}" ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
set(all "${out}${err}")
if(EXPECT STREQUAL "pass" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "configure should succeed but failed:\n${all}")
elseif(EXPECT STREQUAL "fail" AND rc EQUAL 0)
  message(FATAL_ERROR "configure should fail but succeeded:\n${all}")
endif()
if(REGEX AND NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output lacks /${REGEX}/:\n${all}")
endif()
message(STATUS "ok (${EXPECT}): ${ARGS}")
