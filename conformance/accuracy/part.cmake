# The accuracy contract: bounds, comparisons, exact-mode, bound-mode and probe-mode fills, and the rounding probe
# of quantized convolution (on the reference's requantization rules).
add_library(convcheck_accuracy STATIC ${CMAKE_CURRENT_LIST_DIR}/accuracy.cpp ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
            ${CMAKE_CURRENT_LIST_DIR}/statistics.cpp ${CMAKE_CURRENT_LIST_DIR}/judge_blocks.cpp
            ${CMAKE_CURRENT_LIST_DIR}/stress_fill.cpp
            ${CMAKE_CURRENT_LIST_DIR}/random_fill.cpp
            ${CMAKE_CURRENT_LIST_DIR}/precision_fill.cpp ${CMAKE_CURRENT_LIST_DIR}/special_fill.cpp
            ${CMAKE_CURRENT_LIST_DIR}/rounding_probe.cpp ${CMAKE_CURRENT_LIST_DIR}/profiles.cpp)
# the twister's state update and tempering (random_fill.cpp): integer loops of 155 and 156 words, which -O2's
# very cheap cost model leaves scalar for their odd remainder (integer operations: the same words either way)
# (g++'s flag: clang, which builds the sanitizer and fuzz trees, has no such option and vectorises them as they are)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/random_fill.cpp PROPERTIES COMPILE_OPTIONS -fvect-cost-model=dynamic)
endif()
# judge_blocks.cpp: each lane the scalar formula's operations (no product contracted into a sum), a square root
# that sets no errno (one instruction, which vectorises), and g++'s cost model that vectorises a loop of unknown
# count (-O2's leaves it scalar)
set(judge_blocks_options "-ffp-contract=off;-fno-math-errno")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND judge_blocks_options -fvect-cost-model=dynamic)
endif()
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/judge_blocks.cpp PROPERTIES COMPILE_OPTIONS
                            "${judge_blocks_options}")
# statistics.cpp: g++'s SLP vectoriser packs two of the statistics' running sums into one vector and keeps it in
# memory, a store and a load on every output's chain of additions; each sum stays a scalar in a register without it
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/statistics.cpp PROPERTIES COMPILE_OPTIONS -fno-tree-slp-vectorize)
endif()
target_include_directories(convcheck_accuracy PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(convcheck_accuracy PUBLIC convcheck_core convcheck_reference)
if(CONVCHECK_BUILD_TESTS)
  # what the accuracy tests and the runner's share: two comparisons compared field by field
  add_library(convcheck_accuracy_tests INTERFACE)
  target_include_directories(convcheck_accuracy_tests INTERFACE ${CMAKE_CURRENT_LIST_DIR}/tests/include)
  target_link_libraries(convcheck_accuracy_tests INTERFACE convcheck_accuracy GTest::gtest)
  convcheck_add_tests_in(${CMAKE_CURRENT_LIST_DIR}/tests accuracy LIBS convcheck_accuracy convcheck_accuracy_tests
                         convcheck_reference_tests)
endif()
