# A green run must mean it passed (issue 15): the verdict, options and artefacts of `convcheck run`
# and `convcheck merge`, end to end (verdict_check.py: one ctest per observation).
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_faultzoo)
  foreach(check coverage empty_suite hostile numbers load_failure merge stopped paths quiet)
    add_test(NAME conformance_verdict_${check}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/verdict_check.py ${check} $<TARGET_FILE:convcheck>
                     ${CONVCHECK_PLUGIN_DIR})
    set_tests_properties(conformance_verdict_${check} PROPERTIES TIMEOUT 300)
  endforeach()
endif()

# Determinism mode (--repeat, --threads-sweep) and failure bundles (--dump-failures) through the command
# (determinism_check.py: one ctest per claim; the bundles are reloaded with numpy).
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_mutants AND TARGET convcheck_plugin_reference)
  foreach(check numbers record catches bundle)
    add_test(NAME conformance_determinism_${check}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/determinism_check.py ${check} $<TARGET_FILE:convcheck>
                     ${CONVCHECK_PLUGIN_DIR})
    set_tests_properties(conformance_determinism_${check} PROPERTIES TIMEOUT 300)
  endforeach()
endif()
