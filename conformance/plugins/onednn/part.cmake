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
    endif()
  else()
    message(STATUS "convcheck: oneDNN (libdnnl-dev) or OpenMP not found: the onednn plugin is not built")
  endif()
endif()
