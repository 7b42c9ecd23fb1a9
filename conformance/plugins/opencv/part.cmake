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
      set_tests_properties(conformance_quantized_opencv conformance_quantized_opencv_types PROPERTIES LABELS backend)
    endif()
  else()
    message(STATUS "convcheck: OpenCV dnn (libopencv-dev) not found: the opencv plugin is not built")
  endif()
endif()
