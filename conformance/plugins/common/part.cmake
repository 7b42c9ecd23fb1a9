# Shared by the third-party backend plugins (onednn, xnnpack, libtorch, opencv): the adaptations
# (exact data movement: reorders, rank 1 as rank 2, crops, explicit zero padding; adaptation.hpp),
# which a plugin links (convcheck_add_backend_plugin(<name> ... LIBS convcheck_plugin_adaptation ...)),
# and the function that registers its ctest entries. (conformance/CMakeLists.txt includes this part
# after backend_test's, which defines the test program, and before the plugins' own.)
set(CONVCHECK_PLUGIN_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})

# The adaptations need only the ABI header: a plugin still links none of convcheck's convolution code.
add_library(convcheck_plugin_adaptation STATIC ${CMAKE_CURRENT_LIST_DIR}/adaptation.cpp
            ${CMAKE_CURRENT_LIST_DIR}/window_copy.cpp ${CMAKE_CURRENT_LIST_DIR}/transposed_form.cpp)
target_include_directories(convcheck_plugin_adaptation PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(convcheck_plugin_adaptation PUBLIC convcheck_abi)
set_target_properties(convcheck_plugin_adaptation PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

if(CONVCHECK_BUILD_TESTS)
  # Every adaptation against the reference: the adapted case computes exactly the original.
  convcheck_add_test(plugins_adaptation_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/adaptation_test.cpp
                     LIBS convcheck_plugin_adaptation convcheck_reference convcheck_abi_descriptor)
  # The transposed form never turns an invalid case into a valid one (its pad rules are validate()'s).
  convcheck_add_test(plugins_transposed_form_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/transposed_form_test.cpp
                     LIBS convcheck_plugin_adaptation convcheck_abi_descriptor)
endif()

# convcheck_add_backend_plugin_tests(<name>): the ctest entries of a third-party backend plugin built in
# this tree (convcheck_plugin_<name>, by convcheck_add_backend_plugin, cmake/ConvcheckPlugin.cmake):
# backend_<name>_<i>of4, conformance_{smoke,edge,invalid}_<name> and invalid_outcomes_<name>.
# ALLOW_UNCHECKED: its suite runs pass --allow-unchecked (docs/runner.md): the library accumulates a 16-bit
# dtype in that dtype (declared in backends.json), so the suites' 2,304-term cases of that dtype have a vacuous
# bound and are unchecked, not passed; the results still list them as unchecked.
function(convcheck_add_backend_plugin_tests name)
  cmake_parse_arguments(T "BACKWARD;TRANSPOSED;ALLOW_UNCHECKED" "" "" ${ARGN})
  set(target convcheck_plugin_${name})
  set(allow_unchecked)
  if(T_ALLOW_UNCHECKED)
    set(allow_unchecked --allow-unchecked)
  endif()
  if(NOT CONVCHECK_BUILD_TESTS)
    return()
  endif()
  if(NOT TARGET ${target} OR NOT TARGET convcheck_backend_test OR NOT TARGET convcheck)
    message(FATAL_ERROR "convcheck_add_backend_plugin_tests(${name}): needs the targets ${target}, "
                        "convcheck_backend_test and convcheck (conformance/CMakeLists.txt lists the parts in order)")
  endif()
  # The direct ABI-level check of this plugin against the reference (conformance/backend_test),
  # in 4 GoogleTest shards, backend_<name>_1of4 .. 4of4: each plugin call runs in a child process
  # (fork, create, its thread pools), so the ~700 children of one whole run would not fit the timeout
  # on a loaded 2-core machine; a shard does.
  set(shards 4)
  foreach(shard RANGE 1 ${shards})
    math(EXPR index "${shard} - 1")
    add_test(NAME backend_${name}_${shard}of${shards} COMMAND convcheck_backend_test $<TARGET_FILE:${target}>)
    set_tests_properties(backend_${name}_${shard}of${shards} PROPERTIES TIMEOUT 120 LABELS backend
                         ENVIRONMENT "GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${index}")
  endforeach()
  add_dependencies(convcheck_backend_test ${target})
  # The conformance runner's smoke and edge suites against this plugin, with the declarations and
  # expected failures of conformance/data/backends.json (the runner's default).
  # The edge suite too: its corner cases (crops, pads far beyond the kernel, rank 1) go through the
  # plugins' adaptations. The invalid suite: what the library computes instead of refusing is pinned there.
  foreach(suite smoke edge invalid)
    add_test(NAME conformance_${suite}_${name}
             COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite ${suite} --threads 2 --no-progress
                     ${allow_unchecked})
    set_tests_properties(conformance_${suite}_${name} PROPERTIES TIMEOUT 120 LABELS backend)
  endforeach()
  # BACKWARD: the plugin computes the backward passes: the backward suite (docs/passes.md); what the library
  # has no implementation for is declined in its words (the coverage floor applies).
  if(T_BACKWARD)
    add_test(NAME conformance_backward_${name}
             COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite backward --threads 2 --no-shrink --no-progress
                     ${allow_unchecked})
    set_tests_properties(conformance_backward_${name} PROPERTIES TIMEOUT 120 LABELS backend)
  endif()
  # TRANSPOSED: the plugin computes transposed convolution (ABI 1.3): the transposed suite and the stored
  # transposed vectors (docs/transposed.md); what the library cannot express is declined in its words.
  if(T_TRANSPOSED)
    add_test(NAME conformance_transposed_${name}
             COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite transposed --threads 2 --no-shrink --no-progress
                     ${allow_unchecked})
    add_test(NAME conformance_transposed_vectors_${name}
             COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite ${PROJECT_SOURCE_DIR}/vectors/sets/transposed
                     --threads 2 --no-shrink --no-progress)
    set_tests_properties(conformance_transposed_${name} conformance_transposed_vectors_${name} PROPERTIES TIMEOUT 120
                         LABELS backend)
    # The invalid_transposed suite: who answers each case, as measured (invalid_outcomes_check.py, docs/transposed.md).
    add_test(NAME invalid_transposed_outcomes_${name}
             COMMAND /usr/bin/python3 ${CONVCHECK_PLUGIN_COMMON_DIR}/tests/invalid_outcomes_check.py
                     $<TARGET_FILE:convcheck> $<TARGET_FILE:${target}> ${name} invalid_transposed)
    set_tests_properties(invalid_transposed_outcomes_${name} PROPERTIES TIMEOUT 120 LABELS backend)
  endif()
  # Who answers each invalid case: the plugin ("cannot express"), the library, or neither (docs/backends.md).
  add_test(NAME invalid_outcomes_${name} COMMAND /usr/bin/python3 ${CONVCHECK_PLUGIN_COMMON_DIR}/tests/invalid_outcomes_check.py
           $<TARGET_FILE:convcheck> $<TARGET_FILE:${target}> ${name})
  set_tests_properties(invalid_outcomes_${name} PROPERTIES TIMEOUT 120 LABELS backend)
endfunction()
