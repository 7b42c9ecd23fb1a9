# convcheck_add_backend_plugin: THE way to build a convcheck backend plugin, in this tree and in a
# vendor's project alike. In this tree conformance/CMakeLists.txt includes this file; installed (the
# `sdk` component, lib/cmake/convcheck/) convcheckConfig.cmake includes it, so find_package(convcheck)
# brings the same function.
#
#   convcheck_add_backend_plugin(<name> SOURCES <files...> [LIBS <libraries...>] [ABI_HEADERS <dir>])
#
# builds target convcheck_plugin_<name>, the MODULE library libconvcheck_plugin_<name>.so that
# `convcheck run --backend <path>` loads:
#   - linked to convcheck::abi (the plugin.h header and plugin_support.hpp) and LIBS, privately;
#     ABI_HEADERS <dir>: compile against the plugin.h in <dir> instead (a plugin of an earlier ABI);
#   - hidden visibility, and a version script that exports convcheck_get_api alone: nothing a static
#     library brings along leaks out, so several plugins load side by side in one process;
#   - -Wl,--no-undefined: an unresolved symbol is a link error, not a load error in the runner;
#   - written into ${CONVCHECK_PLUGIN_OUTPUT_DIRECTORY} when that variable is set (this tree sets
#     <build>/plugins, where `convcheck run --backend <name>` finds it), else where CMake puts it.
# Test registration is not here: in this tree, convcheck_add_backend_plugin_tests(<name>)
# (conformance/plugins/common/part.cmake) adds a third-party backend's ctests.
include_guard(GLOBAL)

# The version script (installed beside this file): convcheck_get_api global, everything else local.
# (A global property: the function may be called from a directory that does not see this one's variables.)
set_property(GLOBAL PROPERTY CONVCHECK_PLUGIN_EXPORTS ${CMAKE_CURRENT_LIST_DIR}/convcheck_plugin_exports.map)

function(convcheck_add_backend_plugin name)
  cmake_parse_arguments(P "" "ABI_HEADERS" "SOURCES;LIBS" ${ARGN})
  if(NOT P_SOURCES)
    message(FATAL_ERROR "convcheck_add_backend_plugin(${name}): no SOURCES")
  endif()
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "convcheck_add_backend_plugin(${name}): unknown arguments ${P_UNPARSED_ARGUMENTS}")
  endif()
  set(target convcheck_plugin_${name})
  get_property(exports GLOBAL PROPERTY CONVCHECK_PLUGIN_EXPORTS)
  add_library(${target} MODULE ${P_SOURCES})
  if(P_ABI_HEADERS)
    target_include_directories(${target} PRIVATE ${P_ABI_HEADERS})
  else()
    target_link_libraries(${target} PRIVATE convcheck::abi)
  endif()
  target_link_libraries(${target} PRIVATE ${P_LIBS})
  set_target_properties(${target} PROPERTIES
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${exports})
  if(DEFINED CONVCHECK_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CONVCHECK_PLUGIN_OUTPUT_DIRECTORY})
  endif()
  # clang links the sanitizer runtimes into the executable only (statically), and a plugin takes their symbols from
  # the runner that loads it: in this tree's clang sanitizer build (cmake/sanitizer-build.cmake) those stay unresolved
  # at link time, so --no-undefined is left out there (g++ links its runtimes into the plugin too).
  if(CONVCHECK_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_link_options(${target} PRIVATE -Wl,--version-script=${exports})
  else()
    target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${exports})
  endif()
  set_property(GLOBAL APPEND PROPERTY CONVCHECK_PLUGINS ${target})  # every plugin built here, for tests
endfunction()
