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
                               LIBS convcheck_plugin_adaptation ${CONVCHECK_ARMNN_LIBRARY})
  target_include_directories(convcheck_plugin_armnn PRIVATE ${CONVCHECK_ARMNN_INCLUDE_DIR})
  target_compile_definitions(convcheck_plugin_armnn PRIVATE CONVCHECK_ARMNN_BACKEND_DIR="${backend_dir}"
                             CONVCHECK_ARMNN_PACKAGE_VERSION="Arm NN ${version}")
  convcheck_add_backend_plugin_tests(armnn TRANSPOSED)
endfunction()
if(CONVCHECK_BACKEND_PLUGINS)
  convcheck_add_armnn_plugin()
endif()
