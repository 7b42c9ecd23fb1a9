# The installed package `convcheck` (find_package(convcheck) builds a backend plugin outside this
# tree): the ABI header and its C++ helpers (plugin_support.hpp, which the template uses, and one per pass), the convcheck command, the reference and optimized plugins, the backend
# declarations file, and a test that builds the plugin template out of tree against an install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(convcheck_abi PROPERTIES EXPORT_NAME abi)
install(TARGETS convcheck_abi EXPORT convcheckTargets COMPONENT sdk)
# every header of the ABI: plugin.h and its parts (convcheck/plugin/*.h), and the C++ helpers beside it (one
# per concept: plugin_support.hpp, plugin_layout.hpp, plugin_backward.hpp, plugin_transposed.hpp,
# plugin_cc_backward.hpp)
file(GLOB CONVCHECK_ABI_HEADERS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../include/convcheck/plugin*.h
     ${CMAKE_CURRENT_LIST_DIR}/../include/convcheck/plugin*.hpp)
file(GLOB CONVCHECK_ABI_PARTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../include/convcheck/plugin/*.h)
install(FILES ${CONVCHECK_ABI_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/convcheck COMPONENT sdk)
install(FILES ${CONVCHECK_ABI_PARTS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/convcheck/plugin COMPONENT sdk)
install(TARGETS convcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT sdk)
# (the reference and optimized plugins install themselves, in their part.cmake: they come later)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/../data/backends.json DESTINATION ${CMAKE_INSTALL_DATADIR}/convcheck
        COMPONENT sdk)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/CMakeLists.txt ${CMAKE_CURRENT_LIST_DIR}/my_backend.cpp
        DESTINATION ${CMAKE_INSTALL_DATADIR}/convcheck/plugin_template COMPONENT sdk)
install(EXPORT convcheckTargets NAMESPACE convcheck:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convcheck
        COMPONENT sdk)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/convcheckConfig.cmake.in
  ${CMAKE_BINARY_DIR}/convcheckConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convcheck)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/convcheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
# convcheckConfig.cmake includes the one plugin function the in-tree plugins use (cmake/ConvcheckPlugin.cmake).
install(FILES ${CMAKE_BINARY_DIR}/convcheckConfig.cmake ${CMAKE_BINARY_DIR}/convcheckConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ConvcheckPlugin.cmake ${PROJECT_SOURCE_DIR}/cmake/convcheck_plugin_exports.map
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convcheck COMPONENT sdk)

# Where the out-of-tree test builds the template (backend_test/part.cmake runs the ABI test on it).
set(CONVCHECK_TEMPLATE_TEST_DIR ${CMAKE_BINARY_DIR}/plugin_template_test)
if(CONVCHECK_BUILD_TESTS)
  add_test(NAME conformance_plugin_template_out_of_tree
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DTEMPLATE_DIR=${CMAKE_CURRENT_LIST_DIR}
                   -DWORK_DIR=${CONVCHECK_TEMPLATE_TEST_DIR} -DGENERATOR=${CMAKE_GENERATOR}
                   -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DNM=${CMAKE_NM} -DCXX=${CMAKE_CXX_COMPILER}
                   -P ${CMAKE_CURRENT_LIST_DIR}/out_of_tree_test.cmake)
  set_tests_properties(conformance_plugin_template_out_of_tree PROPERTIES TIMEOUT 300
                      FIXTURES_SETUP plugin_template_built)
endif()
