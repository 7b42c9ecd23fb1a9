# The plugin ABI: one C header, convcheck/plugin.h (plugin_support.hpp and plugin_layout.hpp beside it
# serve the in-tree plugins), as the target convcheck_abi and, as in an installed package, convcheck::abi.
add_library(convcheck_abi INTERFACE)
target_include_directories(convcheck_abi INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>
                                                   $<INSTALL_INTERFACE:include>)

add_library(convcheck::abi ALIAS convcheck_abi)
