# The reference as a plugin (libconvcheck_plugin_reference.so).
convcheck_add_backend_plugin(reference SOURCES ${CMAKE_CURRENT_LIST_DIR}/reference_plugin.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/reference_quantized.cpp
                     LIBS convcheck_reference convcheck_abi_descriptor)
install(TARGETS convcheck_plugin_reference LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/convcheck/plugins COMPONENT sdk)
if(CONVCHECK_BUILD_TESTS)
  add_test(NAME conformance_smoke_reference
           COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_reference> --suite smoke --quiet)
  # fused post-ops (docs/post-ops.md): every op, in double, rounded once
  add_test(NAME conformance_post_ops_reference
           COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_reference> --suite post_ops --no-shrink
                   --no-progress --quiet)
  # quantized convolution (docs/quantized.md): the quantized suite under each rule the plugin offers and declares
  foreach(rule double_rounding single_rounding nearest_even_f32 nearest_even_f32_with_zero_point)
    add_test(NAME conformance_quantized_reference_${rule}
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_reference> --backend-option requantization=${rule}
                     --suite quantized --no-shrink --no-progress --quiet)
    # the quantized dialects' cases (TFLite, TOSA RESCALE read into qconv:), held to the declared rule
    add_test(NAME conformance_quantized_dialects_reference_${rule}
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_reference> --backend-option requantization=${rule}
                     --suite quantized_dialects --no-shrink --no-progress --quiet)
  endforeach()
endif()
