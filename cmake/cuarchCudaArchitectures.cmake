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
# COMPILER, else CMAKE_CUDA_COMPILER, else $CUDACXX (its program; arguments as CMake splits them), else
# cuarch's discovery (CUDA_HOME, CUDA_PATH, PATH, ...). That nvcc is then the one CMake compiles with:
# when CMAKE_CUDA_COMPILER is not set, the function sets its cache entry to the nvcc that decided
# (and CMAKE_CUDA_COMPILER_ARG1 to $CUDACXX's arguments, as CMake would) and says so in its status
# line, naming what CMake's own search would have taken: CMake never reads CUDA_HOME, so without
# this the seed layout (nvcc 12.8 first on PATH, CUDA 13.0 in CUDA_HOME) validated with 13.0 and
# compiled with 12.8. COMPILER naming another nvcc than a CMAKE_CUDA_COMPILER already set stops
# configure, naming both; so does, at the end of the top-level directory, a CMAKE_CUDA_COMPILER
# changed after the call (cmake_language(DEFER)).
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
  # The nvcc CMake will compile with, by CMake's own rule (Modules/CMakeDetermineCUDACompiler.cmake,
  # the same in 3.25 and 4.4): CMAKE_CUDA_COMPILER when set (a list is the compiler then its
  # arguments; a bare name is looked up on PATH); else $ENV{CUDACXX}, split by
  # get_filename_component(PROGRAM PROGRAM_ARGS), the arguments going to CMAKE_CUDA_COMPILER_ARG1;
  # else a search (_cuarch_cmake_nvcc_search). CMake never reads CUDA_HOME, so where cuarch's own
  # discovery decides, the nvcc it found is written to CMAKE_CUDA_COMPILER below.
  set(cmake_nvcc "")
  if(CMAKE_CUDA_COMPILER)
    list(GET CMAKE_CUDA_COMPILER 0 cmake_nvcc)
    _cuarch_on_path(cmake_nvcc "${cmake_nvcc}")
  endif()
  set(cudacxx "")
  set(cudacxx_args "")
  if(NOT "$ENV{CUDACXX}" STREQUAL "")
    get_filename_component(cudacxx "$ENV{CUDACXX}" PROGRAM PROGRAM_ARGS cudacxx_args)
  endif()
  if(arg_COMPILER)
    set(nvcc "${arg_COMPILER}")
    set(how "COMPILER argument")
    # Judging one nvcc while CMake compiles with another is the failure this module exists to stop.
    if(cmake_nvcc)
      _cuarch_on_path(compiler_arg "${arg_COMPILER}")
      _cuarch_same_file(same "${compiler_arg}" "${cmake_nvcc}")
      if(NOT same)
        set(cmake_says "${CMAKE_CUDA_COMPILER}")
        if(NOT cmake_says STREQUAL cmake_nvcc)
          string(APPEND cmake_says " (${cmake_nvcc})")
        endif()
        message(FATAL_ERROR "cuarch_resolve_cuda_architectures: COMPILER ${arg_COMPILER} is not the nvcc CMake "
          "compiles with: CMAKE_CUDA_COMPILER is ${cmake_says}. fix: name one nvcc for both: "
          "-DCMAKE_CUDA_COMPILER=${arg_COMPILER} (on a fresh build directory), or drop COMPILER so that cuarch "
          "judges ${cmake_nvcc}")
      endif()
    endif()
  elseif(cmake_nvcc)
    set(nvcc "${cmake_nvcc}")
    set(how "CMAKE_CUDA_COMPILER")
    if(DEFINED CACHE{_CUARCH_BOUND_CUDA_COMPILER} AND "$CACHE{_CUARCH_BOUND_CUDA_COMPILER}" STREQUAL "${cmake_nvcc}")
      set(how "CMAKE_CUDA_COMPILER, which cuarch set on an earlier call")
    endif()
  elseif(cudacxx)
    set(nvcc "${cudacxx}")
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
  # The answer is a JSON document in a file (what a library loaded while detecting prints on stdout
  # cannot corrupt it), read with string(JSON): no text of it is re-parsed here.
  set(answer "${CMAKE_CURRENT_BINARY_DIR}/cuarch_resolve_answer.json")
  file(REMOVE "${answer}")
  execute_process(COMMAND "${helper}" ${args} "answer=${answer}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  set(doc "")
  if(EXISTS "${answer}")
    file(READ "${answer}" doc)
    file(REMOVE "${answer}")
  endif()
  string(JSON bad_json ERROR_VARIABLE json_error TYPE "${doc}" error)
  if(NOT json_error STREQUAL "NOTFOUND")
    message(FATAL_ERROR "cuarch: cannot resolve CUDA architectures '${arg_REQUEST}': the helper ${helper} gave no "
      "answer cuarch can read (exit ${rc}; ${json_error}): ${out}${err}\nfix: delete the helper to have it rebuilt")
  endif()
  foreach(member architectures compiler compiler_path error)
    _cuarch_answer_text(${member} "${doc}" ${member})
  endforeach()
  set(errors "${error}")
  _cuarch_answer_text(notes "${doc}" notes "\n  ")
  _cuarch_answer_text(warnings "${doc}" warnings "\ncuarch: ")
  if(NOT warnings STREQUAL "")
    string(STRIP "${warnings}" warnings)
    message(WARNING "${warnings}")
  endif()
  string(JSON path_bytes ERROR_VARIABLE no_bytes GET "${doc}" compiler_path_bytes)
  if(no_bytes STREQUAL "NOTFOUND")
    message(FATAL_ERROR "cuarch: the nvcc that decided, ${compiler_path}, has a path that is not UTF-8 (bytes "
      "${path_bytes}), which CMake's JSON reading cannot carry whole. fix: name it yourself with "
      "-DCMAKE_CUDA_COMPILER=<path>, or install the toolkit under a UTF-8 path")
  endif()
  if(NOT rc EQUAL 0 OR architectures STREQUAL "")
    if(errors STREQUAL "")
      set(errors "the helper failed (exit ${rc}): ${out}${err}")
    endif()
    if(arg_REQUEST STREQUAL "native" AND arg_DEVICE_CC STREQUAL "-")
      string(APPEND errors "\n(on a build machine without GPUs pass DEVICE_CC, e.g. DEVICE_CC 9.0)")
    endif()
    message(FATAL_ERROR "cuarch: cannot resolve CUDA architectures '${arg_REQUEST}': ${errors}${notes}")
  endif()
  if(compiler_path STREQUAL "")
    message(FATAL_ERROR "cuarch_resolve_cuda_architectures: the helper ${helper} did not name the nvcc that decided "
                        "(no compiler_path in its answer): it is older than this module; delete it to have it rebuilt")
  endif()
  # Bind CMake to the nvcc that decided, unless the user already chose CMake's compiler.
  set(bound "")
  if(NOT cmake_nvcc)
    if(how STREQUAL "-")
      _cuarch_cmake_nvcc_search(would)
      set(bound "${compiler_path}")
      if(NOT would)
        set(bound_note "CMake's own search finds no nvcc")
      else()
        _cuarch_same_file(same "${would}" "${compiler_path}")
        if(same)
          set(bound_note "the one CMake's own search finds too")
        else()
          set(bound_note "where CMake's own search (PATH, then $CUDA_PATH/bin) would take ${would}")
        endif()
      endif()
    else()
      set(bound "${nvcc}")
      if(how STREQUAL "CUDACXX")
        set(bound_note "from CUDACXX, as CMake reads it")
      else()
        set(bound_note "from COMPILER")
        if(cudacxx)
          _cuarch_same_file(same "${cudacxx}" "${nvcc}")
          if(NOT same)
            string(APPEND bound_note "; CUDACXX=$ENV{CUDACXX} is not read, CMAKE_CUDA_COMPILER comes first")
          endif()
        endif()
      endif()
    endif()
    if(NOT IS_ABSOLUTE "${bound}")
      set(bound "${compiler_path}")
    endif()
    # FORCE: an entry here is empty or <var>-NOTFOUND (CMAKE_CUDA_COMPILER is false), never a choice.
    set(CMAKE_CUDA_COMPILER "${bound}" CACHE FILEPATH "CUDA compiler" FORCE)
    set(_CUARCH_BOUND_CUDA_COMPILER "${bound}" CACHE INTERNAL "the CMAKE_CUDA_COMPILER cuarch set")
    unset(CMAKE_CUDA_COMPILER PARENT_SCOPE)  # an empty normal variable would hide the entry (CMP0126)
    if(how STREQUAL "CUDACXX" AND NOT cudacxx_args STREQUAL "")
      # What CMake does with CUDACXX's arguments, which it skips once CMAKE_CUDA_COMPILER is set.
      set(CMAKE_CUDA_COMPILER_ARG1 "${cudacxx_args}" CACHE STRING "Arguments to CUDA compiler")
    endif()
  endif()
  # What CMAKE_CUDA_COMPILER names now (the user's spelling, or the one set above) must still be
  # what it names at the end of configure.
  if(cmake_nvcc)
    set(bound_now "${cmake_nvcc}")
  else()
    set(bound_now "${bound}")
  endif()
  _cuarch_check_cuda_compiler_later("${bound_now}" "${arg_REQUEST}")
  if(bound)
    message(STATUS "cuarch: CUDA architectures '${arg_REQUEST}' -> ${architectures}, decided by ${compiler}; "
                   "CMAKE_CUDA_COMPILER set to ${bound}, ${bound_note}")
  else()
    message(STATUS "cuarch: CUDA architectures '${arg_REQUEST}' -> ${architectures}, decided by ${compiler}")
  endif()
  set(${out_var} "${architectures}" PARENT_SCOPE)
endfunction()

# <out> = member <key> of the helper's answer <doc>: a string's value ("" for null), or an array's
# strings each after <lead> (ARGV3). A CMake list's semicolons stay in the value: set() keeps a quoted
# value whole, and no list of the strings is ever made.
function(_cuarch_answer_text out doc key)
  string(JSON type TYPE "${doc}" ${key})
  set(value "")
  if(type STREQUAL "STRING")
    string(JSON value GET "${doc}" ${key})
  elseif(type STREQUAL "ARRAY")
    string(JSON n LENGTH "${doc}" ${key})
    foreach(i RANGE ${n})  # 0..n: the last index is n - 1, and RANGE of an empty array still yields 0
      if(i LESS n)
        string(JSON item GET "${doc}" ${key} ${i})
        string(APPEND value "${ARGV3}${item}")
      endif()
    endforeach()
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# <out> = program, or where PATH has it when it is a bare name (as CMake looks up a CMAKE_CUDA_COMPILER
# without a directory: _cmake_find_compiler_path).
function(_cuarch_on_path out program)
  if(NOT IS_ABSOLUTE "${program}")
    find_program(found NAMES "${program}" NO_CACHE)
    if(found)
      set(program "${found}")
    endif()
  endif()
  set(${out} "${program}" PARENT_SCOPE)
endfunction()

# <out> = TRUE when paths a and b name the same file (symbolic links resolved).
function(_cuarch_same_file out a b)
  file(REAL_PATH "${a}" a)
  file(REAL_PATH "${b}" b)
  if(a STREQUAL b)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# <out> = the nvcc CMake's own search would take when neither CMAKE_CUDA_COMPILER nor CUDACXX is
# set (_cmake_find_compiler(CUDA) in Modules/CMakeDetermineCompiler.cmake, 3.25 and 4.4): nvcc in the
# directories of the other enabled languages' compilers, then find_program's default search (PATH
# and CMake's prefixes), then $ENV{CUDA_PATH}/bin. Empty when none.
function(_cuarch_cmake_nvcc_search out)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(hints "")
  foreach(l IN LISTS languages)
    if(NOT l STREQUAL "CUDA" AND IS_ABSOLUTE "${CMAKE_${l}_COMPILER}")
      get_filename_component(dir "${CMAKE_${l}_COMPILER}" DIRECTORY)
      list(APPEND hints "${dir}")
    endif()
  endforeach()
  if(hints)
    find_program(by_hint NAMES nvcc PATHS ${hints} NO_DEFAULT_PATH NO_CACHE)
  endif()
  find_program(by_default NAMES nvcc NO_CACHE)
  if(NOT "$ENV{CUDA_PATH}" STREQUAL "")
    find_program(by_cuda_path NAMES nvcc PATHS "$ENV{CUDA_PATH}/bin" NO_DEFAULT_PATH NO_CACHE)
  endif()
  set(${out} "" PARENT_SCOPE)
  foreach(found IN ITEMS "${by_hint}" "${by_default}" "${by_cuda_path}")
    if(found)
      set(${out} "${found}" PARENT_SCOPE)
      break()
    endif()
  endforeach()
endfunction()

# At the end of the top-level directory, CMAKE_CUDA_COMPILER must still be the nvcc that decided: a
# project that sets it after asking cuarch (or a toolchain step that does) stops here, naming both.
function(_cuarch_check_cuda_compiler_later cmake_compiler request)
  get_property(pending GLOBAL PROPERTY _CUARCH_JUDGED_CUDA_COMPILERS)
  if(NOT pending)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cuarch_check_cuda_compiler)
  endif()
  string(REPLACE ";" "," request "${request}")  # one entry of the property's list
  set_property(GLOBAL APPEND PROPERTY _CUARCH_JUDGED_CUDA_COMPILERS "${cmake_compiler}|${request}")
endfunction()

function(_cuarch_check_cuda_compiler)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    return()  # CMake compiles no CUDA: nothing ran another nvcc
  endif()
  get_property(judged_list GLOBAL PROPERTY _CUARCH_JUDGED_CUDA_COMPILERS)
  # The variable this directory sees, and the cache entry a subdirectory's enable_language read;
  # either may be a list, the compiler then its arguments.
  set(used "")
  foreach(value IN ITEMS "${CMAKE_CUDA_COMPILER}" "$CACHE{CMAKE_CUDA_COMPILER}")
    if(NOT value STREQUAL "")
      list(GET value 0 value)
      list(APPEND used "${value}")
    endif()
  endforeach()
  foreach(entry IN LISTS judged_list)
    string(REGEX REPLACE "\\|.*" "" judged "${entry}")
    string(REGEX REPLACE "^[^|]*\\|" "" request "${entry}")
    foreach(compiler IN LISTS used)
      _cuarch_same_file(same "${compiler}" "${judged}")
      if(NOT same)
        message(FATAL_ERROR "cuarch: CMAKE_CUDA_COMPILER is ${compiler}, but the CUDA architectures '${request}' "
          "were validated by ${judged}, CMAKE_CUDA_COMPILER when cuarch_resolve_cuda_architectures returned. "
          "fix: set CMAKE_CUDA_COMPILER (or CUDACXX) before calling cuarch_resolve_cuda_architectures, not "
          "after, so that it judges the nvcc that compiles; or pass COMPILER ${compiler}")
      endif()
    endforeach()
  endforeach()
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
