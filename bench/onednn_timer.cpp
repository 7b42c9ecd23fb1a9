#include "onednn_timer.hpp"

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

#include "onednn_dims.hpp"
#include "timing.hpp"

namespace convcheck::bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

tag data_tag(const ConvDescriptor& d, bool nxc) {
    static const tag ncx[] = {tag::ncw, tag::nchw, tag::ncdhw}, channels_last[] = {tag::nwc, tag::nhwc, tag::ndhwc};
    return nxc ? channels_last[d.rank - 1] : ncx[d.rank - 1];
}

tag weights_tag(const ConvDescriptor& d, bool xio) {
    static const tag oix[] = {tag::oiw, tag::oihw, tag::oidhw}, goix[] = {tag::goiw, tag::goihw, tag::goidhw};
    static const tag xio_tags[] = {tag::wio, tag::hwio, tag::dhwio}, xigo[] = {tag::wigo, tag::hwigo, tag::dhwigo};
    if (d.groups == 1) return xio ? xio_tags[d.rank - 1] : oix[d.rank - 1];
    return xio ? xigo[d.rank - 1] : goix[d.rank - 1];
}

void fill(dnnl::memory& m) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    float* p = static_cast<float*>(m.get_data_handle());
    const std::size_t n = m.get_desc().get_size() / sizeof(float);
    for (std::size_t i = 0; i < n; ++i) p[i] = u(rng);
}

using Problem = OnednnDims;

dnnl::convolution_forward::primitive_desc make_pd(const dnnl::engine& eng, const ConvDescriptor& d, const Problem& p,
                                                  tag src_tag, tag wei_tag) {
    const auto f32 = memory::data_type::f32;
    const memory::desc src(p.src, f32, src_tag), wei(p.weights, f32, wei_tag), dst(p.dst, f32, src_tag);
    const dnnl::convolution_forward::desc desc =
        d.has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, src, wei,
                                                     memory::desc(p.bias, f32, tag::x), dst, p.strides, p.dilates,
                                                     p.pad_l, p.pad_r)
                   : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, src, wei, dst, p.strides,
                                                     p.dilates, p.pad_l, p.pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, eng);
}

// Runs the primitive chosen for (src_tag, wei_tag) on user memories in (user_src, user_wei) layouts.
double time_case(const dnnl::engine& eng, dnnl::stream& s, const ConvDescriptor& d, const Problem& p, tag prim_src,
                 tag prim_wei, std::optional<tag> user_src, std::optional<tag> user_wei, double min_seconds) {
    const auto pd = make_pd(eng, d, p, prim_src, prim_wei);
    const auto f32 = memory::data_type::f32;
    memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
    memory bias(memory::desc(p.bias, f32, tag::x), eng);
    fill(src);
    fill(bias);
    if (user_wei) {  // weights reordered once, outside the timing
        memory plain(memory::desc(p.weights, f32, *user_wei), eng);
        fill(plain);
        dnnl::reorder(plain, wei).execute(s, plain, wei);
    } else {
        fill(wei);
    }
    dnnl::convolution_forward conv(pd);
    std::optional<memory> usrc, udst;
    std::optional<dnnl::reorder> to_prim, from_prim;
    if (user_src) {
        usrc.emplace(memory::desc(p.src, f32, *user_src), eng);
        udst.emplace(memory::desc(p.dst, f32, *user_src), eng);
        fill(*usrc);
        if (usrc->get_desc() != pd.src_desc()) to_prim.emplace(*usrc, src);
        if (udst->get_desc() != pd.dst_desc()) from_prim.emplace(dst, *udst);
    }
    auto run = [&] {
        if (to_prim) to_prim->execute(s, *usrc, src);
        if (d.has_bias)
            conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
        else
            conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
        if (from_prim) from_prim->execute(s, dst, *udst);
        s.wait();
    };
    return min_time_ms(run, min_seconds, omp_get_max_threads());
}

}  // namespace

OnednnTimes time_onednn(const ConvDescriptor& d, int threads, double min_seconds) {
    omp_set_num_threads(threads);
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    const Problem p = onednn_dims(d);
    const bool nxc = d.data_format == DataFormat::nxc, xio = d.filter_format == FilterFormat::xio;
    OnednnTimes t;
    try {
        t.best_ms = time_case(eng, s, d, p, tag::any, tag::any, std::nullopt, std::nullopt, min_seconds);
    } catch (const dnnl::error&) {
    }
    const tag user_src = data_tag(d, nxc), user_wei = weights_tag(d, xio);
    // (a) the primitive on the plain src/dst layouts, weights plain or in the layout it prefers (reordered
    // once, as benchdnn does with --wtag=any); (b) format_tag::any everywhere, src/dst reorders timed.
    const auto keep_min = [](std::optional<double>& slot, double ms) {
        if (!slot || ms < *slot) slot = ms;
    };
    for (tag prim_wei : {user_wei, tag::any}) {
        try {
            keep_min(t.plain_primitive_ms,
                     time_case(eng, s, d, p, user_src, prim_wei, user_src, user_wei, min_seconds));
        } catch (const dnnl::error&) {
        }
    }
    if (t.plain_primitive_ms) keep_min(t.plain_ms, *t.plain_primitive_ms);
    try {
        keep_min(t.plain_ms, time_case(eng, s, d, p, tag::any, tag::any, user_src, user_wei, min_seconds));
    } catch (const dnnl::error&) {
    }
    return t;
}

}  // namespace convcheck::bench
