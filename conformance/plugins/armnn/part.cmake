# The Arm NN backend plugin (libarmnn-dev, libarmnn-cpuref-backend22): built only when both are present.
# Neither package has a CMake config: find the header, libarmnn and the CpuRef dynamic backend, which
# Debian installs in the armnn<soversion> folder of the multiarch library directory; the plugin hands
# that folder to IRuntime::CreationOptions::m_DynamicBackendsPath.
# (conformance/CMakeLists.txt lists this part after plugins/common, whose convcheck_add_backend_plugin_tests
# registers the ctests.)
set(CONVCHECK_ARMNN_PLUGIN_DIR ${CMAKE_CURRENT_LIST_DIR})
function(convcheck_add_armnn_plugin)
  find_path(CONVCHECK_ARMNN_INCLUDE_DIR armnn/ArmNN.hpp)
  find_library(CONVCHECK_ARMNN_LIBRARY armnn)
  find_library(CONVCHECK_ARMNN_CPUREF_BACKEND NAMES Arm_CpuRef_backend.so PATH_SUFFIXES armnn22)
  if(NOT (CONVCHECK_ARMNN_INCLUDE_DIR AND CONVCHECK_ARMNN_LIBRARY AND CONVCHECK_ARMNN_CPUREF_BACKEND))
    message(STATUS "convcheck: Arm NN or its CpuRef backend (libarmnn-dev, libarmnn-cpuref-backend22) not found: "
                   "the armnn plugin is not built")
    return()
  endif()
  get_filename_component(backend_dir ${CONVCHECK_ARMNN_CPUREF_BACKEND} DIRECTORY)
  # Arm NN's version macro is its library's (22.0.0): report the Debian package's too (20.08-...).
  execute_process(COMMAND dpkg-query -W -f=\${Version} libarmnn-dev OUTPUT_VARIABLE version
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT version)
    set(version "unknown")
  endif()
  convcheck_add_backend_plugin(armnn SOURCES ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_plugin.cpp
                               ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_layer.cpp ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_network.cpp
                               ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_transposed.cpp ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_quantized.cpp
                               ${CONVCHECK_ARMNN_PLUGIN_DIR}/armnn_post_ops.cpp
                               LIBS convcheck_plugin_adaptation ${CONVCHECK_ARMNN_LIBRARY})
  target_include_directories(convcheck_plugin_armnn PRIVATE ${CONVCHECK_ARMNN_INCLUDE_DIR})
  target_compile_definitions(convcheck_plugin_armnn PRIVATE CONVCHECK_ARMNN_BACKEND_DIR="${backend_dir}"
                             CONVCHECK_ARMNN_PACKAGE_VERSION="Arm NN ${version}")
  convcheck_add_backend_plugin_tests(armnn TRANSPOSED)
  if(CONVCHECK_BUILD_TESTS)
    # quantized convolution (docs/quantized.md): CpuRef declares no named rule, judged by TOSA's window
    add_test(NAME conformance_quantized_armnn
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_armnn> --suite quantized --no-shrink
                     --no-progress --quiet)
    # each of Arm NN's types and layouts the plugin hands it (armnn_quantized.cpp), all run (--min-coverage 1):
    # QSymmS8 per axis in NCHW/OIX, NHWC/XIO and NHWC/OXI with strides, dilations and asymmetric pads;
    # depthwise [M][C][H][W] with M = 2; QAsymmS8 and QAsymmU8 weights with a zero point; a BoundedReLu range
    # on s8; arbitrary scales in 1-D
    set(cases
        "qconv:c=4,o=8,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=s8:s8:s8,ssc=0.25,szp=-5,wsc=oc,dsc=16,dzp=3"
        "qconv:c=4,o=8,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:u8,ssc=0.25,szp=5,wsc=oc,dsc=16,dzp=3,data=nxc,wei=xio"
        "qconv:c=4,o=8,in=7x7,k=3x3,pb=2x0,pe=0x1,s=2x1,d=1x2,bias=1,dt=u8:s8:u8,ssc=0.25,szp=5,wsc=oc,dsc=16,dzp=3,data=nxc,wei=oxi"
        "qconv:c=3,o=6,g=3,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:u8,ssc=0.25,szp=5,wsc=0.125,dsc=4,dzp=3"
        "qconv:c=3,o=6,g=3,in=6x5,k=3x2,pb=0x1,bias=1,dt=s8:s8:s8,ssc=0.5,szp=-9,wsc=0.0625,dsc=8,dzp=-2,data=nxc"
        "qconv:c=4,o=8,in=7x7,k=3x3,bias=1,dt=s8:s8:s8,ssc=0.25,szp=-5,wsc=0.125,wzp=7,dsc=8,dzp=3"
        "qconv:c=4,o=8,in=7x7,k=3x3,bias=1,dt=u8:u8:u8,ssc=0.25,szp=5,wsc=0.125,wzp=120,dsc=8,dzp=3"
        "qconv:c=4,o=8,in=7x7,k=3x3,bias=1,dt=s8:u8:s8,ssc=0.25,szp=5,wsc=0.125,wzp=120,dsc=8,dzp=3"
        "qconv:c=4,o=8,in=7x7,k=3x3,bias=1,dt=s8:s8:s8,ssc=0.25,szp=5,wsc=0.125,dsc=8,dzp=3,lo=-20,hi=50"
        "qconv:c=16,o=8,in=9,k=3,pb=2,bias=1,dt=u8:s8:u8,ssc=0.013,szp=7,wsc=oc,dsc=0.7,dzp=120")
    set(case_args)
    foreach(c IN LISTS cases)
      list(APPEND case_args --case ${c})
    endforeach()
    add_test(NAME conformance_quantized_armnn_types
             COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_armnn> ${case_args} --min-coverage 1
                     --no-shrink --no-progress --quiet)
    # fused post-ops (docs/post-ops.md): every eltwise algorithm, binary algorithm and operand shape the plugin
    # claims, prelu and sum, each as its Arm NN layer (armnn_post_ops.cpp), all run (--min-coverage 1): bound mode
    # for all, exact mode for the exact ones; NHWC, rank 1 and depthwise cases
    set(B "c=4,o=6,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1")
    set(bound_cases
        "${B},data=nxc,po=relu:0.25+tanh" "${B},po=clip:-0.5:0.75+logistic+add:per_tensor"
        "${B},po=linear:0.5:1+elu:0.5+sub:per_oc" "${B},po=exp+mul:full" "${B},po=abs+sqrt+square+div:per_oc"
        "${B},po=hardswish+soft_relu+max:per_oc+min:full" "${B},data=nxc,po=relu+prelu:per_oc+sum"
        "c=4,o=8,g=4,in=7x7,k=3x3,bias=1,po=prelu:per_tensor+prelu:full" "c=3,o=5,in=9,k=3,pb=1,pe=1,bias=1,po=add:full+relu")
    set(exact_cases "${B},po=relu+add:per_oc" "${B},data=nxc,po=relu:0.25+sum" "${B},po=clip:-2:3+max:full"
        "${B},po=linear:0.5:1+mul:per_tensor" "${B},po=square+sub:full" "${B},po=abs+min:per_oc+prelu:per_oc")
    foreach(mode bound exact)
      set(case_args)
      foreach(c IN LISTS ${mode}_cases)
        list(APPEND case_args --case ${c})
      endforeach()
      add_test(NAME conformance_post_ops_armnn_${mode}
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_armnn> ${case_args} --mode ${mode}
                       --min-coverage 1 --no-shrink --no-progress --quiet)
      set_tests_properties(conformance_post_ops_armnn_${mode} PROPERTIES LABELS backend)
    endforeach()
    set_tests_properties(conformance_quantized_armnn conformance_quantized_armnn_types PROPERTIES LABELS backend)
  endif()
endfunction()
if(CONVCHECK_BACKEND_PLUGINS)
  convcheck_add_armnn_plugin()
endif()
