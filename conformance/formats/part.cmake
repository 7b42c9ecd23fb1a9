# The runner's `--suite model.onnx` end to end: models built in the test by python3-onnx (cases,
# descriptors against the ONNX dialect, skips, bad files), read by formats/onnx_conv_nodes.py.
if(CONVCHECK_BUILD_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/optimized/CMakeLists.txt)
  add_test(NAME conformance_onnx_model_suites
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/onnx_suite_check.py $<TARGET_FILE:convcheck>
                   $<TARGET_FILE:convcheck_plugin_optimized> ${PROJECT_SOURCE_DIR}/formats/onnx_conv_nodes.py)
  set_tests_properties(conformance_onnx_model_suites PROPERTIES TIMEOUT 300)
endif()
