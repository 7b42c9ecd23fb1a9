// TFLite CONV_2D / DEPTHWISE_CONV_2D float32 (see tflite.hpp): the options read as TFLite's Prepare and its
// reference kernels use them; the fused activation becomes the post-op it computes.
#include "convcheck/reference/dialects/tflite.hpp"

#include "common.hpp"
#include "tflite_options.hpp"

namespace convcheck::reference::dialects::tflite {

using namespace dialects::detail;

namespace {

// CalculateActivationRange<float> and ActivationFunctionWithMinMax: min(max(x, lo), hi) after the bias.
std::vector<PostOp> activation_post_ops(const std::string& activation) {
    PostOp op;
    op.kind = PostOpKind::eltwise;
    if (activation == "NONE") return {};
    if (activation == "RELU") {
        op.eltwise = EltwiseAlgorithm::relu;
        return {op};
    }
    if (activation == "RELU6" || activation == "RELU_N1_TO_1") {
        op.eltwise = EltwiseAlgorithm::clip;
        op.alpha = activation == "RELU6" ? 0.0f : -1.0f;
        op.beta = activation == "RELU6" ? 6.0f : 1.0f;
        return {op};
    }
    refuse_ours("fused_activation_function", activation,
                "CalculateActivationRange has branches for RELU, RELU6 and RELU_N1_TO_1 only; a float convolution "
                "given any other activation (TANH, SIGN_BIT) clamps to [lowest, max], i.e. applies none, which is not "
                "the activation the model names: not read (NONE, RELU, RELU6, RELU_N1_TO_1)");
}

}  // namespace

DialectResult read(const AttributeSet& attributes) {
    return guarded("tflite_f32", [&] {
        Reader reader(attributes, "tflite_f32");
        ConvShapes s;
        const detail::ConvOptions options = detail::read_conv_options(reader, attributes, &s);
        const std::string activation = reader.text("fused_activation_function").value_or("NONE");
        const std::vector<PostOp> post_ops = activation_post_ops(activation);
        const bool bias = reader.boolean("bias").value_or(false);
        reader.refuse_unknown_keys();

        const detail::Geometry geometry = detail::geometry(options, s);
        const AxisAttributes& g = geometry.axes;
        const bool depthwise = options.depthwise;
        const std::int64_t groups = depthwise ? s.in_channels : 1;
        DialectResult r;
        r.dialect = "tflite_f32";
        r.data_layout = "NHWC";
        r.filter_layout = depthwise ? "1HWO" : "OHWI";
        r.request = make_request(s, groups, g, options.same ? PaddingRequest::same_upper : PaddingRequest::valid,
                                 DataFormat::nxc);
        r.descriptor = make_descriptor(s, groups, g, DataFormat::nxc, depthwise ? FilterFormat::xio : FilterFormat::oix);
        r.descriptor.has_bias = bias;
        r.descriptor.post_ops = post_ops;
        r.notes.push_back(depthwise ? "filter [1, KH, KW, C * depth_multiplier] is the canonical XIO with groups = C "
                                      "(output channel c * depth_multiplier + m)"
                                    : "filter [OC, KH, KW, IC] (OHWI): the descriptor says OIX and a reorder is implied");
        if (!post_ops.empty())
            r.notes.push_back(activation + ": ActivationFunctionWithMinMax after the bias, po=" + post_ops_text(post_ops));
        return conclude(r, geometry.output_size);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "TFLite", why_not)) return std::nullopt;
    if (q.rank != 2) {
        *why_not = "TFLite's CONV_2D and DEPTHWISE_CONV_2D are 2-D only";
        return std::nullopt;
    }
    const bool depthwise = q.groups > 1 && q.groups == q.in_channels;
    if (q.groups != 1 && !depthwise) {
        *why_not = "TFLite's CONV_2D reads no groups here, and DEPTHWISE_CONV_2D needs groups = c";
        return std::nullopt;
    }
    AttributeSet a = spell_shapes(q);
    if (depthwise) {
        a["op"] = "DEPTHWISE_CONV_2D";
        a["depth_multiplier"] = std::to_string(q.out_channels / q.in_channels);
    }
    switch (q.padding) {
        case PaddingRequest::same_upper: a["padding"] = "SAME"; break;
        case PaddingRequest::valid: a["padding"] = "VALID"; break;
        case PaddingRequest::same_lower:
            *why_not = "TFLite's SAME puts the odd pad at the end (SAME_UPPER); it has no SAME_LOWER";
            return std::nullopt;
        case PaddingRequest::explicit_pads:
            for (int i = 0; i < q.rank; ++i)
                if (q.pads_begin[i] != 0 || q.pads_end[i] != 0) {
                    *why_not = "TFLite's CONV_2D has no explicit pads (SAME or VALID)";
                    return std::nullopt;
                }
            a["padding"] = "VALID";
            break;
    }
    a["stride_h"] = std::to_string(q.strides[0]);
    a["stride_w"] = std::to_string(q.strides[1]);
    a["dilation_h_factor"] = std::to_string(q.dilations[0]);
    a["dilation_w_factor"] = std::to_string(q.dilations[1]);
    return a;
}

}  // namespace convcheck::reference::dialects::tflite
