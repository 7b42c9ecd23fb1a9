// The onednn plugin's transposed convolution (docs/transposed.md, ABI 1.3): oneDNN's
// deconvolution_forward primitive (algorithm deconvolution_direct, forward_inference).
//
// The translation (oneDNN developer guide, "Deconvolution"):
//   weights   oneDNN's are {[G,] OC/G, IC/G, k...} with OC the dst channels: the descriptor's OIX
//             ([C][O/G][k...], C = src channels) and XIO ([k...][O/G][C]) described by strides over the
//             runner's memory, then reordered into the primitive's layout.
//   sizes     the dst dims are the spec's output sizes, and they alone decide the output's extent: an output
//             x = y*s - padding_l + k*(dilation+1) exists when 0 <= x < dst. padding_r enters only oneDNN's
//             size check, (dst - ker_range + padding_l + padding_r) / strides + 1 == src (C division), so
//             the plugin passes padding_r = pads_end - output_padding, which makes it exact for any
//             output_padding (oneDNN's own spelling, padding_r = pads_end, takes output_padding < strides
//             only: docs/errata.md). oneDNN accepts or refuses the rest (a negative padding_l, padding_r +
//             strides <= 0) in its own words, at query.
//   dilations oneDNN's are 0-based: d - 1.
//   threads   create's num_threads becomes omp_set_num_threads(n) at each execute, as for convolution.
#include "onednn_transposed.hpp"

#include <omp.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "convcheck/plugin_support.hpp"
#include "onednn_instance.hpp"

namespace support = convcheck_plugin_support;
using dnnl::memory;

namespace convcheck_onednn {

namespace {

memory::dims spatial(const convcheck_conv_transposed_desc& t, const int64_t (&values)[3], int64_t minus = 0) {
    memory::dims out;
    for (int a = 0; a < t.rank; ++a) out.push_back(values[a] - minus);
    return out;
}

int64_t output_size(const convcheck_conv_transposed_desc& t, int a) {
    return (t.input_size[a] - 1) * t.strides[a] - t.pads_begin[a] - t.pads_end[a] +
           (t.kernel_size[a] - 1) * t.dilations[a] + 1 + t.output_padding[a];
}

// src {N, C, in...} or dst {N, O, out...} over the runner's NCX or NXC memory.
memory::desc activation_desc(const convcheck_conv_transposed_desc& t, bool is_dst) {
    memory::dims dims{t.batch, is_dst ? t.out_channels : t.in_channels};
    for (int a = 0; a < t.rank; ++a) dims.push_back(is_dst ? output_size(t, a) : t.input_size[a]);
    std::vector<int> physical{0};
    if (t.data_format == CONVCHECK_NCX) physical.push_back(1);
    for (int a = 0; a < t.rank; ++a) physical.push_back(2 + a);
    if (t.data_format == CONVCHECK_NXC) physical.push_back(1);
    return memory::desc(dims, data_type_of(t.dtype), support::dense_strides(dims, physical));
}

// oneDNN's {[G,] O/G, C/G, k...} by strides over OIX [G][C/G][O/G][k...] or XIO [k...][O/G][G][C/G].
memory::desc weights_desc(const convcheck_conv_transposed_desc& t) {
    const int64_t G = t.groups, OG = t.out_channels / G, CG = t.in_channels / G, C = t.in_channels;
    int64_t taps = 1;
    for (int a = 0; a < t.rank; ++a) taps *= t.kernel_size[a];
    const bool oix = t.filter_format == CONVCHECK_OIX;
    memory::dims dims, strides;
    if (G != 1) dims.push_back(G), strides.push_back(oix ? CG * OG * taps : CG);
    dims.push_back(OG), strides.push_back(oix ? taps : C);
    dims.push_back(CG), strides.push_back(oix ? OG * taps : 1);
    int64_t inner = oix ? 1 : OG * C;  // the stride of the innermost spatial axis
    std::vector<int64_t> spatial_strides(t.rank);
    for (int a = t.rank - 1; a >= 0; --a) spatial_strides[a] = inner, inner *= t.kernel_size[a];
    for (int a = 0; a < t.rank; ++a) dims.push_back(t.kernel_size[a]), strides.push_back(spatial_strides[a]);
    return memory::desc(dims, data_type_of(t.dtype), strides);
}

memory::dims padding_r(const convcheck_conv_transposed_desc& t) {
    memory::dims out;
    for (int a = 0; a < t.rank; ++a) out.push_back(t.pads_end[a] - t.output_padding[a]);
    return out;
}

memory::desc any(const memory::desc& m) { return memory::desc(m.dims(), m.data_type(), memory::format_tag::any); }

// Throws dnnl::error when oneDNN refuses the case.
dnnl::deconvolution_forward::primitive_desc make_primitive_desc(convcheck_plugin& p, const convcheck_conv_transposed_desc& t) {
    const memory::desc bias =
        t.has_bias ? memory::desc({t.out_channels}, data_type_of(t.dtype), memory::format_tag::any) : memory::desc();
    const dnnl::deconvolution_forward::desc deconv(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, any(activation_desc(t, false)),
        any(weights_desc(t)), bias, any(activation_desc(t, true)), spatial(t, t.strides), spatial(t, t.dilations, 1),
        spatial(t, t.pads_begin), padding_r(t));
    return dnnl::deconvolution_forward::primitive_desc(deconv, p.engine);
}

std::string not_computable(const convcheck_conv_transposed_desc& t) {
    if (data_type_of(t.dtype) == memory::data_type::undef)
        return std::string("oneDNN deconvolution has no ") + support::dtype_name(t.dtype);
    if (t.filter_format != CONVCHECK_OIX && t.filter_format != CONVCHECK_XIO) return "OIX or XIO weights only";
    return "";
}

std::string refusal(const dnnl::error& e, const convcheck_conv_transposed_desc& t) {
    std::string why = "oneDNN refused the deconvolution (" + std::string(e.what()) + ", status " + std::to_string(e.status) + ")";
    if (e.status == dnnl_unimplemented && t.dtype == CONVCHECK_F16)
        why += ": oneDNN 2.x has f16 on GPU engines only (its Data Types guide: CPU inference in f32, bf16, s8/u8)";
    return why;
}

}  // namespace

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = not_computable(t); !why.empty()) return support::unsupported(out, why);
    try {
        make_primitive_desc(*plugin, t);
    } catch (const dnnl::error& e) {
        return support::unsupported(out, refusal(e, t));
    }
    return support::supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    if (const std::string why = not_computable(t); !why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    convcheck_plugin& p = *plugin;
    if (p.num_threads > 0) omp_set_num_threads(p.num_threads);
    try {
        const auto pd = make_primitive_desc(p, t);
        const auto in = [&](const memory::desc& user_desc, const void* data, const memory::desc& wanted) {
            memory user(user_desc, p.engine, const_cast<void*>(data));
            if (user.get_desc() == wanted) return user;
            memory mine(wanted, p.engine);
            dnnl::reorder(user, mine).execute(p.stream, user, mine);
            return mine;
        };
        std::unordered_map<int, memory> call{{DNNL_ARG_SRC, in(activation_desc(t, false), args.src, pd.src_desc())},
                                             {DNNL_ARG_WEIGHTS, in(weights_desc(t), args.weights, pd.weights_desc())}};
        if (t.has_bias)
            call.emplace(DNNL_ARG_BIAS, in(memory::desc({t.out_channels}, data_type_of(t.dtype), memory::format_tag::a),
                                           args.bias, pd.bias_desc()));
        memory user_dst(activation_desc(t, true), p.engine, args.dst);
        memory dst = user_dst.get_desc() == pd.dst_desc() ? user_dst : memory(pd.dst_desc(), p.engine);
        call.emplace(DNNL_ARG_DST, dst);
        dnnl::deconvolution_forward(pd).execute(p.stream, call);
        if (dst != user_dst) dnnl::reorder(dst, user_dst).execute(p.stream, dst, user_dst);
        p.stream.wait();
        support::write_implementation(&args, std::string("onednn:deconvolution ") + pd.impl_info_str());
    } catch (const dnnl::error& e) {
        return support::make_error(refusal(e, t), e.status == dnnl_out_of_memory ? CONVCHECK_ERROR_OUT_OF_MEMORY
                                                                                : CONVCHECK_ERROR_UNIMPLEMENTED);
    }
    return nullptr;
}

}  // namespace convcheck_onednn
