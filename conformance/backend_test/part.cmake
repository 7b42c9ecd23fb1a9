# The direct, ABI-level test of the third-party backend plugins: one program that loads the plugin
# named on its command line and checks it against the reference on a table of cases, every plugin
# call in a child process of the runner's isolation. Each plugin's part.cmake registers ctest
# entries `backend_<name>_<i>of4` running it (convcheck_add_backend_plugin_tests, common/part.cmake).
# The contract and the declarations file's reader are the runner's (runner/include/convcheck/runner/contract.hpp, expectations.hpp).
if(CONVCHECK_BUILD_TESTS AND CONVCHECK_BACKEND_PLUGINS)
  add_executable(convcheck_backend_test ${CMAKE_CURRENT_LIST_DIR}/backend_test.cpp ${CMAKE_CURRENT_LIST_DIR}/cases.cpp
                 ${CMAKE_CURRENT_LIST_DIR}/harness.cpp ${CMAKE_CURRENT_LIST_DIR}/findings.cpp
                 ${CMAKE_CURRENT_LIST_DIR}/adaptations.cpp ${CMAKE_CURRENT_LIST_DIR}/abi12.cpp)
  target_link_libraries(convcheck_backend_test PRIVATE convcheck_runner convcheck_accuracy convcheck_reference convcheck_abi
                        convcheck_abi_descriptor convcheck_testing nlohmann_json::nlohmann_json rapidcheck GTest::gtest ${CMAKE_DL_LIBS})
  # The contract of a plugin that describes f64 accumulation (the accuracy mutants' baseline, with no
  # entry in the data file): bound mode must be able to fail it (issue 19).
  add_test(NAME backend_contract_f64_accumulation
           COMMAND convcheck_backend_test $<TARGET_FILE:convcheck_plugin_accuracy_mutants> --gtest_filter=Contract.*)
  add_dependencies(convcheck_backend_test convcheck_plugin_accuracy_mutants)
  # Every plugin call runs in a child process (harness.hpp): on a plugin that crashes in execute, the
  # executing tests fail naming the signal, the others pass, and the program runs to its end (exit 1).
  add_test(NAME backend_test_survives_a_crashing_plugin
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/isolation_check.py
                   $<TARGET_FILE:convcheck_backend_test> $<TARGET_FILE:convcheck_plugin_faultzoo>)
  set_tests_properties(backend_test_survives_a_crashing_plugin PROPERTIES TIMEOUT 120)
  add_dependencies(convcheck_backend_test convcheck_plugin_faultzoo)
  # The plugin template, built out of tree against the installed SDK (plugin_template/part.cmake),
  # passes this whole test as a vendor runs it (docs/backends.md), like every bundled backend: it is
  # judged by what it claims (f32, NCX, OIX, ranks 1-3), and the tests of what it does not claim skip,
  # naming the unclaimed format.
  if(TEST conformance_plugin_template_out_of_tree)
    add_test(NAME conformance_plugin_template_backend_test
             COMMAND convcheck_backend_test ${CONVCHECK_TEMPLATE_TEST_DIR}/build/libconvcheck_plugin_my_backend.so)
    set_tests_properties(conformance_plugin_template_backend_test PROPERTIES TIMEOUT 300
                         FIXTURES_REQUIRED plugin_template_built)
  endif()
endif()
