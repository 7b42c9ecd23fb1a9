# The plugin ABI header is the interface target convcheck_abi (conformance/CMakeLists.txt).
# convcheck_add_plugin(name SOURCES a.cpp ... [LIBS lib ...]) builds a backend plugin as
# <build>/plugins/libconvcheck_plugin_<name>.so, where `convcheck run --backend <name>` finds it.
set(CONVCHECK_PLUGIN_DIR ${CMAKE_BINARY_DIR}/plugins)
function(convcheck_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_library(convcheck_plugin_${name} MODULE ${P_SOURCES})
  target_link_libraries(convcheck_plugin_${name} PRIVATE convcheck_abi ${P_LIBS})
  set_target_properties(convcheck_plugin_${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CONVCHECK_PLUGIN_DIR}
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(convcheck_plugin_${name} PRIVATE -Wl,--no-undefined)
endfunction()
