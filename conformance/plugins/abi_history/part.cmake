# Plugins built against the ABI headers of earlier versions (the frozen copies beside today's header,
# conformance/include/history/<version>/convcheck/plugin.h,
# taken from git history), and the test that today's runner still loads and runs them as before.
# They are compiled with the frozen header only: convcheck_abi (the current header) is not linked.
foreach(version 1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 1.8)
  string(REPLACE "." "_" tag ${version})
  set(target convcheck_plugin_abi_${tag})
  convcheck_add_backend_plugin(abi_${tag} SOURCES ${CMAKE_CURRENT_LIST_DIR}/old_abi_plugin.c
                               ABI_HEADERS ${CMAKE_CURRENT_LIST_DIR}/../../include/history/${version})
  target_compile_definitions(${target} PRIVATE OLD_ABI_PLUGIN_NAME="abi_${tag}")
  if(CONVCHECK_BUILD_TESTS)
    # The command line, as a user of such a plugin runs it: the smoke suite passes.
    add_test(NAME conformance_smoke_abi_${tag}
             COMMAND convcheck run --backend $<TARGET_FILE:${target}> --suite smoke --quiet --no-shrink)
  endif()
endforeach()
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(abi_history_old_abi_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/old_abi_test.cpp
                     LIBS convcheck_runner)
  target_compile_definitions(abi_history_old_abi_test PRIVATE
                             ABI_1_0_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_0>"
                             ABI_1_1_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_1>"
                             ABI_1_2_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_2>"
                             ABI_1_3_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_3>"
                             ABI_1_4_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_4>"
                             ABI_1_5_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_5>"
                             ABI_1_6_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_6>"
                             ABI_1_7_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_7>"
                             ABI_1_8_PLUGIN="$<TARGET_FILE:convcheck_plugin_abi_1_8>")
  add_dependencies(abi_history_old_abi_test convcheck_plugin_abi_1_0 convcheck_plugin_abi_1_1 convcheck_plugin_abi_1_2
                   convcheck_plugin_abi_1_3 convcheck_plugin_abi_1_4 convcheck_plugin_abi_1_5 convcheck_plugin_abi_1_6
                   convcheck_plugin_abi_1_7 convcheck_plugin_abi_1_8)
endif()
