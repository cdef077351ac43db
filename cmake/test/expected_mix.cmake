# cmake -P driver for the expected-mix tests: proves that translation units built with different
# CUARCH_USE_STD_EXPECTED settings cannot be linked into one program (tests/expected_mix/).
#   -DCASE=param|return -DSOURCE_DIR=<tests/expected_mix> -DBINARY_DIR=<scratch>
#   -DCUARCH_SOURCE_DIR=<repo> -DGENERATOR=<gen> -DCXX=<compiler>
# Passes when agree_CASE_std and agree_CASE_lite build (both TUs in one mode: everything compiles
# and links) and mixed_CASE and mixed_CASE_reverse FAIL with an undefined-symbol link error.
foreach(_v CASE SOURCE_DIR BINARY_DIR CUARCH_SOURCE_DIR GENERATOR CXX)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "expected_mix: ${_v} not set")
  endif()
endforeach()
set(_link_error "undefined reference|undefined symbol|Undefined symbols|unresolved external")
set(_hint "")
if(CASE STREQUAL "return")
  # A function's mangled name leaves out its return type; the ABI namespace alone cannot help.
  string(CONCAT _hint "Hint: tag the ABI namespace (GCC/Clang: inline namespace NAME __attribute__((abi_tag)) {) "
    "so that functions returning cuarch types carry the tag in their mangled names.\n")
endif()

function(_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(_rc "${rc}" PARENT_SCOPE)
  set(_out "${out}" PARENT_SCOPE)
endfunction()

_run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX}" "-DCUARCH_SOURCE_DIR=${CUARCH_SOURCE_DIR}" -DCMAKE_BUILD_TYPE=Debug)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "FAIL: configuring ${SOURCE_DIR} failed\n${_out}")
endif()

foreach(_t agree_${CASE}_std agree_${CASE}_lite)
  _run("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target ${_t})
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "FAIL: control program ${_t} (both TUs in one mode) did not build\n${_out}")
  endif()
  message(STATUS "ok: ${_t} links (both translation units agree)")
endforeach()

foreach(_t mixed_${CASE} mixed_${CASE}_reverse)
  _run("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target ${_t})
  if(_rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${_t} LINKED although its translation units disagree on "
      "CUARCH_USE_STD_EXPECTED: a silent ODR violation\n${_hint}${_out}")
  endif()
  if(NOT _out MATCHES "${_link_error}")
    message(FATAL_ERROR "FAIL: ${_t} failed to build, but not with an undefined-symbol link error\n${_out}")
  endif()
  string(REGEX MATCH "[^\n]*(${_link_error})[^\n]*" _line "${_out}")
  message(STATUS "ok: ${_t} fails to link: ${_line}")
endforeach()
