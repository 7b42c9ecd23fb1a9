# The mutants plugin (one deliberate bug per `--backend-option mutant=<name>`, plus honest variants)
# and its tests: every bug is caught by the smoke suite in the mode meant to catch it, and the
# baseline and the honest variants pass everything.
set(CONVCHECK_MUTANTS_DEF ${CMAKE_CURRENT_LIST_DIR}/include/convcheck/mutants/mutants.def CACHE INTERNAL "THE list of mutants")
# The list as C++ (convcheck/mutants/mutants.hpp): the plugin, its tests and `convcheck selftest` read it.
add_library(convcheck_mutant_list INTERFACE)
target_include_directories(convcheck_mutant_list INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)

# convcheck_mutant_names(<var> [KIND baseline|bug|honest] [VECTORS]): the names of mutants.def (THE
# list), optionally only those of one kind or only those the stored golden vectors catch; with
# VECTORS, <var>_SETS holds the golden-vector set that catches each one, in the same order.
function(convcheck_mutant_names var)
  cmake_parse_arguments(M "VECTORS" "KIND" "" ${ARGN})
  file(STRINGS ${CONVCHECK_MUTANTS_DEF} lines REGEX "^MUTANT\\(")
  set(names)
  set(sets)
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^MUTANT\\(([a-z0-9_]+), *([a-z]+), *([a-z-]+), *([a-z0-9_-]+)," match "${line}")
    if(M_KIND AND NOT CMAKE_MATCH_2 STREQUAL M_KIND)
      continue()
    endif()
    if(M_VECTORS AND CMAKE_MATCH_4 STREQUAL "-")
      continue()
    endif()
    list(APPEND names ${CMAKE_MATCH_1})
    list(APPEND sets ${CMAKE_MATCH_4})
  endforeach()
  set(${var} ${names} PARENT_SCOPE)
  set(${var}_SETS ${sets} PARENT_SCOPE)
endfunction()

convcheck_add_backend_plugin(mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/mutants_plugin.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_conv.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/mutants_backward.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_transposed.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/mutants_cc.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_cc_backward.cpp
                     LIBS convcheck_core convcheck_abi_descriptor convcheck_mutant_list)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CONVCHECK_MUTANTS_DEF})
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(mutants_caught_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/caught_test.cpp LIBS convcheck_runner)
  add_dependencies(mutants_caught_test convcheck_plugin_mutants)
endif()

# The accuracy mutants (docs/accuracy.md): faults only the accuracy contract's statistics, vacuous-bound
# rule and precision mode catch, and the self-test that they do.
convcheck_add_backend_plugin(accuracy_mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/accuracy_mutants.cpp
                     LIBS convcheck_reference convcheck_abi_descriptor convcheck_accuracy)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(accuracy_mutants_caught_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/accuracy_caught_test.cpp
                     LIBS convcheck_runner)
  add_dependencies(accuracy_mutants_caught_test convcheck_plugin_accuracy_mutants convcheck_plugin_reference
                   convcheck_plugin_optimized)
endif()
