# cmake -P driver for the package consumer tests (tests/package/).
#   -DMODE=install|build_tree|add_subdirectory|fetchcontent|pkg_config
#   -DCUARCH_SOURCE_DIR=<repo> -DCUARCH_BINARY_DIR=<cuarch build tree> -DWORK_DIR=<scratch dir>
#   -DGENERATOR=<gen> -DCXX=<compiler> -DREQUEST_VERSION=<major.minor> [-DCONFIG=<cfg>]
# install:          cmake --install the library into WORK_DIR/prefix, then find_package(cuarch VERSION CONFIG)
# build_tree:       find_package(cuarch VERSION CONFIG) with cuarch_DIR = the build tree (export())
# add_subdirectory: add_subdirectory(<repo>)
# fetchcontent:     FetchContent_Declare(cuarch SOURCE_DIR <repo>) + FetchContent_MakeAvailable
# pkg_config:       cmake --install into WORK_DIR/prefix, then `pkg-config --cflags --libs cuarch` + $CXX
# Each then builds and runs a consumer that includes <cuarch/cuarch.hpp> and links cuarch::cuarch, and
# (but pkg_config) one that links cuarch::compiled, the compiled mode, and calls detect() from it.
# install also installs the command line and checks that cuarch::cli runs (--version).
foreach(_v MODE CUARCH_SOURCE_DIR CUARCH_BINARY_DIR WORK_DIR GENERATOR CXX REQUEST_VERSION)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "package_test: ${_v} not set")
  endif()
endforeach()
# The build tree's own configuration for `cmake --install` (none for a single-config build without
# CMAKE_BUILD_TYPE: asking for Debug would skip the per-configuration export files).
set(_install_config "")
if(CONFIG)
  set(_install_config --config "${CONFIG}")
else()
  set(CONFIG Debug)
endif()

function(_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL (${MODE}): ${what}\n$ ${ARGN}\n${out}")
  endif()
  message(STATUS "ok: ${what}")
  set(_out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(_pkg "${CUARCH_SOURCE_DIR}/tests/package")
set(_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_BUILD_TYPE=${CONFIG}")

if(MODE STREQUAL "pkg_config")
  set(_prefix "${WORK_DIR}/prefix")
  _step("cmake --install (component cuarch_Development)"
    "${CMAKE_COMMAND}" --install "${CUARCH_BINARY_DIR}" --prefix "${_prefix}" ${_install_config}
    --component cuarch_Development)
  find_program(_pkg_config NAMES pkg-config pkgconf)
  if(NOT _pkg_config)
    message(FATAL_ERROR "FAIL (pkg_config): no pkg-config on this machine (Debian: apt-get install pkgconf)")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${_prefix}/share/pkgconfig")
  _step("pkg-config --cflags --libs cuarch" "${_pkg_config}" --cflags --libs cuarch)
  string(STRIP "${_out}" _flags)
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  _step("pkg-config --modversion cuarch" "${_pkg_config}" --modversion cuarch)
  string(STRIP "${_out}" _version)
  if(NOT _version MATCHES "^${REQUEST_VERSION}\\.")
    message(FATAL_ERROR "FAIL (pkg_config): cuarch.pc says version '${_version}', the package is ${REQUEST_VERSION}")
  endif()
  file(MAKE_DIRECTORY "${WORK_DIR}/consumer")
  _step("compile with the pkg-config flags" "${CXX}" -std=c++17 -Wall -Wextra -Werror "${_pkg}/main.cpp" ${_flags}
    -o "${WORK_DIR}/consumer/consumer")
  _step("run consumer" "${WORK_DIR}/consumer/consumer")
  message(STATUS "${_out}")
  return()
endif()

if(MODE STREQUAL "install")
  set(_prefix "${WORK_DIR}/prefix")
  _step("cmake --install (component cuarch_Development)"
    "${CMAKE_COMMAND}" --install "${CUARCH_BINARY_DIR}" --prefix "${_prefix}" ${_install_config}
    --component cuarch_Development)
  _step("cmake --install (component cuarch_Runtime: the command line)"
    "${CMAKE_COMMAND}" --install "${CUARCH_BINARY_DIR}" --prefix "${_prefix}" ${_install_config}
    --component cuarch_Runtime)
  if(NOT EXISTS "${_prefix}/include/cuarch/cuarch.hpp")
    message(FATAL_ERROR "FAIL (install): include/cuarch/cuarch.hpp was not installed")
  endif()
  set(_src "${_pkg}/find_package")
  list(APPEND _args "-DCMAKE_PREFIX_PATH=${_prefix}" "-DCUARCH_REQUEST_VERSION=${REQUEST_VERSION}"
    "-DCUARCH_EXPECT_INCLUDE_PREFIX=${_prefix}" -DCUARCH_EXPECT_CLI=ON)
elseif(MODE STREQUAL "build_tree")
  set(_src "${_pkg}/find_package")
  list(APPEND _args "-Dcuarch_DIR=${CUARCH_BINARY_DIR}" "-DCUARCH_REQUEST_VERSION=${REQUEST_VERSION}")
elseif(MODE STREQUAL "fetchcontent")
  set(_src "${_pkg}/fetchcontent")
  list(APPEND _args "-DCUARCH_SOURCE_DIR=${CUARCH_SOURCE_DIR}")
elseif(MODE STREQUAL "add_subdirectory")
  set(_src "${_pkg}/add_subdirectory")
  list(APPEND _args "-DCUARCH_SOURCE_DIR=${CUARCH_SOURCE_DIR}")
else()
  message(FATAL_ERROR "package_test: unknown MODE '${MODE}'")
endif()

set(_bin "${WORK_DIR}/consumer")
_step("configure consumer (${_src})" "${CMAKE_COMMAND}" -S "${_src}" -B "${_bin}" ${_args})
_step("build consumer" "${CMAKE_COMMAND}" --build "${_bin}" --config "${CONFIG}")
find_program(_exe consumer PATHS "${_bin}" "${_bin}/${CONFIG}" NO_DEFAULT_PATH REQUIRED)
_step("run consumer" "${_exe}")
message(STATUS "${_out}")
find_program(_compiled_exe compiled_consumer PATHS "${_bin}" "${_bin}/${CONFIG}" NO_DEFAULT_PATH REQUIRED)
_step("run compiled_consumer" "${_compiled_exe}")
message(STATUS "${_out}")
