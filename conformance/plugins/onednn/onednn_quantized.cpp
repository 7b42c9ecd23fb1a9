// The onednn plugin's quantized convolution (onednn_quantized.hpp). The translation (oneDNN 2.x developer guide,
// "Convolution" and "Quantization"; SPEC-NOTES §7):
//   types       src u8 or s8, weights s8 (oneDNN's int8 convolution has no u8 weights), bias s32 or f32, dst u8, s8
//               or s32.
//   zero points attr.set_zero_points(DNNL_ARG_SRC / DNNL_ARG_DST, common, or per channel with mask 1 << 1 and
//               DNNL_RUNTIME_S32_VAL, the values given at execution (ABI 1.7; declined in oneDNN's words where its
//               implementations refuse it): oneDNN subtracts the src zero
//               point on in-bounds taps only (its compensation); it takes no weights zero point (a case with one is
//               declined).
//   scales      attr.set_output_scales: M(oc) = src_scale * weights_scale(oc) / dst_scale, in f32, common (mask 0)
//               or per output channel (mask 1 << 1, dst's dim 1; the weights scales or, ABI 1.9, the dst scales per
//               output channel); applied in f32 to the s32 accumulator plus bias.
//   f32 bias    the case's f32 bias is added after src_scale * weights_scale(oc) (current oneDNN's int8 bias); oneDNN
//               2.x adds the bias before the output scales, in the accumulator's units: dst = M(oc) * (acc + bias).
//               The plugin passes bias(oc) / S(oc), S(oc) = src_scale * weights_scale(oc), where that is exact and
//               oneDNN then rounds as the case says: every S(oc) and dst_scale a power of two. Then M(oc) is one too,
//               and with P = f32(acc) oneDNN's f32(P + b / S) * M = f32(M * P + b / dst_scale) (scaling by a power of
//               two commutes with rounding to f32), the case's f32(f32(acc) * M + f32(b / dst_scale)). Any other
//               scale is declined: oneDNN 2.x would scale the bias by M(oc), not add it after the scales.
//   range       a narrowed [dst_min, dst_max] is an eltwise clip post-op on [dst_min - zp, dst_max - zp], applied
//               before the dst zero point.
//   rounding    oneDNN adds the dst zero point in f32 and converts with round-to-nearest-even and saturation: the
//               plugin declares CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT.
//   pads        a pad outside oneDNN's rule (a negative one) would need the float adaptation's crop: declined.
//   general     (ABI 1.7) a float dst (f32, bf16, f16 as oneDNN takes them) and an s32 dst with scales: the same
//   output      output scales, converted by oneDNN to dst's type. Post-ops: oneDNN 2.6 has one output scale,
//               src_scale * weights_scale / dst_scale, applied before the post-ops (dst = post_ops(output_scale *
//               (acc + bias)) + dst zero point), where the case applies the dst scale and zero point after them;
//               the two agree where dst_scale is 1 and the dst zero point 0, and the plugin takes post-ops only there
//               (each as onednn_post_ops.cpp translates it, then the clip of a narrowed range).
#include "onednn_quantized.hpp"

#include <omp.h>

#include <cmath>
#include <dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "onednn_post_ops.hpp"

namespace convcheck_onednn {

namespace {

namespace support = convcheck_plugin_support;
using dnnl::memory;

// An f32 bias (quantization.h: added after the scales), as opposed to the s32 one in the accumulator.
bool f32_bias(const convcheck_conv_desc& d) { return d.has_bias && d.bias_dtype == CONVCHECK_F32; }

// The post-ops extension beside the quantization (ABI 1.7), or NULL.
const convcheck_post_ops* chain_post_ops(const convcheck_conv_desc& d) {
    for (const convcheck_extension* e = support::extensions(d); e != nullptr; e = e->next)
        if (e->tag == CONVCHECK_EXTENSION_POST_OPS) return reinterpret_cast<const convcheck_post_ops*>(e);
    return nullptr;
}

// A u8 or s8 dst whose range a fused activation narrows.
bool narrowed(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (d.dst_dtype != CONVCHECK_U8 && d.dst_dtype != CONVCHECK_S8) return false;
    return q.dst_min != (d.dst_dtype == CONVCHECK_U8 ? 0 : -128) || q.dst_max != (d.dst_dtype == CONVCHECK_U8 ? 255 : 127);
}

// Why the translation does not take the case, or "".
std::string untaken(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (const std::string why = support::dense_only(d, "oneDNN"); !why.empty()) return why;
    if (d.filter_format != CONVCHECK_OIX && d.filter_format != CONVCHECK_XIO)
        return "the onednn plugin describes OIX and XIO weights only";
    if (d.weights_dtype != CONVCHECK_S8) return "oneDNN's int8 convolution takes s8 weights, not u8";
    if (support::per_channel_weights_zero_points(q))
        return "oneDNN 2.6's convolution takes zero points for src and dst only (primitive_attr::set_zero_points; a "
               "weights zero point only as a common 0 on CPU), not one weights zero point per output channel";
    if (q.weights_zero_point != 0)
        return "oneDNN 2.x convolution takes zero points for src and dst only (primitive_attr::set_zero_points), "
               "not weights_zero_point " + std::to_string(q.weights_zero_point);
    const bool dst_zero_points = support::per_channel_zero_points(q) && q.dst_zero_point_count > 1;
    if (narrowed(d, q) && dst_zero_points)
        return "a narrowed output range with per-channel dst zero points: the plugin's eltwise clip post-op has one "
               "[dst_min - zp, dst_max - zp] per tensor";
    for (int a = 0; a < d.rank; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0)
            return "a negative pad: the plugin's crop adaptation copies float tensors only";
    if (const convcheck_post_ops* ops = chain_post_ops(d)) {
        if (q.dst_scale != 1.0f || support::per_channel_dst_scales(q) || q.dst_zero_point != 0 || dst_zero_points)
            return "post-ops with a dst scale or zero point: oneDNN 2.6 applies one output scale (src_scale * "
                   "weights_scale / dst_scale, primitive_attr::set_output_scales) before the post-ops, so its post-ops "
                   "would see the value divided by dst_scale " +
                   (support::per_channel_dst_scales(q) ? std::string("(per channel)") : std::to_string(q.dst_scale)) +
                   " and before the dst "
                   "zero point " + (dst_zero_points ? std::string("(per channel)") : std::to_string(q.dst_zero_point)) +
                   "; the case applies both after them";
        if (const std::string why = post_ops_accepts(d, *ops); !why.empty()) return why;
    }
    if (f32_bias(d)) {
        const auto power_of_two = [](double v) { int e = 0; return std::frexp(v, &e) == 0.5; };
        const auto why = [](const std::string& what) {
            return "oneDNN 2.x adds the bias before the output scales (dst = output_scale * (acc + bias)); the case's "
                   "f32 bias is added after src_scale * weights_scale, which the plugin can pass exactly as "
                   "bias / (src_scale * weights_scale) only when that product and dst_scale are powers of two: " + what;
        };
        for (int64_t o = 0; o < (support::per_channel_dst_scales(q) ? d.out_channels : 1); ++o)
            if (!power_of_two(support::dst_scale(q, o)))
                return why("dst_scale(" + std::to_string(o) + ") " + std::to_string(support::dst_scale(q, o)) + " is not");
        for (int64_t o = 0; o < q.weights_scale_count; ++o)
            if (!power_of_two(double(q.src_scale) * double(q.weights_scales[o])))
                return why("src_scale * weights_scale(" + std::to_string(o) + ") = " +
                           std::to_string(double(q.src_scale) * double(q.weights_scales[o])) + " is not");
    }
    return "";
}

memory::dims spatial(const convcheck_conv_desc& d, const int64_t (&values)[3], int64_t minus = 0) {
    memory::dims out;
    for (int a = 0; a < d.rank; ++a) out.push_back(values[a] - minus);
    return out;
}

// The primitive descriptor: int8 convolution_forward (inference) with its attributes.
dnnl::convolution_forward::primitive_desc make_pd(convcheck_plugin& p, const convcheck_conv_desc& d,
                                                  const convcheck_quantization& q) {
    const auto any = [](const memory::desc& m) { return memory::desc(m.dims(), m.data_type(), memory::format_tag::any); };
    const memory::desc src = any(activation_desc(d, d.in_channels, false, data_type_of(d.src_dtype)));
    const memory::desc weights = any(weights_desc(d, data_type_of(d.weights_dtype)));
    const memory::desc bias = d.has_bias ? memory::desc({d.out_channels}, data_type_of(d.bias_dtype), memory::format_tag::any)
                                         : memory::desc();
    const memory::desc dst = any(activation_desc(d, d.out_channels, true, data_type_of(d.dst_dtype)));
    const dnnl::convolution_forward::desc conv(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                               src, weights, bias, dst, spatial(d, d.strides), spatial(d, d.dilations, 1),
                                               spatial(d, d.pads_begin), spatial(d, d.pads_end));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // per output channel where the weights scales or (ABI 1.9) the dst scales are
    const bool per_oc = q.weights_scale_count > 1 || support::per_channel_dst_scales(q);
    std::vector<float> scales;
    for (int64_t o = 0; o < (per_oc ? d.out_channels : 1); ++o)
        scales.push_back(static_cast<float>(double(q.src_scale) * double(support::weights_scale(q, o)) /
                                            double(support::dst_scale(q, o))));
    attr.set_output_scales(per_oc ? 1 << 1 : 0, scales);
    // per channel (ABI 1.7): mask 1 << 1, one zero point per channel of the tensor's dim 1, given at execution
    // (oneDNN 2.6 refuses per-channel zero points known at this call: "could not set zero points primitive attribute")
    if (q.src_zero_point_count > 1)
        attr.set_zero_points(DNNL_ARG_SRC, 1 << 1, {DNNL_RUNTIME_S32_VAL});
    else if (q.src_zero_point != 0)
        attr.set_zero_points(DNNL_ARG_SRC, 0, {q.src_zero_point});
    if (q.dst_zero_point_count > 1)
        attr.set_zero_points(DNNL_ARG_DST, 1 << 1, {DNNL_RUNTIME_S32_VAL});
    else if (q.dst_zero_point != 0)
        attr.set_zero_points(DNNL_ARG_DST, 0, {q.dst_zero_point});
    const convcheck_post_ops* chain = chain_post_ops(d);
    if (chain != nullptr || narrowed(d, q)) {
        dnnl::post_ops ops = chain != nullptr ? make_post_ops(d, *chain) : dnnl::post_ops();
        if (narrowed(d, q))
            ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, float(q.dst_min - q.dst_zero_point),
                               float(q.dst_max - q.dst_zero_point));
        attr.set_post_ops(ops);
    }
    return dnnl::convolution_forward::primitive_desc(conv, attr, p.engine);
}

std::string refusal(const dnnl::error& e) {
    return "oneDNN refused the quantized case (" + std::string(e.what()) + ", status " + std::to_string(e.status) + ")";
}

memory to_primitive(convcheck_plugin& p, memory user, const memory::desc& wanted) {
    if (user.get_desc() == wanted) return user;
    memory mine(wanted, p.engine);
    dnnl::reorder(user, mine).execute(p.stream, user, mine);
    return mine;
}

struct QuantizedPrepared : convcheck_conv_plan {
    QuantizedPrepared(convcheck_plugin& plugin, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), plugin(plugin), quantization(*support::quantization_of(desc)),
          ops_copy(chain_post_ops(desc)), ops(ops_copy.get()) {
        if (const std::string why = untaken(desc, quantization.q); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        try {
            pd = make_pd(plugin, desc, quantization.q);
        } catch (const dnnl::error& e) {
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, refusal(e));
        }
        primitive = dnnl::convolution_forward(pd);
        if (inputs.weights != nullptr) {
            weights = to_primitive(plugin, user_weights(inputs.weights), pd.weights_desc());
            if (desc.has_bias) bias = to_primitive(plugin, user_bias(inputs.bias), pd.bias_desc());
            plugin.stream.wait();
        }
    }
    memory user_weights(const void* data) const {
        return memory(weights_desc(desc, data_type_of(desc.weights_dtype)), plugin.engine, const_cast<void*>(data));
    }
    // the user's s32 bias; or the f32 bias divided by S(oc), exactly (untaken), into a buffer of its own
    memory user_bias(const void* data) const {
        if (!f32_bias(desc))
            return memory(memory::desc({desc.out_channels}, memory::data_type::s32, memory::format_tag::a), plugin.engine,
                          const_cast<void*>(data));
        memory prescaled(memory::desc({desc.out_channels}, memory::data_type::f32, memory::format_tag::a), plugin.engine);
        auto* to = static_cast<float*>(prescaled.get_data_handle());
        for (int64_t o = 0; o < desc.out_channels; ++o)
            to[o] = static_cast<float>(double(static_cast<const float*>(data)[o]) /
                                       (double(quantization.q.src_scale) * double(support::weights_scale(quantization.q, o))));
        return prescaled;
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        if (plugin.num_threads > 0) omp_set_num_threads(plugin.num_threads);
        memory user_dst(activation_desc(desc, desc.out_channels, true, data_type_of(desc.dst_dtype)), plugin.engine, args.dst);
        const memory user_src(activation_desc(desc, desc.in_channels, false, data_type_of(desc.src_dtype)), plugin.engine,
                              const_cast<void*>(args.src));
        memory src = to_primitive(plugin, user_src, pd.src_desc());
        memory dst = user_dst.get_desc() == pd.dst_desc() ? user_dst : memory(pd.dst_desc(), plugin.engine);
        // a sum post-op reads dst's prior content: into the primitive's layout first
        if (ops != nullptr && has_sum(*ops) && dst != user_dst) dnnl::reorder(user_dst, dst).execute(plugin.stream, user_dst, dst);
        std::unordered_map<int, memory> call{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        if (ops != nullptr) add_post_op_operands(plugin.engine, desc, *ops, args, call);
        call.emplace(DNNL_ARG_WEIGHTS, weights ? *weights : to_primitive(plugin, user_weights(args.weights), pd.weights_desc()));
        if (desc.has_bias) call.emplace(DNNL_ARG_BIAS, bias ? *bias : to_primitive(plugin, user_bias(args.bias), pd.bias_desc()));
        // per-channel zero points (1.7), bound at execution as make_pd declared them
        const auto zero_points = [&](int arg, const std::vector<int32_t>& points) {
            if (points.empty()) return;
            call.emplace(DNNL_ARG_ATTR_ZERO_POINTS | arg,
                         memory(memory::desc({memory::dim(points.size())}, memory::data_type::s32, memory::format_tag::a),
                                plugin.engine, const_cast<int32_t*>(points.data())));
        };
        zero_points(DNNL_ARG_SRC, quantization.src_zero_points);
        zero_points(DNNL_ARG_DST, quantization.dst_zero_points);
        const memory::desc scratchpad = pd.scratchpad_desc();
        if (scratchpad.get_size() > 0) {
            void* given = support::given_workspace(args, scratchpad.get_size());
            call.emplace(DNNL_ARG_SCRATCHPAD, given ? memory(scratchpad, plugin.engine, given) : memory(scratchpad, plugin.engine));
        }
        primitive.execute(plugin.stream, call);
        if (dst != user_dst) dnnl::reorder(dst, user_dst).execute(plugin.stream, dst, user_dst);
        plugin.stream.wait();
        support::write_implementation(&args, std::string("onednn:") + pd.impl_info_str());
        return nullptr;
    }
    uint64_t workspace_bytes() const override { return pd.scratchpad_desc().get_size(); }

    convcheck_plugin& plugin;
    const support::QuantizationCopy quantization;  // the runner's extension is valid during prepare only
    // the post-ops extension (ABI 1.7), or NULL: a copy, as the plan may outlive the runner's descriptor
    const support::PostOpsCopy ops_copy;
    const convcheck_post_ops* ops;
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward primitive;
    std::optional<memory> weights, bias;
};

}  // namespace

convcheck_error* quantized_query(convcheck_plugin& plugin, const convcheck_conv_desc& desc, convcheck_support* out) {
    const convcheck_quantization& q = *support::quantization_of(desc);
    if (const std::string why = untaken(desc, q); !why.empty()) return support::unsupported(out, why);
    try {
        make_pd(plugin, desc, q);
    } catch (const dnnl::error& e) {
        return support::unsupported(out, refusal(e));
    }
    return support::supported(out);
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(convcheck_plugin& plugin, const convcheck_conv_desc& desc,
                                                    const support::PrepareInputs& inputs) {
    return std::make_unique<QuantizedPrepared>(plugin, desc, inputs);
}

}  // namespace convcheck_onednn
