# cuarch_validate_cuda_architectures([ARCHITECTURES <list>] [COMPILER_VERSION <version>] [RESULT_VARIABLE <var>])
#
# Validates CUDA architectures against the CUDA compiler CMake found, at configure time, with cuarch's
# knowledge table: CMAKE_CUDA_ARCHITECTURES="120a" with nvcc 12.4 fails configure with
#   "sm_120a needs CUDA >= 12.8 (have 12.4.131) ...; fix: ..."
# instead of a compile error much later. Defaults: ARCHITECTURES = CMAKE_CUDA_ARCHITECTURES,
# COMPILER_VERSION = CMAKE_CUDA_COMPILER_VERSION (so call it after enable_language(CUDA)).
# Without RESULT_VARIABLE a failure is FATAL_ERROR; with it, <var> receives "" (ok) or the reasons.
# native / all / all-major are resolved by cuarch_resolve_cuda_architectures() against the same
# compiler and then checked, never reported as buildable unexamined. The checker is compiled once
# per build tree (try_run).
#
# cuarch_resolve_cuda_architectures(<out-var> [REQUEST <list>|native|all|all-major] [DEVICE_CC <ccs>]
#                                   [COMPILER <nvcc>] [POLICY <policy>...] [NATIVE_VARIANT <rules>])
#
# Resolves a request into a CUDA_ARCHITECTURES value validated against the nvcc that will compile:
# COMPILER, else CMAKE_CUDA_COMPILER, else $CUDACXX, else cuarch's discovery (CUDA_HOME, PATH, ...).
# Callable before enable_language(CUDA), and before project() when this file is included directly
# (it compiles its helper with CMAKE_CXX_COMPILER, else $CXX, else c++/g++/clang++ on PATH).
# REQUEST defaults to native; native reads DEVICE_CC (build machines without GPUs) or the devices
# this machine shows. Prints one status line naming the compiler that decided and how it was
# found; a failure stops configure with cuarch's message (every rejected target and its reason).
# POLICY: strict (default), best-effort, ptx-fallback, verify-devices, compatible-minor. NATIVE_VARIANT:
# as --native-variant ("a", "f,a,baseline", "12.0=f,default=a"). The value is spelled for this CMake
# (CMAKE_VERSION): an `f` target under CMake < 4.0.2, whose CMAKE_CUDA_ARCHITECTURES has no `f`, stops
# here with the reason (the library's cmake_architectures decides; docs/conformance.md).
include_guard(GLOBAL)

# The helper behind cuarch_resolve_cuda_architectures, built once per build tree from the headers.
# CUARCH_RESOLVE_HELPER may name a prebuilt helper (cuarch's own tests share one).
function(_cuarch_resolve_helper out_var)
  if(CUARCH_RESOLVE_HELPER)
    set(${out_var} "${CUARCH_RESOLVE_HELPER}" PARENT_SCOPE)
    return()
  endif()
  # Keyed on cuarch's version, so a build tree that gets a newer cuarch (FetchContent, a submodule)
  # builds a new helper instead of answering with the old table.
  file(STRINGS "${CUARCH_MODULE_INCLUDE_DIR}/cuarch/core/version.hpp" _v REGEX "#define CUARCH_VERSION_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE "[^0-9;]*#define CUARCH_VERSION_[A-Z]+ +([0-9]+)[^;]*" "\\1" _v "${_v}")
  string(REPLACE ";" "." _v "${_v}")
  set(bin "${CMAKE_BINARY_DIR}/cuarch-helpers/${_v}/cuarch_resolve_architectures")
  set(src "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cuarch_resolve_architectures.cpp")
  if(EXISTS "${bin}" AND NOT "${src}" IS_NEWER_THAN "${bin}")
    set(${out_var} "${bin}" PARENT_SCOPE)
    return()
  endif()
  if(CMAKE_CXX_COMPILER)
    set(cxx "${CMAKE_CXX_COMPILER}")
  elseif(DEFINED ENV{CXX} AND NOT "$ENV{CXX}" STREQUAL "")
    set(cxx "$ENV{CXX}")
  else()
    find_program(cxx NAMES c++ g++ clang++ NO_CACHE)
  endif()
  if(NOT cxx)
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: no C++ compiler to build cuarch's helper: "
                        "enable CXX in project(), or set CXX")
  endif()
  get_filename_component(_dir "${bin}" DIRECTORY)
  file(MAKE_DIRECTORY "${_dir}")
  execute_process(
    COMMAND "${cxx}" -std=c++17 -O0 "-I${CUARCH_MODULE_INCLUDE_DIR}" "${src}" -o "${bin}" -ldl
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: could not build cuarch's helper with ${cxx}:\n${out}")
  endif()
  set(${out_var} "${bin}" PARENT_SCOPE)
endfunction()

function(cuarch_resolve_cuda_architectures out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DEVICE_CC;COMPILER;NATIVE_VARIANT" "REQUEST;POLICY")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  # PARSE_ARGV keeps a quoted list ("${list}") as one element with its semicolons escaped: REQUEST
  # "80;90" and REQUEST 80 90 are the same request.
  foreach(v REQUEST POLICY DEVICE_CC NATIVE_VARIANT)
    if(DEFINED arg_${v})
      string(REPLACE "\\;" ";" arg_${v} "${arg_${v}}")
    endif()
  endforeach()
  if(NOT DEFINED arg_REQUEST)
    set(arg_REQUEST native)
  endif()
  if(arg_REQUEST STREQUAL "")
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: REQUEST is empty (an empty list is never valid)")
  endif()
  if(NOT CUARCH_MODULE_INCLUDE_DIR OR NOT EXISTS "${CUARCH_MODULE_INCLUDE_DIR}/cuarch/detect.hpp")
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: cuarch headers not found (CUARCH_MODULE_INCLUDE_DIR="
                        "'${CUARCH_MODULE_INCLUDE_DIR}')")
  endif()
  # The nvcc that will compile: as CMake would pick it.
  if(arg_COMPILER)
    set(nvcc "${arg_COMPILER}")
    set(how "COMPILER argument")
  elseif(CMAKE_CUDA_COMPILER)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
    set(how "CMAKE_CUDA_COMPILER")
  elseif(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
    set(nvcc "$ENV{CUDACXX}")
    set(how "CUDACXX")
  else()
    set(nvcc "-")
    set(how "-")
  endif()
  # Every argument is a cuarch option (include/cuarch/front_door/options.hpp), read by the library.
  # A CMake list value keeps its semicolons: escaped, it stays one argument.
  string(REPLACE ";" "\\;" request_arg "${arg_REQUEST}")
  # The CMake that will read the answer: the library spells it for this CMake, or says which would.
  set(args "archs=${request_arg}" "cmake_version=${CMAKE_VERSION}")
  if(arg_DEVICE_CC)
    string(REPLACE ";" "," devices "${arg_DEVICE_CC}")
    list(APPEND args "devices=${devices}")
  endif()
  if(arg_NATIVE_VARIANT)
    string(REPLACE ";" "," variant "${arg_NATIVE_VARIANT}")
    list(APPEND args "native_variant=${variant}")
  endif()
  if(arg_POLICY)
    string(REPLACE ";" "," policies "${arg_POLICY}")
    list(APPEND args "policy=${policies}")
  endif()
  if(NOT nvcc STREQUAL "-")
    list(APPEND args "nvcc=${nvcc}" "how=${how}")
  endif()
  if(NOT arg_DEVICE_CC)
    set(arg_DEVICE_CC "-")
  endif()

  _cuarch_resolve_helper(helper)
  execute_process(COMMAND "${helper}" ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  string(REPLACE ";" "<cuarch-semicolon>" out "${out}")  # keep lists whole while splitting lines
  string(REGEX MATCHALL "[^\n]+" lines "${out}")
  set(architectures "")
  set(compiler "")
  set(errors "")
  set(notes "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^architectures=(.*)$")
      set(architectures "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^compiler=(.*)$")
      set(compiler "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^error=(.*)$")
      string(APPEND errors "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^note=(.*)$")
      string(APPEND notes "\n  ${CMAKE_MATCH_1}")
    elseif(line MATCHES "^warning=(.*)$")
      string(REPLACE "<cuarch-semicolon>" ";" warning "${CMAKE_MATCH_1}")
      message(WARNING "cuarch: ${warning}")
    endif()
  endforeach()
  foreach(v architectures compiler errors notes)
    string(REPLACE "<cuarch-semicolon>" ";" ${v} "${${v}}")
  endforeach()
  if(NOT rc EQUAL 0 OR architectures STREQUAL "")
    if(errors STREQUAL "")
      set(errors "the helper failed (exit ${rc}): ${out}${err}")
    endif()
    if(arg_REQUEST STREQUAL "native" AND arg_DEVICE_CC STREQUAL "-")
      string(APPEND errors "\n(on a build machine without GPUs pass DEVICE_CC, e.g. DEVICE_CC 9.0)")
    endif()
    message(FATAL_ERROR "cuarch: cannot resolve CUDA architectures '${arg_REQUEST}': ${errors}${notes}")
  endif()
  message(STATUS "cuarch: CUDA architectures '${arg_REQUEST}' -> ${architectures}, decided by ${compiler}")
  set(${out_var} "${architectures}" PARENT_SCOPE)
endfunction()

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
  if(arg_ARCHITECTURES MATCHES "^(native|all|all-major)$")
    # A keyword is resolved against the same compiler, then its targets are what is validated.
    cuarch_resolve_cuda_architectures(arg_ARCHITECTURES REQUEST "${arg_ARCHITECTURES}")
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
