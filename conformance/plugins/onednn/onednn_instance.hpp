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

// Activations: logical {N, C, spatial...}; NCX is that order, NXC puts C last. Weights: logical
// {[G,] O/G, I/G, k...}; OIX = [O][I/G][k...] is that order (O = G*O/G, G outer), XIO = [k...][I/G][O], i.e.
// physical order k..., I/G, G, O/G. Both described exactly by strides, in `type` (onednn_plugin.cpp).
dnnl::memory::desc activation_desc(const convcheck_conv_desc& d, int64_t channels, bool is_dst, dnnl::memory::data_type type);
dnnl::memory::desc weights_desc(const convcheck_conv_desc& d, dnnl::memory::data_type type);

inline dnnl::memory::data_type data_type_of(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return dnnl::memory::data_type::f32;
        case CONVCHECK_F16: return dnnl::memory::data_type::f16;
        case CONVCHECK_BF16: return dnnl::memory::data_type::bf16;
        case CONVCHECK_U8: return dnnl::memory::data_type::u8;   // ABI 1.5, quantized cases only
        case CONVCHECK_S8: return dnnl::memory::data_type::s8;
        case CONVCHECK_S32: return dnnl::memory::data_type::s32;
        default: return dnnl::memory::data_type::undef;
    }
}

// What oneDNN 2.x documents about a dtype it refused (appended to an unimplemented refusal): f16 on GPU engines only;
// bf16 only on CPUs with AVX-512 (avx512_core: its bf16 kernels and their emulation need it; measured on an
// AVX2-only AMD EPYC: every bf16 convolution refused, status unimplemented).
inline std::string dtype_refusal_note(bool has_f16, bool has_bf16) {
    if (has_f16) return ": oneDNN 2.x has f16 on GPU engines only (its Data Types guide: CPU inference in f32, bf16, s8/u8)";
    const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa()), core = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    if (has_bf16 && (isa & core) != core) return ": oneDNN 2.x runs bf16 only on CPUs with AVX-512 (avx512_core), and this one has none";
    return "";
}

}  // namespace convcheck_onednn
