// The onednn plugin's instance and dtype mapping, shared by its convolution (onednn_plugin.cpp) and its
// transposed convolution (onednn_transposed.cpp).
#pragma once

#include <dnnl.hpp>
#include <string>

#include "convcheck/plugin.h"

struct convcheck_plugin {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    int num_threads = 0;
    std::string version;
};

namespace convcheck_onednn {

inline dnnl::memory::data_type data_type_of(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return dnnl::memory::data_type::f32;
        case CONVCHECK_F16: return dnnl::memory::data_type::f16;
        case CONVCHECK_BF16: return dnnl::memory::data_type::bf16;
        default: return dnnl::memory::data_type::undef;
    }
}

}  // namespace convcheck_onednn
