# The memory hog: a backend that uses memory without bound on demand, and the tests that the
# runner's memory limit ends it as "out of memory" (naming the limit) while the runner survives,
# and that a case too big for the limit is refused before it runs.
convcheck_add_backend_plugin(memory_hog SOURCES ${CMAKE_CURRENT_LIST_DIR}/memory_hog_plugin.cpp
                     LIBS convcheck_reference convcheck_abi_descriptor)
# Like the fault zoo: uninstrumented in sanitizer builds, as a third-party backend would be.
if(CONVCHECK_SANITIZE)
  target_compile_options(convcheck_plugin_memory_hog PRIVATE -fno-sanitize=all)
endif()
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(memory_limit_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/memory_limit_test.cpp
                     LIBS convcheck_runner)
  add_dependencies(memory_limit_test convcheck_plugin_memory_hog convcheck_plugin_optimized)
  convcheck_add_test(retained_heap_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/retained_heap_test.cpp
                     LIBS convcheck_runner)
  add_dependencies(retained_heap_test convcheck_plugin_memory_hog)
endif()
