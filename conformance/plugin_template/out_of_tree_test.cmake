# ctest conformance_plugin_template_out_of_tree: install the `sdk` component into a fresh prefix,
# configure and build the plugin template against it with find_package(convcheck) (outside this
# tree, no convcheck source on any path) with the installed convcheck_add_backend_plugin (the file
# this tree's plugins are built with), check that it exports its entry point alone, and run the
# installed convcheck on the smoke suite with it.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "step failed (${code}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix --component sdk)
# Every header of the ABI (conformance/include/convcheck/) is installed, and each compiles on its own
# from the prefix alone (a C++ helper needs nothing but plugin.h and the standard library).
file(GLOB_RECURSE abi_headers RELATIVE ${SOURCE_DIR}/conformance/include/convcheck
     ${SOURCE_DIR}/conformance/include/convcheck/*.h ${SOURCE_DIR}/conformance/include/convcheck/*.hpp)
foreach(header ${abi_headers})
  if(NOT EXISTS ${WORK_DIR}/prefix/include/convcheck/${header})
    message(FATAL_ERROR "the sdk component did not install include/convcheck/${header}")
  endif()
  file(WRITE ${WORK_DIR}/alone/${header}.cpp "#include <convcheck/${header}>\n")
  step(${CXX} -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I${WORK_DIR}/prefix/include
       ${WORK_DIR}/alone/${header}.cpp)
endforeach()
# The plugin function is the one this tree builds its own plugins with (cmake/ConvcheckPlugin.cmake).
foreach(file ConvcheckPlugin.cmake convcheck_plugin_exports.map)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/prefix/lib/cmake/convcheck/${file}
                          ${SOURCE_DIR}/cmake/${file} RESULT_VARIABLE differs)
  if(NOT differs EQUAL 0)
    message(FATAL_ERROR "the sdk component did not install cmake/${file} as lib/cmake/convcheck/${file}")
  endif()
endforeach()
file(COPY ${TEMPLATE_DIR}/CMakeLists.txt ${TEMPLATE_DIR}/my_backend.cpp DESTINATION ${WORK_DIR}/src)
step(${CMAKE_COMMAND} -S ${WORK_DIR}/src -B ${WORK_DIR}/build -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_FLAGS=-Wall\ -Wextra\ -Wpedantic\ -Werror)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${CMAKE_COMMAND} -DNM=${NM} -DPLUGINS=${WORK_DIR}/build/libconvcheck_plugin_my_backend.so
     -P ${SOURCE_DIR}/cmake/check_plugin_exports.cmake)
step(${WORK_DIR}/prefix/bin/convcheck run --backend ${WORK_DIR}/build/libconvcheck_plugin_my_backend.so
     --suite smoke --quiet --json ${WORK_DIR}/results.jsonl)
file(STRINGS ${WORK_DIR}/results.jsonl lines REGEX "\"status\":\"passed\"")
list(LENGTH lines passed)
if(passed LESS 20)
  message(FATAL_ERROR "the template passed only ${passed} smoke cases")
endif()
# the installed runner finds its installed plugins by name
step(${WORK_DIR}/prefix/bin/convcheck run --backend reference --case c=1,o=1,in=3,k=2 --quiet
     --json ${WORK_DIR}/installed.jsonl)
file(STRINGS ${WORK_DIR}/installed.jsonl run_line REGEX "\"record\":\"run\"")
# the runner names the plugin by its real path: a build directory reached through a symbolic link differs from it
file(REAL_PATH ${WORK_DIR} real_work_dir)
if(NOT run_line MATCHES "\"backend_path\":\"${real_work_dir}/prefix/lib/convcheck/plugins/libconvcheck_plugin_reference.so\"")
  message(FATAL_ERROR "the installed convcheck did not load the installed reference plugin: ${run_line}")
endif()
message(STATUS "template built out of tree and passed ${passed} smoke cases")
