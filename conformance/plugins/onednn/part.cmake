# The oneDNN backend plugin (libdnnl-dev): built only when the package is present.
if(CONVCHECK_BACKEND_PLUGINS)
  find_package(dnnl CONFIG QUIET)
  find_package(OpenMP COMPONENTS CXX QUIET)
  if(dnnl_FOUND AND OpenMP_CXX_FOUND)
    convcheck_add_backend_plugin(onednn SOURCES ${CMAKE_CURRENT_LIST_DIR}/onednn_plugin.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/onednn_transposed.cpp ${CMAKE_CURRENT_LIST_DIR}/onednn_quantized.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/onednn_post_ops.cpp
                                 LIBS convcheck_plugin_adaptation DNNL::dnnl OpenMP::OpenMP_CXX)
    convcheck_add_backend_plugin_tests(onednn BACKWARD TRANSPOSED)
    if(CONVCHECK_BUILD_TESTS)
      # quantized convolution (docs/quantized.md): exact on a VNNI CPU; elsewhere an expected failure (finding OQ1)
      add_test(NAME conformance_quantized_onednn
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_onednn> --suite quantized --threads 2
                       --no-shrink --no-progress --quiet)
      set_tests_properties(conformance_quantized_onednn PROPERTIES LABELS backend)
      # fused post-ops (docs/post-ops.md): the chain as oneDNN's post-ops attribute
      add_test(NAME conformance_post_ops_onednn
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_onednn> --suite post_ops --threads 2
                       --no-shrink --no-progress --quiet)
      set_tests_properties(conformance_post_ops_onednn PROPERTIES LABELS backend)
      # scales on a float convolution (docs/scales.md): asked of oneDNN as output scales, declined in its words
      add_test(NAME conformance_scales_onednn_declines
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_onednn> --mode exact --no-progress
                       --case conv:c=4,o=8,in=6x6,k=3x3,pb=1,pe=1,bias=1,ssc=0.5,wsc=oc,dsc=2
                       --case conv:c=4,o=8,in=6x6,k=3x3,ssc=0.5,wsc=0.25)
      set_tests_properties(conformance_scales_onednn_declines PROPERTIES LABELS backend PASS_REGULAR_EXPRESSION
                           "scales \\(set_output_scales mask 0\\) \\(could not create a primitive descriptor iterator, status 3\\)\n *1: oneDNN refused the case with output scales \\(set_output_scales mask 2\\)")
    endif()
  else()
    message(STATUS "convcheck: oneDNN (libdnnl-dev) or OpenMP not found: the onednn plugin is not built")
  endif()
endif()
