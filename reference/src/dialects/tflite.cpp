// TFLite CONV_2D / DEPTHWISE_CONV_2D float32 (see tflite.hpp): the options read as TFLite's Prepare and its
// reference kernels use them; the fused activation becomes the post-op it computes.
#include "convcheck/reference/dialects/tflite.hpp"

#include "common.hpp"
#include "tflite_padding.hpp"

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
        const std::string op = reader.text("op").value_or("CONV_2D");
        if (op != "CONV_2D" && op != "DEPTHWISE_CONV_2D") refuse_ours("op", op, "must be CONV_2D or DEPTHWISE_CONV_2D");
        const bool depthwise = op == "DEPTHWISE_CONV_2D";
        ConvShapes s = read_shapes(reader, true);
        require_in_range(s);
        if (s.rank() != 2 || s.kernel_size.size() != 2)
            refuse_ours("in", join(s.input_size), op + " has two spatial axes (in=HxW, k=HxW)");
        if (depthwise) {
            const std::int64_t depth_multiplier = reader.integer("depth_multiplier").value_or(1);
            require_in_range("depth_multiplier", depth_multiplier);
            if (depth_multiplier < 1) refuse_ours("depth_multiplier", std::to_string(depth_multiplier), "must be >= 1");
            if (attributes.count("o") && s.out_channels != s.in_channels * depth_multiplier)
                refuse_ours("o", std::to_string(s.out_channels),
                            "DEPTHWISE_CONV_2D's filter [1, KH, KW, C * depth_multiplier] gives C * depth_multiplier "
                            "output channels");
            s.out_channels = s.in_channels * depth_multiplier;
        }
        const std::string padding = reader.text("padding").value_or("VALID");
        if (padding != "SAME" && padding != "VALID") refuse_ours("padding", padding, "TfLitePadding: SAME or VALID");
        const std::vector<std::int64_t> stride{reader.integer("stride_h").value_or(1), reader.integer("stride_w").value_or(1)};
        const std::vector<std::int64_t> dilation{reader.integer("dilation_h_factor").value_or(1),
                                                 reader.integer("dilation_w_factor").value_or(1)};
        require_in_range("stride", stride);
        require_in_range("dilation", dilation);
        for (int a = 0; a < 2; ++a) {
            if (stride[a] < 1) refuse_ours(a ? "stride_w" : "stride_h", std::to_string(stride[a]), "must be >= 1");
            if (dilation[a] < 1)
                refuse_ours(a ? "dilation_w_factor" : "dilation_h_factor", std::to_string(dilation[a]), "must be >= 1");
            if (s.kernel_size[a] < 1) refuse_ours("k", join(s.kernel_size), "filter sizes must be >= 1");
        }
        const std::string activation = reader.text("fused_activation_function").value_or("NONE");
        const std::vector<PostOp> post_ops = activation_post_ops(activation);
        const bool bias = reader.boolean("bias").value_or(false);
        reader.refuse_unknown_keys();

        std::vector<std::int64_t> out(2);
        AxisAttributes g{stride, dilation, repeat(0, 2), repeat(0, 2)};
        for (int a = 0; a < 2; ++a) {
            const detail::Axis x =
                detail::axis(padding == "SAME", s.input_size[a], s.kernel_size[a], stride[a], dilation[a], a ? "width" : "height");
            out[a] = x.out;
            g.pads_begin[a] = x.pad_begin;
            g.pads_end[a] = x.pad_end;
        }
        const std::int64_t groups = depthwise ? s.in_channels : 1;
        DialectResult r;
        r.dialect = "tflite_f32";
        r.data_layout = "NHWC";
        r.filter_layout = depthwise ? "1HWO" : "OHWI";
        r.request = make_request(s, groups, g, padding == "SAME" ? PaddingRequest::same_upper : PaddingRequest::valid,
                                 DataFormat::nxc);
        r.descriptor = make_descriptor(s, groups, g, DataFormat::nxc, depthwise ? FilterFormat::xio : FilterFormat::oix);
        r.descriptor.has_bias = bias;
        r.descriptor.post_ops = post_ops;
        r.notes.push_back(depthwise ? "filter [1, KH, KW, C * depth_multiplier] is the canonical XIO with groups = C "
                                      "(output channel c * depth_multiplier + m)"
                                    : "filter [OC, KH, KW, IC] (OHWI): the descriptor says OIX and a reorder is implied");
        if (!post_ops.empty())
            r.notes.push_back(activation + ": ActivationFunctionWithMinMax after the bias, po=" + post_ops_text(post_ops));
        return conclude(r, out);
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
