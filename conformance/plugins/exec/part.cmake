# The exec bridge (docs/exec-protocol.md): `--backend exec:COMMAND` and `--backend python:FILE.py` load this plugin,
# which speaks the exec protocol to a backend process (started once, reused across cases, restarted after a crash).
convcheck_add_backend_plugin(exec SOURCES ${CMAKE_CURRENT_LIST_DIR}/exec_plugin.cpp
                     ${CMAKE_CURRENT_LIST_DIR}/exec_keeper.cpp ${CMAKE_CURRENT_LIST_DIR}/exec_lines.cpp
                     LIBS convcheck_exec_messages nlohmann_json::nlohmann_json rt)
install(TARGETS convcheck_plugin_exec LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/convcheck/plugins COMPONENT sdk)
if(CONVCHECK_BUILD_TESTS)
  convcheck_add_test(exec_zoo_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/exec_zoo_test.cpp LIBS convcheck_runner)
  target_compile_definitions(exec_zoo_test PRIVATE CONVCHECK_EXEC_TESTS_DIR="${CMAKE_CURRENT_LIST_DIR}/tests")
  add_dependencies(exec_zoo_test convcheck_plugin_exec)
  # the examples, each on the smoke suite (docs/exec-protocol.md)
  add_test(NAME conformance_smoke_python_numpy
           COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/numpy_backend.py --suite smoke
                   --no-progress --quiet)
  # quantized cases over the protocol (1.1): the numpy example sums in int64 and requantizes by the rule it declares,
  # bit for bit on every case it claims; a backend returning another integer dtype is named
  add_test(NAME conformance_quantized_python_numpy
           COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/numpy_backend.py
                   --suite quantized --no-progress)
  set_tests_properties(conformance_quantized_python_numpy PROPERTIES PASS_REGULAR_EXPRESSION
                       "14 cases executed, 5 declined.*pass rate 100.0 %")
  # transposed convolution over the protocol (1.1): the numpy example's conv_transposed (output padding, negative pads)
  add_test(NAME conformance_transposed_python_numpy
           COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/numpy_backend.py
                   --suite transposed --no-progress)
  set_tests_properties(conformance_transposed_python_numpy PROPERTIES PASS_REGULAR_EXPRESSION
                       "18 cases executed, 28 declined.*pass rate 100.0 %")
  # a backend that stores zero points in its tensors' types (no "zero_points_outside_types" claim) is never sent a
  # zpt=s32 case whose zero points lie outside them: the bridge declines it, named
  add_test(NAME conformance_exec_zero_points_outside_types
           COMMAND convcheck run --backend python:${CMAKE_CURRENT_LIST_DIR}/tests/in_type_zero_points_backend.py
                   --suite quantized --no-progress)
  set_tests_properties(conformance_exec_zero_points_outside_types PROPERTIES PASS_REGULAR_EXPRESSION
                       "13 cases executed, 6 declined.*pass rate 100.0 %.*1: a zero point outside its tensor's type.*does not claim .zero_points_outside_types.")
  add_test(NAME conformance_quantized_python_wrong_dtype
           COMMAND ${CMAKE_COMMAND} -DEXPECT=1 -P ${PROJECT_SOURCE_DIR}/conformance/runner/expect_exit.cmake
                   $<TARGET_FILE:convcheck> run --backend python:${CMAKE_CURRENT_LIST_DIR}/tests/qconv_wrong_dtype_backend.py
                   --suite quantized --mode exact --no-progress)
  set_tests_properties(conformance_quantized_python_wrong_dtype PROPERTIES PASS_REGULAR_EXPRESSION
                       "exit code 1 as expected.*it returned dst as s32 where the case's dst is u8")
endif()
if(CONVCHECK_BUILD_TESTS)
  # the PyTorch example where python3-torch imports (scripts/setup.sh installs it)
  execute_process(COMMAND /usr/bin/python3 -c "import torch" RESULT_VARIABLE torch_missing OUTPUT_QUIET ERROR_QUIET)
  if(torch_missing)
    message(STATUS "convcheck: /usr/bin/python3 cannot import torch (python3-torch): the PyTorch example's test is left out")
  else()
    add_test(NAME conformance_smoke_python_torch
             COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/torch_backend.py --suite smoke
                     --no-progress --quiet)
    # quantized cases through PyTorch's quantized ops on QNNPACK, exact under the rule the example declares
    # (nearest_even_f32, the libtorch plugin's); transposed convolution through F.conv_transpose1d/2d/3d
    add_test(NAME conformance_quantized_python_torch
             COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/torch_backend.py
                     --suite quantized --no-progress)
    set_tests_properties(conformance_quantized_python_torch PROPERTIES PASS_REGULAR_EXPRESSION
                         "7 cases executed, 12 declined.*pass rate 100.0 %")
    add_test(NAME conformance_transposed_python_torch
             COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/torch_backend.py
                     --suite transposed --no-progress)
    set_tests_properties(conformance_transposed_python_torch PROPERTIES PASS_REGULAR_EXPRESSION
                         "18 cases executed, 28 declined.*pass rate 100.0 %")
    # the pads through torch's padding and output_padding (asymmetric: output_padding + pads_begin - pads_end) and
    # through the crop of the whole output (torch's output_padding at the stride, negative pads)
    add_test(NAME conformance_transposed_python_torch_pads
             COMMAND convcheck run --backend python:${PROJECT_SOURCE_DIR}/examples/python/torch_backend.py --no-progress
                     --case deconv:n=2,c=4,o=6,g=2,in=4x5,k=3x3,s=2x2,pb=1x2,pe=0x1,bias=1,dt=f32
                     --case deconv:c=3,o=2,in=5,k=3,s=3,pb=0,pe=1,op=2,bias=1,dt=f32
                     --case deconv:c=2,o=4,in=3x3x2,k=2x2x2,s=2x1x2,d=1x2x1,pb=2x0x1,pe=0x-1x0,bias=1,dt=f32
                     --case deconv:c=2,o=2,in=4x4,k=3x3,s=2x2,pb=0x-1,pe=-2x1,op=1x0,dt=f32)
    set_tests_properties(conformance_transposed_python_torch_pads PROPERTIES PASS_REGULAR_EXPRESSION
                         "4 cases executed, 0 declined.*pass rate 100.0 %")
  endif()
endif()
install(FILES ${PROJECT_SOURCE_DIR}/python/convcheck_backend.py ${PROJECT_SOURCE_DIR}/python/convcheck_offline.py DESTINATION ${CMAKE_INSTALL_DATADIR}/convcheck/python
        COMPONENT sdk)
