# The descriptor <-> ABI struct conversion (convcheck/abi/abi_descriptor.hpp): the runner builds ABI
# descriptors with it, the in-tree plugins read theirs with it. Below both (docs/layers.md).
add_library(convcheck_abi_descriptor STATIC ${CMAKE_CURRENT_LIST_DIR}/abi_descriptor.cpp ${CMAKE_CURRENT_LIST_DIR}/abi_quantized.cpp
            ${CMAKE_CURRENT_LIST_DIR}/abi_post_ops.cpp ${CMAKE_CURRENT_LIST_DIR}/abi_scales.cpp)
target_include_directories(convcheck_abi_descriptor PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(convcheck_abi_descriptor PUBLIC convcheck_core convcheck_abi)
# The exec protocol's messages (convcheck/abi/exec_messages.hpp, docs/exec-protocol.md): the exec bridge plugin
# speaks them to a backend process; the runner writes an offline run's manifest with them (docs/offline.md).
add_library(convcheck_exec_messages STATIC ${CMAKE_CURRENT_LIST_DIR}/exec_messages.cpp)
target_link_libraries(convcheck_exec_messages PUBLIC convcheck_abi_descriptor nlohmann_json::nlohmann_json)
