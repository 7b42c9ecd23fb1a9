# The OpenCV dnn backend plugin (libopencv-dev): built only when OpenCV's core and dnn are found.
if(CONVCHECK_BACKEND_PLUGINS)
  find_package(OpenCV QUIET COMPONENTS core dnn)
  if(OpenCV_FOUND)
    convcheck_add_backend_plugin(opencv SOURCES ${CMAKE_CURRENT_LIST_DIR}/opencv_plugin.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/opencv_transposed.cpp
                                 LIBS convcheck_plugin_adaptation opencv_core opencv_dnn)
    convcheck_add_backend_plugin_tests(opencv TRANSPOSED)
  else()
    message(STATUS "convcheck: OpenCV dnn (libopencv-dev) not found: the opencv plugin is not built")
  endif()
endif()
