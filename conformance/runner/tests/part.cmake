# A green run must mean it passed (issue 15): the verdict, options and artefacts of `convcheck run`
# and `convcheck merge`, end to end (verdict_check.py: one ctest per observation).
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_faultzoo AND TARGET convcheck_plugin_mutants)
  foreach(check coverage empty_suite hostile numbers load_failure merge stopped paths quiet reproducer unchecked)
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

# The large suite (large_check.py: one ctest per claim): tensors of 2 to 4 GiB, so minutes each and
# about 4.5 GiB of memory; label `large` (`ctest -L large` runs them, `ctest -LE large` leaves them out).
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_mutants AND TARGET convcheck_plugin_reference AND
   TARGET convcheck_plugin_optimized)
  foreach(check reference mutants optimized)
    add_test(NAME conformance_large_${check}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/large_check.py ${check} $<TARGET_FILE:convcheck>
                     ${CONVCHECK_PLUGIN_DIR})
    # one at a time: two would need 9 GiB together; the mutants' check runs eight cases of 2 to 4 GiB
    set_tests_properties(conformance_large_${check} PROPERTIES TIMEOUT 1200 LABELS large RESOURCE_LOCK large_memory)
  endforeach()
  # Started first (ctest runs the costliest first when a fresh build folder has no timings yet, as in CI): one
  # after another they take about 130 s on one core, beside every other test on the others.
  set_tests_properties(conformance_large_mutants PROPERTIES COST 1000)
  set_tests_properties(conformance_large_optimized PROPERTIES COST 900)
endif()

# The backward passes get every job of the table of operations (backward_jobs_check.py: one ctest per
# job): shrinking, failure bundles, determinism mode, bench, list's design.
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_faultzoo AND TARGET convcheck_plugin_reference)
  foreach(check shrink bundle determinism bench list)
    add_test(NAME conformance_backward_jobs_${check}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/backward_jobs_check.py ${check} $<TARGET_FILE:convcheck>
                     ${CONVCHECK_PLUGIN_DIR})
    set_tests_properties(conformance_backward_jobs_${check} PROPERTIES TIMEOUT 300)
  endforeach()
endif()

# selftest: a bug meant for a suite of its own (strides, invalid, large, backward, transposed) is "elsewhere" on another
# suite, not missed (exit 0, naming the suite that catches it), and so is a forward bug on the backward or transposed
# suite (they hold no forward case); a bug the suite could hold and does not catch is missed (exit 1): the invalid
# suite's forward cases run in invalid mode only, so a bug exact mode catches survives there.
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck AND TARGET convcheck_plugin_mutants)
  add_test(NAME selftest_leaves_a_strides_bug_to_its_suite
           COMMAND ${CMAKE_COMMAND} -DEXPECT=0 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite smoke --mutant ignores_strides)
  add_test(NAME selftest_counts_a_bug_the_suite_misses
           COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite invalid --mutant bias_dropped)
  add_test(NAME selftest_leaves_a_forward_bug_to_smoke_on_the_backward_suite
           COMMAND ${CMAKE_COMMAND} -DEXPECT=0 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite backward --mutant bias_dropped)
  # a transposed-convolution bug: killed by the transposed suite and by smoke's transposed cases; left by the
  # backward suite, which holds no transposed case (docs/transposed.md)
  add_test(NAME selftest_transposed_suite_kills_its_bugs
           COMMAND ${CMAKE_COMMAND} -DEXPECT=0 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite transposed --mutant transposed_output_padding_at_begin
                   --mutant transposed_kernel_not_flipped --mutant transposed_zero_weight_skipped
                   --mutant transposed_zero_src_skipped)
  add_test(NAME selftest_smoke_kills_every_backward_and_transposed_bug
           COMMAND ${CMAKE_COMMAND} -DEXPECT=0 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite smoke --mode probe --mutant transposed_zero_weight_skipped
                   --mutant transposed_zero_src_skipped --mutant bwd_data_zero_weight_skipped
                   --mutant bwd_weights_zero_src_skipped --mutant bwd_data_clamped_tap)
  set_tests_properties(selftest_smoke_kills_every_backward_and_transposed_bug PROPERTIES
                       FAIL_REGULAR_EXPRESSION "elsewhere|MISSED")
  add_test(NAME selftest_leaves_a_transposed_bug_to_its_suite
           COMMAND ${CMAKE_COMMAND} -DEXPECT=0 -P ${CMAKE_CURRENT_LIST_DIR}/../expect_exit.cmake
                   $<TARGET_FILE:convcheck> selftest --suite backward --mutant transposed_kernel_not_flipped)
  set_tests_properties(selftest_leaves_a_transposed_bug_to_its_suite PROPERTIES PASS_REGULAR_EXPRESSION "elsewhere")
  set_tests_properties(selftest_leaves_a_strides_bug_to_its_suite selftest_counts_a_bug_the_suite_misses
                       selftest_leaves_a_forward_bug_to_smoke_on_the_backward_suite
                       selftest_transposed_suite_kills_its_bugs selftest_leaves_a_transposed_bug_to_its_suite
                       selftest_smoke_kills_every_backward_and_transposed_bug
                       PROPERTIES TIMEOUT 120)
endif()

# ONNX QDQ models (DequantizeLinear -> Conv -> QuantizeLinear) read as quantized convolutions or skipped with their
# reasons (onnx_qdq_check.py), run on the reference, optimized and, where it is built, onednn plugins.
if(CONVCHECK_BUILD_TESTS AND TARGET convcheck_plugin_optimized AND TARGET convcheck_plugin_reference)
  set(convcheck_qdq_plugins $<TARGET_FILE:convcheck_plugin_reference> $<TARGET_FILE:convcheck_plugin_optimized>)
  if(TARGET convcheck_plugin_onednn)
    list(APPEND convcheck_qdq_plugins $<TARGET_FILE:convcheck_plugin_onednn>)
  endif()
  add_test(NAME conformance_onnx_qdq_models
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/onnx_qdq_check.py $<TARGET_FILE:convcheck>
                   ${convcheck_qdq_plugins})
  set_tests_properties(conformance_onnx_qdq_models PROPERTIES TIMEOUT 300)
endif()
