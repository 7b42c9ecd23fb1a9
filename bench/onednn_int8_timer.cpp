#include "onednn_int8_timer.hpp"

#include <omp.h>

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

#include "onednn_dims.hpp"
#include "timing.hpp"

namespace convcheck::bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

memory::data_type onednn_type(IntegerType t) {
    if (t == IntegerType::u8) return memory::data_type::u8;
    if (t == IntegerType::s8) return memory::data_type::s8;
    return memory::data_type::s32;
}

// random bytes (u8, s8) or small s32 values (bias), from a fixed seed
void fill(memory& m, bool s32) {
    std::mt19937 rng(1);
    auto* p = static_cast<unsigned char*>(m.get_data_handle());
    const std::size_t bytes = m.get_desc().get_size();
    if (!s32) {
        for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng());
        return;
    }
    std::uniform_int_distribution<std::int32_t> u(-1000, 1000);
    for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
        const std::int32_t v = u(rng);
        std::memcpy(p + i, &v, 4);
    }
}

double time_case(const dnnl::engine& eng, dnnl::stream& s, const QuantizedDescriptor& q,
                 std::span<const float> weights_scales, tag data, double min_seconds) {
    const ConvDescriptor& d = q.conv;
    const OnednnDims p = onednn_dims(d);
    const memory::desc src(p.src, onednn_type(q.src), data), wei(p.weights, memory::data_type::s8, tag::any),
        dst(p.dst, onednn_type(q.dst), data), bias(p.bias, memory::data_type::s32, tag::x);
    const auto desc = d.has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                    dnnl::algorithm::convolution_direct, src, wei, bias,
                                                                    dst, p.strides, p.dilates, p.pad_l, p.pad_r)
                                 : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                    dnnl::algorithm::convolution_direct, src, wei, dst,
                                                                    p.strides, p.dilates, p.pad_l, p.pad_r);
    dnnl::primitive_attr attr;
    std::vector<float> scales;
    for (std::size_t o = 0; o < weights_scales.size(); ++o)
        scales.push_back(static_cast<float>(double(q.src_scale) * weights_scales[o] / double(q.dst_scale)));
    attr.set_output_scales(weights_scales.size() == 1 ? 0 : 1 << 1, scales);
    if (q.src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {q.src_zero_point});
    if (q.dst_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {q.dst_zero_point});
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    memory m_src(pd.src_desc(), eng), m_wei(pd.weights_desc(), eng), m_dst(pd.dst_desc(), eng),
        m_bias(pd.bias_desc(), eng);
    fill(m_src, false), fill(m_wei, false), fill(m_bias, true);
    const dnnl::convolution_forward conv(pd);
    auto run = [&] {
        if (d.has_bias)
            conv.execute(s, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_WEIGHTS, m_wei}, {DNNL_ARG_BIAS, m_bias}, {DNNL_ARG_DST, m_dst}});
        else
            conv.execute(s, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_WEIGHTS, m_wei}, {DNNL_ARG_DST, m_dst}});
        s.wait();
    };
    return min_time_ms(run, min_seconds, omp_get_max_threads());
}

}  // namespace

OnednnInt8Times time_onednn_int8(const QuantizedDescriptor& q, std::span<const float> weights_scales, int threads,
                                 double min_seconds) {
    omp_set_num_threads(threads);
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    static const tag channels_last[] = {tag::nwc, tag::nhwc, tag::ndhwc};
    OnednnInt8Times t;
    try {
        t.best_ms = time_case(eng, s, q, weights_scales, tag::any, min_seconds);
    } catch (const dnnl::error&) {
    }
    try {
        t.nhwc_ms = time_case(eng, s, q, weights_scales, channels_last[q.conv.rank - 1], min_seconds);
    } catch (const dnnl::error&) {
    }
    return t;
}

}  // namespace convcheck::bench
