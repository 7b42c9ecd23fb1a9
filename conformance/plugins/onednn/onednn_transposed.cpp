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
//             only: docs/errata.md). oneDNN takes padding_l >= 0 and padding_r + strides > 0 only; for
//             other pads (f32) the plugin has oneDNN compute the whole output (no pads, no output padding,
//             no bias), moves the part the case keeps into dst (oneDNN reorders of sub-memories; zeros where
//             no tap reaches) and adds the bias in f32 ("[cropped]" in the implementation string).
//   invalid   passed as it is (docs/backends.md, "The invalid suite"): a negative output padding keeps oneDNN's
//             own spelling (padding_r = pads_end), and a case whose pads break a rule the crop would hide
//             (transposed_form.hpp: transposed_crop_hides) is never cropped: oneDNN judges its pads.
//   dilations oneDNN's are 0-based: d - 1.
//   threads   create's num_threads becomes omp_set_num_threads(n) at each execute, as for convolution.
#include "onednn_transposed.hpp"

#include <omp.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "convcheck/adaptation/transposed_form.hpp"
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

// src {N, C, in...} or dst {N, O, out...} over the runner's NCX or NXC memory.
memory::desc activation_desc(const convcheck_conv_transposed_desc& t, bool is_dst) {
    memory::dims dims{t.batch, is_dst ? t.out_channels : t.in_channels};
    for (int a = 0; a < t.rank; ++a) dims.push_back(is_dst ? support::transposed_output_size(t, a) : t.input_size[a]);
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

// pads_end - output_padding; a negative output padding is not folded into the pad (that would make it a valid,
// larger right pad): oneDNN's own spelling, padding_r = pads_end with the output padding in the dst dims.
memory::dims padding_r(const convcheck_conv_transposed_desc& t) {
    memory::dims out;
    for (int a = 0; a < t.rank; ++a) out.push_back(t.pads_end[a] - std::max<int64_t>(0, t.output_padding[a]));
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

// Whether oneDNN is handed t's pads as they are: where it takes them (padding_l >= 0 and padding_r + strides > 0
// on every axis), and where a crop would hide a rule t breaks (transposed_form.hpp): oneDNN judges those.
bool direct(const convcheck_conv_transposed_desc& t) {
    if (!support::transposed_crop_hides(t).empty()) return true;
    const memory::dims right = padding_r(t);
    for (int a = 0; a < t.rank; ++a)
        if (t.pads_begin[a] < 0 || right[a] + t.strides[a] <= 0) return false;
    return true;
}

// What oneDNN computes: t itself, or (cropped) t's whole output, every position a tap reaches, without pads,
// output padding or bias; the plugin then moves the part t keeps into dst and adds the bias (see the top).
convcheck_conv_transposed_desc computed(const convcheck_conv_transposed_desc& t) {
    if (direct(t)) return t;
    convcheck_conv_transposed_desc c = t;
    for (int a = 0; a < 3; ++a) c.pads_begin[a] = c.pads_end[a] = c.output_padding[a] = 0;
    c.has_bias = 0;
    return c;
}

std::string not_computable(const convcheck_conv_transposed_desc& t) {
    if (data_type_of(t.dtype) == memory::data_type::undef)
        return std::string("oneDNN deconvolution has no ") + support::dtype_name(t.dtype);
    if (t.filter_format != CONVCHECK_OIX && t.filter_format != CONVCHECK_XIO) return "OIX or XIO weights only";
    if (!direct(t) && t.dtype != CONVCHECK_F32)
        return "oneDNN's deconvolution takes padding_l >= 0 and padding_r + strides > 0 only; the plugin crops an f32 "
               "result only (a 16-bit one would be rounded before the bias is added)";
    return "";
}

// The cropped case: dst = the part of c's output t keeps (position x of t is c's x + pads_begin), zeros where
// c has none, plus the bias in f32.
void crop_into_dst(convcheck_plugin& p, const convcheck_conv_transposed_desc& t, memory& whole, const convcheck_conv_args& args) {
    const convcheck_conv_transposed_desc c = computed(t);
    float* dst = static_cast<float*>(args.dst);
    int64_t spatial_elements = 1;
    for (int a = 0; a < t.rank; ++a) spatial_elements *= support::transposed_output_size(t, a);
    const int64_t elements = t.batch * t.out_channels * spatial_elements;
    std::fill(dst, dst + elements, 0.0f);
    memory::dims dims{t.batch, t.out_channels}, from{0, 0}, to{0, 0};
    bool any = true;
    for (int a = 0; a < t.rank; ++a) {
        const int64_t lo = std::max<int64_t>(0, -t.pads_begin[a]);
        const int64_t hi = std::min<int64_t>(support::transposed_output_size(t, a), support::transposed_output_size(c, a) - t.pads_begin[a]);
        any = any && hi > lo;
        dims.push_back(hi - lo), from.push_back(lo + t.pads_begin[a]), to.push_back(lo);
    }
    if (any) {
        memory part(whole.get_desc().submemory_desc(dims, from), p.engine, whole.get_data_handle());
        memory place(activation_desc(t, true).submemory_desc(dims, to), p.engine, args.dst);
        dnnl::reorder(part, place).execute(p.stream, part, place);
        p.stream.wait();
    }
    if (!t.has_bias) return;
    const float* bias = static_cast<const float*>(args.bias);
    const bool nxc = t.data_format == CONVCHECK_NXC;
    for (int64_t i = 0; i < elements; ++i)
        dst[i] += bias[nxc ? i % t.out_channels : (i / spatial_elements) % t.out_channels];
}

std::string refusal(const dnnl::error& e, const convcheck_conv_transposed_desc& t) {
    std::string why = "oneDNN refused the deconvolution (" + std::string(e.what()) + ", status " + std::to_string(e.status) + ")";
    if (e.status == dnnl_unimplemented)
        why += convcheck_onednn::dtype_refusal_note(t.dtype == CONVCHECK_F16, t.dtype == CONVCHECK_BF16);
    return why;
}

}  // namespace

// What the plugin cannot hand oneDNN without inventing a number (as the forward's inexpressible): refused
// itself, as an invalid argument, before weights_desc divides by the groups.
std::string inexpressible(const convcheck_conv_transposed_desc& t) {
    if (const std::string why = support::transposed_beyond_64_bits(t); !why.empty())
        return "the onednn plugin cannot hand this case to oneDNN: " + why;
    if (t.groups == 0)
        return "the onednn plugin cannot express groups = 0 to oneDNN: its grouped deconvolution weights are "
               "{G, O/G, C/G, k...}, and O/G, C/G have no value for G = 0";
    return "";
}

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = inexpressible(t); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = not_computable(t); !why.empty()) return support::unsupported(out, why);
    try {
        make_primitive_desc(*plugin, computed(t));
    } catch (const dnnl::error& e) {
        return support::unsupported(out, refusal(e, t));
    }
    return support::supported(out);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    if (const std::string why = inexpressible(t); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = not_computable(t); !why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    convcheck_plugin& p = *plugin;
    if (p.num_threads > 0) omp_set_num_threads(p.num_threads);
    try {
        const convcheck_conv_transposed_desc c = computed(t);
        const auto pd = make_primitive_desc(p, c);
        const auto in = [&](const memory::desc& user_desc, const void* data, const memory::desc& wanted) {
            memory user(user_desc, p.engine, const_cast<void*>(data));
            if (user.get_desc() == wanted) return user;
            memory mine(wanted, p.engine);
            dnnl::reorder(user, mine).execute(p.stream, user, mine);
            return mine;
        };
        std::unordered_map<int, memory> call{{DNNL_ARG_SRC, in(activation_desc(t, false), args.src, pd.src_desc())},
                                             {DNNL_ARG_WEIGHTS, in(weights_desc(t), args.weights, pd.weights_desc())}};
        if (c.has_bias)
            call.emplace(DNNL_ARG_BIAS, in(memory::desc({t.out_channels}, data_type_of(t.dtype), memory::format_tag::a),
                                           args.bias, pd.bias_desc()));
        const bool cropped = !direct(t);
        // the runner's dst, or (cropped) a whole output of c in the same layout, which crop_into_dst moves
        memory user_dst = cropped ? memory(activation_desc(c, true), p.engine) : memory(activation_desc(t, true), p.engine, args.dst);
        memory dst = user_dst.get_desc() == pd.dst_desc() ? user_dst : memory(pd.dst_desc(), p.engine);
        call.emplace(DNNL_ARG_DST, dst);
        dnnl::deconvolution_forward(pd).execute(p.stream, call);
        if (dst != user_dst) dnnl::reorder(dst, user_dst).execute(p.stream, dst, user_dst);
        p.stream.wait();
        if (cropped) crop_into_dst(p, t, user_dst, args);
        support::write_implementation(&args, std::string("onednn:deconvolution ") + pd.impl_info_str() +
                                                 (cropped ? " [cropped]" : ""));
    } catch (const dnnl::error& e) {
        return support::make_error(refusal(e, t), e.status == dnnl_out_of_memory ? CONVCHECK_ERROR_OUT_OF_MEMORY
                                                                                : CONVCHECK_ERROR_UNIMPLEMENTED);
    }
    return nullptr;
}

}  // namespace convcheck_onednn
