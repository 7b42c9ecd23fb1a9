# Input formats read by a converter script beside the runner: onnx_conv_nodes.py reads an ONNX model
# for `--suite model.onnx` (conformance/runner/suite_onnx.cpp), installed where the runner looks for it.
include(GNUInstallDirs)
install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/onnx_conv_nodes.py DESTINATION ${CMAKE_INSTALL_DATADIR}/convcheck
        COMPONENT sdk)
if(CONVCHECK_BUILD_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/optimized/CMakeLists.txt)
  # Models built in the test by python3-onnx: cases, descriptors against the ONNX dialect, skips, bad files.
  add_test(NAME conformance_onnx_model_suites
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/tests/onnx_suite_check.py $<TARGET_FILE:convcheck>
                   $<TARGET_FILE:convcheck_plugin_optimized> ${CMAKE_CURRENT_LIST_DIR}/onnx_conv_nodes.py)
  set_tests_properties(conformance_onnx_model_suites PROPERTIES TIMEOUT 300)
endif()
