# THE list of mutants (mutants.def: one line per deliberate bug and honest variant of the mutants plugin), as
# data below everything that reads it: the mutants plugin (conformance/plugins/mutants), its tests, `convcheck
# selftest` (the runner) and CMake (convcheck_mutant_names, for the tests of each mutant).
set(CONVCHECK_MUTANTS_DEF ${CMAKE_CURRENT_LIST_DIR}/include/convcheck/mutant_list/mutants.def CACHE INTERNAL "THE list of mutants")
# The list as C++ (convcheck/mutant_list/mutants.hpp): the plugin, its tests and `convcheck selftest` read it.
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
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CONVCHECK_MUTANTS_DEF})
