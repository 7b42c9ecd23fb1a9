# The descriptor <-> ABI struct conversion (convcheck/abi/abi_descriptor.hpp): the runner builds ABI
# descriptors with it, the in-tree plugins read theirs with it. Below both (docs/layers.md).
add_library(convcheck_abi_descriptor STATIC ${CMAKE_CURRENT_LIST_DIR}/abi_descriptor.cpp ${CMAKE_CURRENT_LIST_DIR}/abi_quantized.cpp
            ${CMAKE_CURRENT_LIST_DIR}/abi_post_ops.cpp)
target_include_directories(convcheck_abi_descriptor PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(convcheck_abi_descriptor PUBLIC convcheck_core convcheck_abi)
