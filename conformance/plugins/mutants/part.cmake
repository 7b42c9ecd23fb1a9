# The mutants plugin (one deliberate bug per `--backend-option mutant=<name>`, plus honest variants)
# and its tests: every bug is caught by the smoke suite in the mode meant to catch it, and the
# baseline and the honest variants pass everything. The list itself is its own part, below the plugins and the
# runner: conformance/mutant_list (mutants.def, mutants.hpp).
convcheck_add_backend_plugin(mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/mutants_plugin.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_conv.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/mutants_backward.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_transposed.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/mutants_cc.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_cc_backward.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/mutants_quantized.cpp ${CMAKE_CURRENT_LIST_DIR}/mutants_post_ops.cpp
                     LIBS convcheck_core convcheck_abi_descriptor convcheck_mutant_list)
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
