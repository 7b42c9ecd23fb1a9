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
      # per-output-channel dst scales (ABI 1.9, an ONNX QDQ model's per-axis y_scale) as oneDNN's per-channel output
      # scales src_scale * weights_scale(oc) / dst_scale(oc): within the acc=f32 bound, with and without per-channel
      # weights scales (one dst scale for every channel fails)
      add_test(NAME conformance_quantized_onednn_dst_scales
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_onednn> --no-progress
                       --case qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,dt=u8:s8:u8,acc=f32,ssc=0.02,szp=128,wsc=0.004,dsc=0.05:0.1:0.025:0.5:0.0625:0.2:0.03:0.07,dzp=10:128:0:255:100:64:7:200
                       --case qconv:n=2,c=16,o=8,in=7x9,k=3x3,s=2x1,pb=1x1,pe=1x0,bias=1,dt=s8:s8:s8,acc=f32,ssc=0.1,szp=-3,wsc=0.01:0.02:0.03:0.04:0.05:0.06:0.07:0.08,dsc=0.25:0.5:1:2:0.125:4:0.75:1.5,dzp=-5)
      set_tests_properties(conformance_quantized_onednn_dst_scales PROPERTIES LABELS backend PASS_REGULAR_EXPRESSION
                           "2 cases executed, 0 declined.*pass rate 100.0 %")
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
