# The fault zoo: plugins that crash, hang, corrupt memory, leak or break the ABI on purpose, and the
# tests that the runner classifies each fault.
convcheck_add_backend_plugin(faultzoo SOURCES ${CMAKE_CURRENT_LIST_DIR}/faultzoo_plugin.cpp
                     LIBS convcheck_reference convcheck_abi_descriptor)
convcheck_add_backend_plugin(faultzoo_wrong_abi SOURCES ${CMAKE_CURRENT_LIST_DIR}/wrong_abi_plugin.c)
convcheck_add_backend_plugin(faultzoo_no_entry SOURCES ${CMAKE_CURRENT_LIST_DIR}/no_entry_plugin.c)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(faultzoo_classification_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/classification_test.cpp
                     LIBS convcheck_runner)
  add_dependencies(faultzoo_classification_test convcheck_plugin_faultzoo convcheck_plugin_faultzoo_wrong_abi
                   convcheck_plugin_faultzoo_no_entry)
  # The command line: load and negotiation failures exit with 3, a crashing backend with 1.
  add_test(NAME conformance_faultzoo_wrong_abi_exits_3
           COMMAND ${CMAKE_COMMAND} -DEXPECT=3 -P ${CMAKE_CURRENT_LIST_DIR}/../../runner/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_faultzoo_wrong_abi> --quiet)
  add_test(NAME conformance_faultzoo_no_entry_exits_3
           COMMAND ${CMAKE_COMMAND} -DEXPECT=3 -P ${CMAKE_CURRENT_LIST_DIR}/../../runner/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_faultzoo_no_entry> --quiet)
  add_test(NAME conformance_faultzoo_segfault_exits_1
           COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/../../runner/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend faultzoo --backend-option fault=segfault --no-shrink --quiet
                   --case c=1,o=1,in=4,k=3)
endif()
# The zoo's faults are deliberate (a store through NULL, writes past buffers): in a sanitizer build
# the plugin stays uninstrumented, like a third-party backend, so each fault happens for real and
# the runner must classify it (UBSan would otherwise turn the NULL store into exit(1)).
if(CONVCHECK_SANITIZE)
  target_compile_options(convcheck_plugin_faultzoo PRIVATE -fno-sanitize=all)
endif()
