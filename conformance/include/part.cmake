# The plugin ABI: one C header to include, convcheck/plugin.h, with its parts in convcheck/plugin/ (the C++
# helpers plugin_support.hpp, plugin_layout.hpp and one per pass beside it serve the in-tree plugins), and the
# frozen headers of earlier versions in history/, as the target convcheck_abi and, as in an installed package, convcheck::abi.
add_library(convcheck_abi INTERFACE)
target_include_directories(convcheck_abi INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>
                                                   $<INSTALL_INTERFACE:include>)

add_library(convcheck::abi ALIAS convcheck_abi)
