#include "onednn_backward_timer.hpp"

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <random>

#include "onednn_dims.hpp"
#include "timing.hpp"

namespace convcheck::bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

memory filled(const memory::desc& md, const dnnl::engine& eng) {
    memory m(md, eng);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    float* p = static_cast<float*>(m.get_data_handle());
    for (std::size_t i = 0; i < md.get_size() / sizeof(float); ++i) p[i] = u(rng);
    return m;
}

}  // namespace

std::optional<double> time_onednn_backward(const ConvDescriptor& d, int threads, double min_seconds) {
    omp_set_num_threads(threads);
    const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    const auto f32 = memory::data_type::f32;
    const OnednnDims p = onednn_dims(d);
    const auto &src = p.src, &wei = p.weights, &dst = p.dst, &bias = p.bias;
    const auto &strides = p.strides, &dilates = p.dilates, &pad_l = p.pad_l, &pad_r = p.pad_r;
    const memory::desc src_any(src, f32, tag::any), wei_any(wei, f32, tag::any), dst_any(dst, f32, tag::any);
    const memory::desc bias_md(bias, f32, tag::x);
    try {
        const auto algo = dnnl::algorithm::convolution_direct;
        const dnnl::convolution_forward::primitive_desc hint(
            d.has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo, src_any, wei_any, bias_md,
                                                         dst_any, strides, dilates, pad_l, pad_r)
                       : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo, src_any, wei_any, dst_any,
                                                         strides, dilates, pad_l, pad_r),
            eng);
        if (d.pass == Pass::backward_data) {
            const dnnl::convolution_backward_data::primitive_desc pd(
                dnnl::convolution_backward_data::desc(algo, src_any, wei_any, dst_any, strides, dilates, pad_l, pad_r), eng,
                hint);
            memory diff_src(pd.diff_src_desc(), eng);
            memory weights = filled(pd.weights_desc(), eng), diff_dst = filled(pd.diff_dst_desc(), eng);
            const dnnl::convolution_backward_data prim(pd);
            return min_time_ms(
                [&] {
                    prim.execute(s, {{DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DIFF_SRC, diff_src}});
                    s.wait();
                },
                min_seconds, threads);
        }
        const dnnl::convolution_backward_weights::primitive_desc pd(
            d.has_bias ? dnnl::convolution_backward_weights::desc(algo, src_any, wei_any, bias_md, dst_any, strides, dilates,
                                                                  pad_l, pad_r)
                       : dnnl::convolution_backward_weights::desc(algo, src_any, wei_any, dst_any, strides, dilates, pad_l,
                                                                  pad_r),
            eng, hint);
        memory source = filled(pd.src_desc(), eng), diff_dst = filled(pd.diff_dst_desc(), eng);
        memory diff_weights(pd.diff_weights_desc(), eng), diff_bias(bias_md, eng);
        const dnnl::convolution_backward_weights prim(pd);
        return min_time_ms(
            [&] {
                if (d.has_bias)
                    prim.execute(s, {{DNNL_ARG_SRC, source}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_weights},
                                     {DNNL_ARG_DIFF_BIAS, diff_bias}});
                else
                    prim.execute(s, {{DNNL_ARG_SRC, source}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_weights}});
                s.wait();
            },
            min_seconds, threads);
    } catch (const dnnl::error&) {
        return std::nullopt;
    }
}

}  // namespace convcheck::bench
