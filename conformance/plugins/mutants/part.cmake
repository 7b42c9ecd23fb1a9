# The mutants plugin (one deliberate bug per `--backend-option mutant=<name>`) and the self-test that
# the smoke suite catches every mutant.
convcheck_add_plugin(mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/mutants_plugin.cpp LIBS convcheck_core)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(mutants_caught_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/caught_test.cpp LIBS convcheck_runner)
  add_dependencies(mutants_caught_test convcheck_plugin_mutants)
endif()
