# The XNNPACK backend plugin (libxnnpack-dev, libpthreadpool-dev): built only when both are present.
# Neither package has a CMake config: find the header and the libraries directly.
if(CONVCHECK_BACKEND_PLUGINS)
  find_path(CONVCHECK_XNNPACK_INCLUDE_DIR xnnpack.h)
  find_path(CONVCHECK_PTHREADPOOL_INCLUDE_DIR pthreadpool.h)
  find_library(CONVCHECK_XNNPACK_LIBRARY XNNPACK)
  find_library(CONVCHECK_PTHREADPOOL_LIBRARY pthreadpool)
  if(CONVCHECK_XNNPACK_INCLUDE_DIR AND CONVCHECK_PTHREADPOOL_INCLUDE_DIR AND CONVCHECK_XNNPACK_LIBRARY
     AND CONVCHECK_PTHREADPOOL_LIBRARY)
    # The snapshot has no version API: report the Debian package version it came from.
    execute_process(COMMAND dpkg-query -W -f=\${Version} libxnnpack-dev OUTPUT_VARIABLE xnnpack_version
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT xnnpack_version)
      set(xnnpack_version "unknown")
    endif()
    convcheck_add_backend_plugin(xnnpack SOURCES ${CMAKE_CURRENT_LIST_DIR}/xnnpack_plugin.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/xnnpack_transposed.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/xnnpack_quantized.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/xnnpack_post_ops.cpp
                                 LIBS convcheck_plugin_adaptation ${CONVCHECK_XNNPACK_LIBRARY}
                                      ${CONVCHECK_PTHREADPOOL_LIBRARY})
    target_include_directories(convcheck_plugin_xnnpack PRIVATE ${CONVCHECK_XNNPACK_INCLUDE_DIR}
                               ${CONVCHECK_PTHREADPOOL_INCLUDE_DIR})
    target_compile_definitions(convcheck_plugin_xnnpack PRIVATE CONVCHECK_XNNPACK_VERSION="${xnnpack_version}")
    # ALLOW_UNCHECKED: XNNPACK accumulates f16 in f16, so edge's 2,304-term f16 case is unchecked
    convcheck_add_backend_plugin_tests(xnnpack TRANSPOSED ALLOW_UNCHECKED)
    if(CONVCHECK_BUILD_TESTS)
      # fused post-ops (xnnpack_post_ops.cpp): a clamp as the operators' output_min / output_max, on each operator
      add_test(NAME conformance_post_ops_xnnpack_paths
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_xnnpack>
                       --suite ${CMAKE_CURRENT_LIST_DIR}/tests/post_ops_xnnpack.cases --threads 2 --no-shrink --no-progress
                       --quiet)
      set_tests_properties(conformance_post_ops_xnnpack_paths PROPERTIES TIMEOUT 120 LABELS backend)
    endif()
  else()
    message(STATUS "convcheck: XNNPACK or pthreadpool (libxnnpack-dev, libpthreadpool-dev) not found: "
                   "the xnnpack plugin is not built")
  endif()
endif()
