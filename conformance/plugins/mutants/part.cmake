# The mutants plugin (one deliberate bug per `--backend-option mutant=<name>`) and the self-test that
# the smoke suite catches every mutant.
convcheck_add_plugin(mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/mutants_plugin.cpp LIBS convcheck_core)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(mutants_caught_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/caught_test.cpp LIBS convcheck_runner)
  add_dependencies(mutants_caught_test convcheck_plugin_mutants)
endif()

# The accuracy mutants (docs/accuracy.md): faults only the accuracy contract's statistics, vacuous-bound
# rule and precision mode catch, and the self-test that they do.
convcheck_add_plugin(accuracy_mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/accuracy_mutants.cpp
                     LIBS convcheck_reference convcheck_abi_descriptor convcheck_accuracy)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(accuracy_mutants_caught_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/accuracy_caught_test.cpp
                     LIBS convcheck_runner)
  add_dependencies(accuracy_mutants_caught_test convcheck_plugin_accuracy_mutants convcheck_plugin_reference
                   convcheck_plugin_optimized)
endif()
