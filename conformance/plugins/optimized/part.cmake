# The optimized implementation as a plugin, and the smoke suite run against it through the ABI.
if(TARGET convcheck_optimized OR EXISTS ${PROJECT_SOURCE_DIR}/optimized/CMakeLists.txt)
  convcheck_add_backend_plugin(optimized SOURCES ${CMAKE_CURRENT_LIST_DIR}/optimized_plugin.cpp
                       LIBS convcheck_optimized convcheck_abi_descriptor)
  install(TARGETS convcheck_plugin_optimized LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/convcheck/plugins COMPONENT sdk)
  if(CONVCHECK_BUILD_TESTS)
    add_test(NAME conformance_smoke_optimized
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --suite smoke --threads 2 --quiet)
    set_tests_properties(conformance_smoke_optimized PROPERTIES TIMEOUT 120)
    # the backward passes (docs/passes.md): all 104 cases of the backward suite checked and passed
    add_test(NAME conformance_backward_optimized
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --suite backward --threads 2 --no-shrink --no-progress)
    set_tests_properties(conformance_backward_optimized PROPERTIES TIMEOUT 300)
    # transposed convolution (docs/transposed.md): the transposed suite and the stored transposed vectors
    add_test(NAME conformance_transposed_optimized
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --suite transposed --threads 2 --no-shrink --no-progress)
    add_test(NAME conformance_transposed_vectors_optimized
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized>
                     --suite ${PROJECT_SOURCE_DIR}/vectors/sets/transposed --threads 2 --no-shrink --no-progress)
    # quantized convolution (docs/quantized.md): the quantized suite under each rule the plugin offers and declares
    foreach(rule double_rounding single_rounding nearest_even_f32 nearest_even_f32_with_zero_point)
      add_test(NAME conformance_quantized_optimized_${rule}
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --backend-option requantization=${rule}
                       --suite quantized --threads 2 --no-shrink --no-progress --quiet)
      # the quantized dialects' cases (TFLite, TOSA RESCALE read into qconv:), held to the declared rule
      add_test(NAME conformance_quantized_dialects_optimized_${rule}
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_optimized> --backend-option requantization=${rule}
                       --suite quantized_dialects --threads 2 --no-shrink --no-progress --quiet)
    endforeach()
  endif()
endif()
