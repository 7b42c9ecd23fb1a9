# The OpenCV dnn backend plugin (libopencv-dev): built only when OpenCV's core and dnn are found.
if(CONVCHECK_BACKEND_PLUGINS)
  find_package(OpenCV QUIET COMPONENTS core dnn)
  if(OpenCV_FOUND)
    convcheck_add_backend_plugin(opencv SOURCES ${CMAKE_CURRENT_LIST_DIR}/opencv_plugin.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/opencv_transposed.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/opencv_quantized.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/opencv_post_ops.cpp
                                 LIBS convcheck_plugin_adaptation opencv_core opencv_dnn)
    convcheck_add_backend_plugin_tests(opencv TRANSPOSED)
    if(CONVCHECK_BUILD_TESTS)
      # quantized convolution (docs/quantized.md): ConvolutionInt8, no named rule, judged by TOSA's window
      add_test(NAME conformance_quantized_opencv
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_opencv> --suite quantized --threads 2
                       --no-shrink --no-progress --quiet)
      # each form the plugin hands OpenCV (opencv_quantized.cpp), all run (--min-coverage 1): per-channel
      # multipliers in NCX/OIX and NXC/XIO (reordered), strides and dilations, depthwise (OpenCV's own 3x3 path,
      # M = 1 and M = 2), 3-D, rank 1, and a 64-channel sum
      set(cases
          "qconv:c=4,o=8,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.25,szp=-5,wsc=oc,dsc=16,dzp=3"
          "qconv:c=4,o=8,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.25,szp=5,wsc=oc,dsc=16,dzp=3,data=nxc,wei=xio"
          "qconv:c=4,o=8,in=9x9,k=3x3,pb=1x1,pe=1x1,s=2x1,d=1x2,bias=1,dt=s8:s8:s8,ssc=0.25,szp=5,wsc=oc,dsc=16,dzp=3"
          "qconv:c=6,o=6,g=6,in=20x20,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.25,szp=-5,wsc=oc,dsc=4,dzp=3"
          "qconv:c=6,o=12,g=6,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.25,szp=-5,wsc=oc,dsc=4,dzp=3"
          "qconv:c=4,o=4,in=5x4x4,k=2x2x2,pb=1,bias=1,dt=s8:s8:s8,ssc=0.1,szp=7,wsc=0.03,dsc=0.7,dzp=12"
          "qconv:c=16,o=8,in=9,k=3,pb=2,pe=2,bias=1,dt=s8:s8:s8,ssc=0.013,szp=7,wsc=oc,dsc=0.7,dzp=-20"
          "qconv:c=64,o=8,in=6x6,k=3x3,bias=1,dt=s8:s8:s8,ssc=0.013,szp=7,wsc=oc,dsc=0.7,dzp=-20")
      set(case_args)
      foreach(c IN LISTS cases)
        list(APPEND case_args --case ${c})
      endforeach()
      add_test(NAME conformance_quantized_opencv_types
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_opencv> ${case_args} --min-coverage 1
                       --threads 2 --no-shrink --no-progress --quiet)
      # fused post-ops (docs/post-ops.md): every eltwise algorithm the plugin claims, each as its activation layer
      # (opencv_post_ops.cpp), all run (--min-coverage 1): bound mode for all, exact mode for the exact ones; NXC,
      # rank 1, 3-D and depthwise cases go through the adaptations
      set(B "c=4,o=6,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1")
      set(bound_cases
          "${B},data=nxc,po=relu:0.25+tanh" "${B},po=clip:-0.5:0.75+logistic" "${B},po=linear:0.5:1+swish"
          "${B},po=elu:0.5+mish" "${B},po=exp+abs" "c=3,o=5,in=9,k=3,pb=1,pe=1,bias=1,po=abs+linear:1:1+log"
          "${B},po=abs+sqrt+square" "${B},po=hardswish+hardsigmoid:0.2:0.5" "${B},po=round+soft_relu"
          "${B},po=abs+linear:1:0.5+pow:1:0.5" "${B},po=pow:1:2" "c=2,o=3,in=4x5x5,k=2x3x3,bias=1,po=relu+elu"
          "c=4,o=8,g=4,in=7x7,k=3x3,bias=1,po=clip:-1:1")
      set(exact_cases "${B},po=relu" "${B},data=nxc,po=relu:0.25" "${B},po=clip:-2:3" "${B},po=linear:0.5:1"
          "${B},po=square" "${B},po=round" "${B},po=abs")
      foreach(mode bound exact)
        set(case_args)
        foreach(c IN LISTS ${mode}_cases)
          list(APPEND case_args --case ${c})
        endforeach()
        add_test(NAME conformance_post_ops_opencv_${mode}
                 COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_opencv> ${case_args} --mode ${mode}
                         --min-coverage 1 --threads 2 --no-shrink --no-progress --quiet)
        set_tests_properties(conformance_post_ops_opencv_${mode} PROPERTIES LABELS backend)
      endforeach()
      set_tests_properties(conformance_quantized_opencv conformance_quantized_opencv_types PROPERTIES LABELS backend)
    endif()
  else()
    message(STATUS "convcheck: OpenCV dnn (libopencv-dev) not found: the opencv plugin is not built")
  endif()
endif()
