# cuarch_validate_cuda_architectures([ARCHITECTURES <list>] [COMPILER_VERSION <version>] [RESULT_VARIABLE <var>])
#
# Validates CUDA architectures against the CUDA compiler CMake found, at configure time, with cuarch's
# knowledge table: CMAKE_CUDA_ARCHITECTURES="120a" with nvcc 12.4 fails configure with
#   "sm_120a needs CUDA >= 12.8 (have 12.4.131) ...; fix: ..."
# instead of a compile error much later. Defaults: ARCHITECTURES = CMAKE_CUDA_ARCHITECTURES,
# COMPILER_VERSION = CMAKE_CUDA_COMPILER_VERSION (so call it after enable_language(CUDA)).
# Without RESULT_VARIABLE a failure is FATAL_ERROR; with it, <var> receives "" (ok) or the reasons.
# native / all / all-major are left to CMake. The checker is compiled once per build tree (try_run).
include_guard(GLOBAL)

function(cuarch_validate_cuda_architectures)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "COMPILER_VERSION;RESULT_VARIABLE" "ARCHITECTURES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cuarch_validate_cuda_architectures: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT DEFINED arg_ARCHITECTURES)
    set(arg_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  if(NOT arg_COMPILER_VERSION)
    set(arg_COMPILER_VERSION "${CMAKE_CUDA_COMPILER_VERSION}")
  endif()
  if(NOT arg_COMPILER_VERSION)
    message(FATAL_ERROR "cuarch_validate_cuda_architectures: no CUDA compiler version: call it after "
                        "enable_language(CUDA), or pass COMPILER_VERSION <version>")
  endif()
  if(arg_ARCHITECTURES STREQUAL "")
    message(FATAL_ERROR "cuarch_validate_cuda_architectures: the architecture list is empty: set "
                        "CMAKE_CUDA_ARCHITECTURES or pass ARCHITECTURES <list> (an empty list is never valid)")
  endif()
  if(NOT CUARCH_MODULE_INCLUDE_DIR OR NOT EXISTS "${CUARCH_MODULE_INCLUDE_DIR}/cuarch/core/parse.hpp")
    message(FATAL_ERROR "cuarch_validate_cuda_architectures: cuarch headers not found (CUARCH_MODULE_INCLUDE_DIR="
                        "'${CUARCH_MODULE_INCLUDE_DIR}')")
  endif()

  try_run(_run_result _compile_result
    "${CMAKE_BINARY_DIR}/cuarch_validate_architectures"
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cuarch_validate_architectures.cpp"
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${CUARCH_MODULE_INCLUDE_DIR}"
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
    COMPILE_OUTPUT_VARIABLE _compile_output
    RUN_OUTPUT_VARIABLE _run_output
    ARGS "${arg_COMPILER_VERSION}" ${arg_ARCHITECTURES})  # one argument per entry
  if(NOT _compile_result)
    message(FATAL_ERROR "cuarch_validate_cuda_architectures: could not build the checker:\n${_compile_output}")
  endif()
  string(STRIP "${_run_output}" _run_output)
  if(_run_result EQUAL 0)
    message(STATUS "cuarch: CUDA architectures '${arg_ARCHITECTURES}' are buildable by CUDA ${arg_COMPILER_VERSION}")
    set(_reasons "")
  else()
    set(_reasons "CUDA architectures '${arg_ARCHITECTURES}' with CUDA ${arg_COMPILER_VERSION}:\n${_run_output}")
  endif()
  if(arg_RESULT_VARIABLE)
    set(${arg_RESULT_VARIABLE} "${_reasons}" PARENT_SCOPE)
  elseif(_reasons)
    message(FATAL_ERROR "cuarch: ${_reasons}")
  endif()
endfunction()
