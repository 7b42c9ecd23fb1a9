# Shared by the third-party backend plugins (onednn, xnnpack, libtorch, opencv): the adaptations
# (exact data movement: reorders, rank 1 as rank 2, crops, explicit zero padding; adaptation.hpp),
# and one function that builds a plugin as a MODULE library in <build>/plugins/ and registers its
# ctest entries. (conformance/CMakeLists.txt includes the part.cmake files in path order: this one
# comes before the plugins' own, after backend_test's, which defines the test program used below.)
set(CONVCHECK_PLUGIN_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})

# The adaptations need only the ABI header: a plugin still links none of convcheck's convolution code.
add_library(convcheck_plugin_adaptation STATIC ${CMAKE_CURRENT_LIST_DIR}/adaptation.cpp
            ${CMAKE_CURRENT_LIST_DIR}/window_copy.cpp)
target_include_directories(convcheck_plugin_adaptation PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(convcheck_plugin_adaptation PUBLIC convcheck_abi)
set_target_properties(convcheck_plugin_adaptation PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

if(CONVCHECK_BUILD_TESTS)
  # Every adaptation against the reference: the adapted case computes exactly the original.
  convcheck_add_test(plugins_adaptation_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/adaptation_test.cpp
                     LIBS convcheck_plugin_adaptation convcheck_reference convcheck_abi_descriptor)
endif()

# convcheck_add_backend_plugin(name SOURCES a.cpp LIBS lib...) -> target convcheck_plugin_<name>,
# file <build>/plugins/libconvcheck_plugin_<name>.so
function(convcheck_add_backend_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  set(target convcheck_plugin_${name})
  # Only the ABI header and the adaptations: a plugin never links convcheck's own convolution code.
  if(COMMAND convcheck_add_plugin)  # the runner's (conformance/include/part.cmake), when present
    convcheck_add_plugin(${name} SOURCES ${P_SOURCES} LIBS convcheck_plugin_adaptation ${P_LIBS})
  else()
    add_library(${target} MODULE ${P_SOURCES})
    target_link_libraries(${target} PRIVATE convcheck_abi convcheck_plugin_adaptation ${P_LIBS})
    # Export convcheck_get_api only, so that several plugins load side by side in one process.
    set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
  endif()
  target_include_directories(${target} PRIVATE ${CONVCHECK_PLUGIN_COMMON_DIR})
  if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_backend_test)
    # The direct ABI-level check of this plugin against the reference (conformance/plugins/backend_test).
    add_test(NAME backend_${name} COMMAND convcheck_backend_test $<TARGET_FILE:${target}>)
    set_tests_properties(backend_${name} PROPERTIES TIMEOUT 120 LABELS backend)
    add_dependencies(convcheck_backend_test ${target})
  endif()
  if(CONVCHECK_BUILD_TESTS AND TARGET convcheck)
    # The conformance runner's smoke and edge suites against this plugin, with the declarations and
    # expected failures of conformance/data/backends.json (the runner's default).
    # The edge suite too: its corner cases (crops, pads far beyond the kernel, rank 1) go through the
    # plugins' adaptations. The invalid suite: what the library computes instead of refusing is pinned there.
    foreach(suite smoke edge invalid)
      add_test(NAME conformance_${suite}_${name}
               COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite ${suite} --threads 2 --no-progress)
      set_tests_properties(conformance_${suite}_${name} PROPERTIES TIMEOUT 120 LABELS backend)
    endforeach()
    # Who answers each invalid case: the plugin ("cannot express"), the library, or neither (docs/backends.md).
    add_test(NAME invalid_outcomes_${name} COMMAND /usr/bin/python3 ${CONVCHECK_PLUGIN_COMMON_DIR}/tests/invalid_outcomes_check.py
             $<TARGET_FILE:convcheck> $<TARGET_FILE:${target}> ${name})
    set_tests_properties(invalid_outcomes_${name} PROPERTIES TIMEOUT 120 LABELS backend)
  endif()
endfunction()
