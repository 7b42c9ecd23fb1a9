# The oneDNN backend plugin (libdnnl-dev): built only when the package is present.
if(CONVCHECK_BACKEND_PLUGINS)
  find_package(dnnl CONFIG QUIET)
  find_package(OpenMP COMPONENTS CXX QUIET)
  if(dnnl_FOUND AND OpenMP_CXX_FOUND)
    convcheck_add_backend_plugin(onednn SOURCES ${CMAKE_CURRENT_LIST_DIR}/onednn_plugin.cpp
                                 LIBS DNNL::dnnl OpenMP::OpenMP_CXX)
    if(CONVCHECK_BUILD_TESTS AND TARGET convcheck)
      # The backward suite (docs/passes.md) on oneDNN's backward data and weights primitives; what
      # this CPU has no implementation for is declined in oneDNN's words (the coverage floor applies).
      add_test(NAME conformance_backward_onednn
               COMMAND convcheck run --backend $<TARGET_FILE:convcheck_plugin_onednn> --suite backward --threads 2
                       --no-shrink --no-progress)
      set_tests_properties(conformance_backward_onednn PROPERTIES TIMEOUT 120 LABELS backend)
    endif()
  else()
    message(STATUS "convcheck: oneDNN (libdnnl-dev) or OpenMP not found: the onednn plugin is not built")
  endif()
endif()
