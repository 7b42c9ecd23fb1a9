// TFLite CONV_2D / DEPTHWISE_CONV_2D options and geometry (see tflite_options.hpp).
#include "tflite_options.hpp"

namespace convcheck::reference::dialects::tflite::detail {

using namespace dialects::detail;

ConvOptions read_conv_options(Reader& reader, const AttributeSet& attributes, ConvShapes* shapes) {
    ConvOptions o;
    o.op = reader.text("op").value_or("CONV_2D");
    if (o.op != "CONV_2D" && o.op != "DEPTHWISE_CONV_2D") refuse_ours("op", o.op, "must be CONV_2D or DEPTHWISE_CONV_2D");
    o.depthwise = o.op == "DEPTHWISE_CONV_2D";
    ConvShapes& s = *shapes;
    s = read_shapes(reader, true);
    require_in_range(s);
    if (s.rank() != 2 || s.kernel_size.size() != 2)
        refuse_ours("in", join(s.input_size), o.op + " has two spatial axes (in=HxW, k=HxW)");
    if (o.depthwise) {
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
    o.same = padding == "SAME";
    o.stride = {reader.integer("stride_h").value_or(1), reader.integer("stride_w").value_or(1)};
    o.dilation = {reader.integer("dilation_h_factor").value_or(1), reader.integer("dilation_w_factor").value_or(1)};
    require_in_range("stride", o.stride);
    require_in_range("dilation", o.dilation);
    for (int a = 0; a < 2; ++a) {
        if (o.stride[a] < 1) refuse_ours(a ? "stride_w" : "stride_h", std::to_string(o.stride[a]), "must be >= 1");
        if (o.dilation[a] < 1)
            refuse_ours(a ? "dilation_w_factor" : "dilation_h_factor", std::to_string(o.dilation[a]), "must be >= 1");
        if (s.kernel_size[a] < 1) refuse_ours("k", join(s.kernel_size), "filter sizes must be >= 1");
    }
    return o;
}

Geometry geometry(const ConvOptions& o, const ConvShapes& s) {
    Geometry g{AxisAttributes{o.stride, o.dilation, repeat(0, 2), repeat(0, 2)}, std::vector<std::int64_t>(2)};
    for (int a = 0; a < 2; ++a) {
        const std::string name = a ? "width" : "height";
        const std::int64_t effective_filter_size = (s.kernel_size[a] - 1) * o.dilation[a] + 1;
        const std::int64_t image_size = s.input_size[a], stride = o.stride[a];
        const std::int64_t out =
            o.same ? (image_size + stride - 1) / stride : (image_size + stride - effective_filter_size) / stride;
        if (out < 1)
            refuse_ours("k", std::to_string(s.kernel_size[a]),
                        std::string("ComputeOutSize(") + (o.same ? "SAME" : "VALID") + ") gives " + name +
                            " output size " + std::to_string(out) +
                            " = (image_size + stride - effective_filter_size) / stride: below 1");
        std::int64_t total_padding = (out - 1) * stride + effective_filter_size - image_size;
        total_padding = total_padding > 0 ? total_padding : 0;
        g.output_size[a] = out;
        g.axes.pads_begin[a] = total_padding / 2;
        g.axes.pads_end[a] = total_padding - total_padding / 2;
    }
    return g;
}

}  // namespace convcheck::reference::dialects::tflite::detail
