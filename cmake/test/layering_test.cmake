# The layering check must pass on the tree and fail on each kind of break, named in its message:
# an upward include, a platform header in core/, a header outside every layer folder, and a
# CUARCH_FUNC header that the compiled mode's src/cuarch.cpp does not include.
#   cmake -DSOURCE_DIR=<repo> -DWORK=<scratch dir> -P layering_test.cmake
set(_check "${SOURCE_DIR}/cmake/check_layers.cmake")
execute_process(COMMAND "${CMAKE_COMMAND}" -DINCLUDE_DIR=${SOURCE_DIR}/include -P "${_check}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the tree breaks its own layering:\n${out}")
endif()

file(COPY "${SOURCE_DIR}/src" DESTINATION "${WORK}")  # beside every copied tree: WORK/<case>/../src

function(_expect_break name file line regex)
  set(tree "${WORK}/${name}")
  file(REMOVE_RECURSE "${tree}")
  file(COPY "${SOURCE_DIR}/include/cuarch" DESTINATION "${tree}")
  if(EXISTS "${tree}/cuarch/${file}")
    file(READ "${tree}/cuarch/${file}" text)
  else()
    set(text "#pragma once\n")
  endif()
  string(REPLACE "#pragma once" "#pragma once\n${line}" text "${text}")
  file(WRITE "${tree}/cuarch/${file}" "${text}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -DINCLUDE_DIR=${tree} -P "${_check}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "FAIL (${name}): the check accepted ${file} with: ${line}")
  endif()
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "FAIL (${name}): message does not match '${regex}':\n${out}")
  endif()
  message(STATUS "ok (${name}): refused")
endfunction()

_expect_break(upward core/arch.hpp "#include \"../detect/detector.hpp\"" "core/arch.hpp: includes detect/detector.hpp, a higher layer")
_expect_break(resolve_to_sources resolve/policy.hpp "#include \"../sources/nvrtc_source.hpp\"" "resolve/policy.hpp: includes sources/nvrtc_source.hpp")
_expect_break(platform_in_core core/parse.hpp "#include <dlfcn.h>" "core/parse.hpp: includes <dlfcn.h>")
_expect_break(platform_in_resolve resolve/outputs.hpp "#include <unistd.h>" "resolve/outputs.hpp: includes <unistd.h>")
_expect_break(posix_to_sources sources/posix/subprocess.hpp "#include \"../nvcc_source.hpp\"" "a higher layer")
_expect_break(stray_folder misc/x.hpp "" "misc/x.hpp: not in a layer folder")
_expect_break(compiled_missing resolve/policy.hpp "CUARCH_FUNC int planted();"
  "resolve/policy.hpp: declares CUARCH_FUNC functions, but src/cuarch.cpp does not include it")
