# The conformance runner library (case sources, plugin loading, isolation, comparison, shrinking,
# results, sharding) and its tests. The `convcheck` executable links it for run/list/merge/bench.
file(GLOB CONVCHECK_RUNNER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
list(REMOVE_ITEM CONVCHECK_RUNNER_SOURCES ${CMAKE_CURRENT_LIST_DIR}/abi_descriptor.cpp)

# The descriptor <-> ABI struct conversion, shared with the in-tree plugins.
add_library(convcheck_abi_descriptor STATIC ${CMAKE_CURRENT_LIST_DIR}/abi_descriptor.cpp)
target_include_directories(convcheck_abi_descriptor PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(convcheck_abi_descriptor PUBLIC convcheck_core convcheck_abi)

add_library(convcheck_runner STATIC ${CONVCHECK_RUNNER_SOURCES})
target_include_directories(convcheck_runner PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(convcheck_runner PUBLIC convcheck_abi_descriptor convcheck_accuracy convcheck_reference
                      convcheck_formats nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS})
target_compile_definitions(convcheck_runner PRIVATE
  CONVCHECK_BUILD_PLUGIN_DIR="${CONVCHECK_PLUGIN_DIR}"
  CONVCHECK_SOURCE_DATA_DIR="${CMAKE_CURRENT_LIST_DIR}/../data")
target_link_libraries(convcheck PRIVATE convcheck_runner)

if(CONVCHECK_BUILD_TESTS)
  convcheck_add_tests_in(${CMAKE_CURRENT_LIST_DIR}/tests runner LIBS convcheck_runner)
endif()
if(CONVCHECK_BUILD_TESTS)
  foreach(t runner_expectations_test runner_kind_test runner_failure_details_test runner_determinism_test)
    add_dependencies(${t} convcheck_plugin_mutants convcheck_plugin_faultzoo)
  endforeach()
  add_dependencies(runner_determinism_test convcheck_plugin_optimized)
  add_dependencies(runner_abi12_test convcheck_plugin_mutants convcheck_plugin_reference convcheck_plugin_optimized)
  # Sharding through the command line: shards from --shard and from the GoogleTest/Bazel variables
  # merge back into exactly the unsharded run (same cases, seeds, statuses), and merge's checks hold.
  add_test(NAME conformance_shard_merge
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/shard_merge_check.py $<TARGET_FILE:convcheck>
                   $<TARGET_FILE:convcheck_plugin_reference>)
endif()
if(CONVCHECK_BUILD_TESTS)
  # On a terminal the progress line shows the case in progress and its elapsed time (runner/progress.hpp).
  add_test(NAME conformance_progress_shows_case_and_time
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/progress_check.py $<TARGET_FILE:convcheck>
                   $<TARGET_FILE:convcheck_plugin_faultzoo>)
endif()
if(CONVCHECK_BUILD_TESTS)
  # bench runs end to end (timings are printed, never asserted)
  add_test(NAME conformance_bench_runs COMMAND convcheck bench --backend reference --suite edge --repeats 1)
endif()
if(CONVCHECK_BUILD_TESTS)
  # Exit code 2: bad input names the attribute, the value and the rule; an unknown suite names the choices.
  add_test(NAME conformance_run_bad_case_exits_2
           COMMAND ${CMAKE_COMMAND} -DEXPECT=2 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend reference --case c=1,o=1,in=3,k=5 --quiet)
  set_tests_properties(conformance_run_bad_case_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "exit code 2 as expected")
  # A benchdnn test case convcheck cannot run exactly is reported; --strict-benchdnn makes it exit 2.
  add_test(NAME conformance_strict_benchdnn_exits_2
           COMMAND ${CMAKE_COMMAND} -DEXPECT=2 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                   $<TARGET_FILE:convcheck> list --strict-benchdnn
                   --suite ${CMAKE_CURRENT_LIST_DIR}/../../formats/tests/data/benchdnn/reproducer)
  set_tests_properties(conformance_strict_benchdnn_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "--attr-post-ops: post-ops")
  add_test(NAME conformance_run_unknown_suite_exits_2
           COMMAND ${CMAKE_COMMAND} -DEXPECT=2 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend reference --suite nonsense --quiet)
endif()
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_mutants)
  # A golden-vector set as a suite: the optimized plugin reproduces every stored discrete case, and a
  # broken backend is caught on the stored data alone (exit code 1).
  set(vector_sets_dir ${CMAKE_CURRENT_LIST_DIR}/../../vectors/sets)
  foreach(set seeds edge dtypes models dialects onnx cc)
    add_test(NAME conformance_vectors_${set}_optimized
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --suite ${vector_sets_dir}/${set}
                     --quiet --threads 2)
  endforeach()
  convcheck_mutant_names(vector_mutants KIND bug VECTORS)  # from mutants.def, the one list
  foreach(mutant set IN ZIP_LISTS vector_mutants vector_mutants_SETS)
    add_test(NAME conformance_vectors_catch_${mutant}
             COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                     $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_mutants>
                     --backend-option mutant=${mutant} --suite ${vector_sets_dir}/${set} --quiet --no-shrink)
    set_tests_properties(conformance_vectors_catch_${mutant} PROPERTIES PASS_REGULAR_EXPRESSION "exit code 1 as expected")
  endforeach()
endif()
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_mutants)
  # The strides suite (ABI 1.2 memory strides and OXI): green where claimed, declined with a reason where not,
  # never sent to a plugin built against ABI 1.0 or 1.1; bad strides exit 2 naming the attribute.
  set(strides_vendors)
  foreach(p onednn xnnpack libtorch opencv)
    if(TARGET convcheck_plugin_${p})
      list(APPEND strides_vendors $<TARGET_FILE:convcheck_plugin_${p}>)
    endif()
  endforeach()
  add_test(NAME conformance_strides
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/strides_check.py $<TARGET_FILE:convcheck>
                   $<TARGET_FILE:convcheck_plugin_reference> $<TARGET_FILE:convcheck_plugin_optimized>
                   $<TARGET_FILE:convcheck_plugin_mutants> $<TARGET_FILE:convcheck_plugin_abi_1_0>
                   $<TARGET_FILE:convcheck_plugin_abi_1_1> ${strides_vendors})
  set_tests_properties(conformance_strides PROPERTIES TIMEOUT 600)
endif()
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_mutants)
  # The invalid suite (docs/runner.md): the project's own plugins refuse every case; a backend that
  # computes them fails (exit 1), and its reproducer reruns the one case in mode invalid.
  foreach(p reference optimized mutants)
    if(TARGET convcheck_plugin_${p})
      add_test(NAME conformance_invalid_${p}
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_${p}> --suite invalid --quiet)
    endif()
  endforeach()
  add_test(NAME conformance_invalid_accepted_fails
           COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_mutants>
                   --backend-option mutant=invalid_accepted --suite invalid --no-progress)
  set_tests_properties(conformance_invalid_accepted_fails PROPERTIES PASS_REGULAR_EXPRESSION
                       "accepted an invalid case: batch \\(n\\) = 0: must be a positive integer.*--mode invalid")
  add_test(NAME conformance_invalid_reproducer_reruns_the_case
           COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_mutants>
                   --backend-option mutant=invalid_accepted --case conv:c=3,o=4,g=2,in=6x6,k=3x3 --mode invalid
                   --no-progress)
  set_tests_properties(conformance_invalid_reproducer_reruns_the_case PROPERTIES PASS_REGULAR_EXPRESSION
                       "accepted an invalid case: in_channels \\(c\\) = 3: must be divisible by groups = 2")
endif()
if(CONVCHECK_BUILD_TESTS)
  # A declaration that widens the bound without a reason, or with a value convcheck does not know, is
  # refused before anything runs: exit 2 naming the key, the value and the rule (docs/accuracy.md).
  set(declarations_dir ${CMAKE_CURRENT_LIST_DIR}/tests/declarations)
  set(declaration_files bound_without_reason unknown_input_precision)
  set(declaration_messages "backends.reference.bound.reason: a non-empty reason is required"
                           "backends.reference.input_precision.dtype: 'tf16' is not one of tf32, bf16")
  foreach(file message IN ZIP_LISTS declaration_files declaration_messages)
    add_test(NAME conformance_declaration_${file}_exits_2
             COMMAND ${CMAKE_COMMAND} -DEXPECT=2 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                     $<TARGET_FILE:convcheck> run --backend reference --suite smoke --quiet
                     --expectations ${declarations_dir}/${file}.json)
    set_tests_properties(conformance_declaration_${file}_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "exit code 2 as expected.*${message}")
  endforeach()
endif()
if(CONVCHECK_BUILD_TESTS)
  # The backward suite (docs/passes.md): the reference passes every case of both passes (the
  # optimized plugin too: conformance/plugins/optimized/part.cmake); a plugin of ABI 1.0 declines
  # every one, by its claim, and the run that checked nothing is not a pass (exit 1).
  add_test(NAME conformance_backward_reference
           COMMAND convcheck run --backend reference --suite backward --quiet --no-shrink --no-progress)
  foreach(declining abi_1_0)
    set(plugin $<TARGET_FILE:convcheck_plugin_${declining}>)
    add_test(NAME conformance_backward_${declining}_declines
             COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                     $<TARGET_FILE:convcheck> run --backend ${plugin} --suite backward --no-shrink --no-progress)
    set_tests_properties(conformance_backward_${declining}_declines PROPERTIES PASS_REGULAR_EXPRESSION
      "exit code 1 as expected.*the plugin does not claim prop_kind backward_data.*0 cases executed, 80 declined")
  endforeach()
endif()
if(CONVCHECK_BUILD_TESTS)
  # Transposed convolution (docs/transposed.md): the reference passes the transposed suite and the stored
  # transposed vectors (their arrays and truth alone); plugins built against ABI 1.0 and 1.2 (no
  # conv_transposed entries) decline every case by their claims, and a run that checked nothing fails.
  add_test(NAME conformance_transposed_reference
           COMMAND convcheck run --backend reference --suite transposed --quiet --no-shrink --no-progress)
  add_test(NAME conformance_transposed_vectors_reference
           COMMAND convcheck run --backend reference --suite ${PROJECT_SOURCE_DIR}/vectors/sets/transposed --no-progress)
  set_tests_properties(conformance_transposed_vectors_reference PROPERTIES PASS_REGULAR_EXPRESSION
    "8 cases executed, 0 declined.*pass rate 100.0 %")
  foreach(declining abi_1_0 abi_1_2)
    add_test(NAME conformance_transposed_${declining}_declines
             COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                     $<TARGET_FILE:convcheck> run --backend $<TARGET_FILE:convcheck_plugin_${declining}>
                     --suite transposed --no-shrink --no-progress)
    set_tests_properties(conformance_transposed_${declining}_declines PROPERTIES PASS_REGULAR_EXPRESSION
      "exit code 1 as expected.*the plugin does not claim transposed convolution.*0 cases executed, 41 declined")
  endforeach()
endif()
