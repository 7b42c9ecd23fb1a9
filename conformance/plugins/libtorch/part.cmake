# The libtorch backend plugin (libtorch-dev): built only when Torch's CMake config is found.
# find_package(Torch) is slow and chatty; it runs once per configure, and only for this plugin.
if(CONVCHECK_BACKEND_PLUGINS)
  find_package(Torch CONFIG QUIET)
  if(Torch_FOUND OR TORCH_FOUND)
    execute_process(COMMAND dpkg-query -W -f=\${Version} libtorch-dev OUTPUT_VARIABLE libtorch_version
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT libtorch_version)
      set(libtorch_version "unknown")
    endif()
    # The CC layer with torch operations (cc_torch.hpp): a library of its own, for the plugin, its backward
    # test and the CC bench.
    add_library(convcheck_libtorch_cc STATIC
                ${CMAKE_CURRENT_LIST_DIR}/cc_grid.cpp ${CMAKE_CURRENT_LIST_DIR}/cc_kernel.cpp
                ${CMAKE_CURRENT_LIST_DIR}/cc_standard.cpp ${CMAKE_CURRENT_LIST_DIR}/cc_discrete_convs.cpp
                ${CMAKE_CURRENT_LIST_DIR}/cc_torch.cpp)
    set_target_properties(convcheck_libtorch_cc PROPERTIES POSITION_INDEPENDENT_CODE ON
                          CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
    target_include_directories(convcheck_libtorch_cc PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
    target_compile_options(convcheck_libtorch_cc PRIVATE ${TORCH_CXX_FLAGS})
    target_link_libraries(convcheck_libtorch_cc PUBLIC convcheck_core ${TORCH_LIBRARIES})
    convcheck_add_backend_plugin(libtorch SOURCES ${CMAKE_CURRENT_LIST_DIR}/libtorch_plugin.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/libtorch_backward.cpp ${CMAKE_CURRENT_LIST_DIR}/libtorch_transposed.cpp ${CMAKE_CURRENT_LIST_DIR}/libtorch_quantized.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/libtorch_post_ops.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/cc_plugin.cpp
                                 LIBS convcheck_plugin_adaptation convcheck_libtorch_cc convcheck_abi_descriptor
                                      ${TORCH_LIBRARIES})
    target_compile_definitions(convcheck_plugin_libtorch PRIVATE CONVCHECK_LIBTORCH_VERSION="${libtorch_version}")
    target_compile_options(convcheck_plugin_libtorch PRIVATE ${TORCH_CXX_FLAGS})
    # The plugin sets ATen's OpenMP thread count itself (libtorch_threads.hpp); without OpenMP it calls
    # at::set_num_threads.
    find_package(OpenMP COMPONENTS CXX QUIET)
    if(OpenMP_CXX_FOUND)
      target_link_libraries(convcheck_plugin_libtorch PRIVATE OpenMP::OpenMP_CXX)
    endif()
    # The libtorch_cuda plugin (libtorch_cuda_plugin.cpp; docs/backends.md, "libtorch_cuda"): at::convolution on a
    # CUDA device. Its source builds against any libtorch; a libtorch without CUDA (Debian's) sees no device, and the
    # plugin then declines every case with that reason, which the test below checks.
    if(TORCH_CUDA_LIBRARIES OR CAFFE2_USE_CUDA)
      message(STATUS "convcheck: libtorch_cuda plugin: Torch links CUDA (${TORCH_CUDA_LIBRARIES}): it runs cases on the GPU "
                     "where torch::cuda::is_available()")
    else()
      message(STATUS "convcheck: libtorch_cuda plugin: this Torch has no CUDA (TORCH_CUDA_LIBRARIES is empty, "
                     "CAFFE2_USE_CUDA is off): built, and it declines every case (no CUDA device)")
    endif()
    # its backward and transposed passes are the libtorch plugin's code with the device as an argument
    convcheck_add_backend_plugin(libtorch_cuda SOURCES ${CMAKE_CURRENT_LIST_DIR}/libtorch_cuda_plugin.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/libtorch_backward.cpp ${CMAKE_CURRENT_LIST_DIR}/libtorch_transposed.cpp
                                 LIBS convcheck_plugin_adaptation ${TORCH_LIBRARIES})
    target_compile_definitions(convcheck_plugin_libtorch_cuda PRIVATE CONVCHECK_LIBTORCH_VERSION="${libtorch_version}")
    target_compile_options(convcheck_plugin_libtorch_cuda PRIVATE ${TORCH_CXX_FLAGS})
    if(CONVCHECK_BUILD_TESTS AND NOT (TORCH_CUDA_LIBRARIES OR CAFFE2_USE_CUDA))
      # every smoke case the plugin claims is declined with the no-device reason, the others by its claims, none run
      add_test(NAME conformance_libtorch_cuda_declines_without_a_device
               COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/cuda_declines_check.py
                       $<TARGET_FILE:convcheck> $<TARGET_FILE:convcheck_plugin_libtorch_cuda>)
      set_tests_properties(conformance_libtorch_cuda_declines_without_a_device PROPERTIES TIMEOUT 120 LABELS backend)
    endif()
    # ALLOW_UNCHECKED: on a CPU without AVX-512 ATen accumulates bf16 in bf16, so the 2,304-term bf16 cases are
    # unchecked there (docs/passes.md)
    convcheck_add_backend_plugin_tests(libtorch BACKWARD TRANSPOSED ALLOW_UNCHECKED)
    if(CONVCHECK_BUILD_TESTS)
      # The CC layer (docs/backends.md, "CC layer"): the cc suite forward through each method (the automatic
      # choice takes by discrete convs for every rational layer of the suite, so the standard method is
      # forced once); random layers forward against the reference under the CC contract; the backward (torch
      # autograd) against the reference's chain rule.
      add_test(NAME conformance_cc_libtorch
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch> --suite cc --threads 2 --no-shrink --no-progress)
      add_test(NAME conformance_cc_libtorch_standard
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch> --backend-option cc_method=standard
                       --suite cc --threads 2 --no-shrink --no-progress)
      set_tests_properties(conformance_cc_libtorch conformance_cc_libtorch_standard PROPERTIES TIMEOUT 300 LABELS backend)
      # quantized convolution (docs/quantized.md; libtorch_quantized.cpp): PyTorch's quantized::convNd on QNNPACK,
      # exact under the rule the plugin declares (nearest_even_f32)
      add_test(NAME conformance_quantized_libtorch
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch> --suite quantized --threads 2
                       --no-shrink --no-progress --quiet)
      # the plugin's own quantized paths (tests/quantized_libtorch.cases): conv_relu, the zero-point padding and
      # crop, per-channel weights with a zero point, 3-D, a clamp after the convolution
      add_test(NAME conformance_quantized_libtorch_paths
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch>
                       --suite ${CMAKE_CURRENT_LIST_DIR}/tests/quantized_libtorch.cases --threads 2 --no-shrink --no-progress
                       --quiet)
      set_tests_properties(conformance_quantized_libtorch conformance_quantized_libtorch_paths PROPERTIES TIMEOUT 120
                           LABELS backend)
      # fused post-ops (libtorch_post_ops.cpp): each op as its ATen op after at::convolution, in order
      add_test(NAME conformance_post_ops_libtorch_paths
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch>
                       --suite ${CMAKE_CURRENT_LIST_DIR}/tests/post_ops_libtorch.cases --threads 2 --no-shrink --no-progress
                       --quiet)
      # and the post_ops suite: its bf16 linear chain is declined (ATen rounds between ops; run, it fails the bound)
      add_test(NAME conformance_post_ops_libtorch
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_libtorch> --suite post_ops --threads 2
                       --no-shrink --no-progress --quiet)
      set_tests_properties(conformance_post_ops_libtorch_paths conformance_post_ops_libtorch PROPERTIES TIMEOUT 120
                           LABELS backend)
      foreach(pass forward backward)
        convcheck_add_test(libtorch_cc_${pass}_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/cc_${pass}_test.cpp
                           LIBS convcheck_libtorch_cc convcheck_reference_tests convcheck_accuracy)
        target_compile_options(libtorch_cc_${pass}_test PRIVATE ${TORCH_CXX_FLAGS})
        # Torch's flags define _GLIBCXX_USE_CXX11_ABI, which the test programs' precompiled header was built without.
        set_target_properties(libtorch_cc_${pass}_test PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
      endforeach()
    endif()
  else()
    message(STATUS "convcheck: Torch (libtorch-dev) not found: the libtorch plugin is not built")
  endif()
endif()
