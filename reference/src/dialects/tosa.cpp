// TOSA CONV2D / CONV3D / DEPTHWISE_CONV2D (see tosa.hpp): the ERROR_IF rules of the spec's
// pseudo-code, one by one, in the spec's order, each refused with its own text.
#include "convcheck/reference/dialects/tosa.hpp"

#include "common.hpp"
#include "tosa_words.hpp"

namespace convcheck::reference::dialects::tosa {

using namespace dialects::detail;
using namespace tosa::detail;

namespace detail {

std::vector<AxisNames> axis_names(int rank) {
    std::vector<AxisNames> names{{"y", "H", "pad_top", "pad_bottom"}, {"x", "W", "pad_left", "pad_right"}};
    if (rank == 3) names.insert(names.begin(), AxisNames{"d", "D", "pad_d0", "pad_d1"});
    return names;
}

// "ERROR_IF(stride_y < 1 || stride_x < 1)" for the rank's axes.
std::string any_below(const std::vector<AxisNames>& names, const std::string& prefix, const char* bound) {
    std::string rule;
    for (const auto& n : names) rule += (rule.empty() ? "" : " || ") + prefix + n.letter + " < " + bound;
    return "ERROR_IF(" + rule + ")";
}

std::string output_rule(const AxisNames& n) {
    return "ERROR_IF(O" + n.size + " != idiv_check(I" + n.size + " - 1 + " + n.pad_begin + " + " + n.pad_end +
           " - (K" + n.size + " - 1) * dilation_" + n.letter + ", stride_" + n.letter + ") + 1)";
}

std::vector<std::int64_t> per_axis(const std::string& name, const std::vector<std::int64_t>& v, int count,
                                   std::int64_t fallback, const std::string& shape) {
    if (v.empty()) return repeat(fallback, count);
    if (static_cast<int>(v.size()) != count)
        refuse_ours(name, join(v), "the attribute has shape " + shape + " (" + std::to_string(count) + " values)");
    return v;
}

}  // namespace detail

DialectResult conv(const ConvAttributes& attr) {
    return guarded("tosa", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.pad, &attr.stride, &attr.dilation, &attr.output}) require_in_range("attribute", *v);
        require_in_range("attribute", std::vector<std::int64_t>{attr.multiplier, attr.input_zp, attr.weight_zp,
                                                                 attr.bias_size});
        const bool depthwise = attr.op == "DEPTHWISE_CONV2D";
        const int rank = s.rank();
        const int op_rank = attr.op == "CONV3D" ? 3 : 2;
        if (attr.op != "CONV2D" && attr.op != "CONV3D" && !depthwise)
            refuse_ours("op", attr.op, "must be CONV2D, CONV3D or DEPTHWISE_CONV2D");
        if (rank != op_rank)
            refuse_ours("in", join(s.input_size), attr.op + " has " + std::to_string(op_rank) + " spatial axes");
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", join(s.kernel_size), "one per spatial axis");
        const auto names = axis_names(rank);
        std::string pad_shape = "[", axis_shape = "[";
        for (const auto& n : names) {
            pad_shape += (pad_shape.size() > 1 ? ", " : "") + n.pad_begin + ", " + n.pad_end;
            axis_shape += std::string(axis_shape.size() > 1 ? ", " : "") + "_" + n.letter;
        }
        pad_shape += "]";
        axis_shape += "]";
        const auto pad = per_axis("pad", attr.pad, 2 * rank, 0, pad_shape);
        const auto stride = per_axis("stride", attr.stride, rank, 1, "stride" + axis_shape);
        const auto dilation = per_axis("dilation", attr.dilation, rank, 1, "dilation" + axis_shape);
        if (!attr.output.empty() && static_cast<int>(attr.output.size()) != rank)
            refuse_ours("out", join(attr.output), "one output size per spatial axis");
        const std::int64_t out_channels = depthwise ? s.in_channels * attr.multiplier : s.out_channels;
        if (depthwise && attr.multiplier < 1)
            refuse("multiplier", std::to_string(attr.multiplier),
                   "The tensor shape in each dimension must be greater than or equal to 1 (weight [KH,KW,C,M])");

        // The ERROR_IF rules, in the pseudo-code's order.
        const std::string zp_why = " (convcheck reads floating-point types: f32, f16, bf16)";
        if (attr.input_zp != 0)
            refuse("input_zp", std::to_string(attr.input_zp),
                   "ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0): Zero point only allowed for i8_t" + zp_why);
        if (attr.weight_zp != 0)
            refuse("weight_zp", std::to_string(attr.weight_zp),
                   "ERROR_IF(!is_same<weight_t,i8_t>() && weight_zp != 0): Zero point only allowed for i8_t" + zp_why);
        for (auto p : pad)
            if (p < 0) {
                std::string rule;
                for (const auto& n : names) rule += (rule.empty() ? "" : " || ") + n.pad_begin + " < 0 || " + n.pad_end + " < 0";
                refuse("pad", join(pad), "ERROR_IF(" + rule + ")");
            }
        for (auto v : stride)
            if (v < 1) refuse("stride", join(stride), any_below(names, "stride_", "1"));
        for (auto v : dilation)
            if (v < 1) refuse("dilation", join(dilation), any_below(names, "dilation_", "1"));
        for (auto v : s.kernel_size)
            if (v < 1)
                refuse("k", join(s.kernel_size),
                       "The tensor shape in each dimension must be greater than or equal to 1 (weight)");

        AxisAttributes g{stride, dilation, repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            const AxisNames& n = names[a];
            g.pads_begin[a] = pad[2 * a];
            g.pads_end[a] = pad[2 * a + 1];
            const std::int64_t extent =
                s.input_size[a] - 1 + g.pads_begin[a] + g.pads_end[a] - (s.kernel_size[a] - 1) * dilation[a];
            // idiv_check: ERROR_IF(input1 % input2 != 0) (C remainder); then the exact quotient
            if (extent % stride[a] != 0)
                refuse("stride", join(stride),
                       output_rule(n) + ": idiv_check's ERROR_IF(input1 % input2 != 0): I" + n.size + " - 1 + " +
                           n.pad_begin + " + " + n.pad_end + " - (K" + n.size + " - 1) * dilation_" + n.letter +
                           " = " + std::to_string(extent) + " is not a multiple of stride_" + n.letter + " = " +
                           std::to_string(stride[a]));
            out[a] = extent / stride[a] + 1;
            if (!attr.output.empty() && attr.output[a] != out[a])
                refuse("out", join(attr.output),
                       output_rule(n) + ": O" + n.size + " = " + std::to_string(attr.output[a]) + " but the rule gives " +
                           std::to_string(out[a]));
            if (out[a] < 1)
                refuse("k", join(s.kernel_size),
                       "The tensor shape in each dimension must be greater than or equal to 1: O" + n.size + " = " +
                           std::to_string(out[a]) + " (" + output_rule(n) + ")");
        }
        if (attr.bias_size != 0 && attr.bias_size != out_channels && attr.bias_size != 1)
            refuse("bias", std::to_string(attr.bias_size),
                   depthwise ? "ERROR_IF(BC != C*M && BC != 1)" : "ERROR_IF(BC != OC && BC != 1)");
        if (attr.bias_size == 1 && out_channels != 1)
            refuse_ours("bias", "1",
                        "a bias of shape [1] broadcast to every output channel: the canonical descriptor has one "
                        "bias value per output channel (give bias=" + std::to_string(out_channels) + ")");

        ConvShapes shapes = s;
        shapes.out_channels = out_channels;
        const std::int64_t groups = depthwise ? s.in_channels : 1;
        DialectResult r;
        r.dialect = "tosa";
        r.data_layout = rank == 3 ? "NDHWC" : "NHWC";
        r.filter_layout = depthwise ? "HWCM" : rank == 3 ? "ODHWI" : "OHWI";
        if (depthwise) {
            r.notes.push_back("weights [KH,KW,C,M] are the canonical XIO with groups = C (output channel c*M + m)");
        } else {
            r.notes.push_back(std::string("weights are ") + (rank == 3 ? "[OC,KD,KH,KW,IC] (ODHWI)" : "[OC,KH,KW,IC] (OHWI)") +
                              ", which no canonical filter format stores: the descriptor says OIX and a reorder is "
                              "implied");
        }
        r.descriptor = make_descriptor(shapes, groups, g, DataFormat::nxc, depthwise ? FilterFormat::xio : FilterFormat::oix);
        r.descriptor.has_bias = attr.bias_size != 0;
        r.request = make_request(shapes, groups, g, PaddingRequest::explicit_pads, DataFormat::nxc);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("tosa", [&] {
        Reader reader(attributes, "tosa");
        ConvAttributes a;
        a.op = reader.text("op").value_or("");
        a.shapes = read_shapes(reader, true);
        if (a.op.empty()) a.op = a.shapes.rank() == 3 ? "CONV3D" : "CONV2D";
        if (a.op == "DEPTHWISE_CONV2D") {
            a.multiplier = reader.integer("multiplier").value_or(1);
            if (attributes.count("o") && a.shapes.out_channels != a.shapes.in_channels * a.multiplier)
                refuse_ours("o", std::to_string(a.shapes.out_channels),
                            "DEPTHWISE_CONV2D's output has C*M channels: give multiplier= (M), or o = c * multiplier");
        }
        a.pad = reader.list("pad").value_or(std::vector<std::int64_t>{});
        a.stride = reader.list("stride").value_or(std::vector<std::int64_t>{});
        a.dilation = reader.list("dilation").value_or(std::vector<std::int64_t>{});
        a.output = reader.list("out").value_or(std::vector<std::int64_t>{});
        a.input_zp = reader.integer("input_zp").value_or(0);
        a.weight_zp = reader.integer("weight_zp").value_or(0);
        a.bias_size = reader.integer("bias").value_or(0);
        reader.refuse_unknown_keys();
        return conv(a);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "TOSA", why_not)) return std::nullopt;
    if (q.rank == 1) {
        *why_not = "TOSA has no 1-D convolution (CONV2D, CONV3D, DEPTHWISE_CONV2D)";
        return std::nullopt;
    }
    if (q.padding == PaddingRequest::same_upper || q.padding == PaddingRequest::same_lower) {
        *why_not = "TOSA has no automatic padding: pad is given explicitly";
        return std::nullopt;
    }
    const bool depthwise = q.groups > 1 && q.rank == 2 && q.groups == q.in_channels && q.out_channels % q.groups == 0;
    if (q.groups > 1 && !depthwise) {
        *why_not = "TOSA has no grouped convolution but DEPTHWISE_CONV2D (groups = C, 2-D)";
        return std::nullopt;
    }
    std::vector<std::int64_t> pad;
    for (int a = 0; a < q.rank; ++a) {
        const bool explicit_pads = q.padding == PaddingRequest::explicit_pads;
        pad.push_back(explicit_pads ? q.pads_begin[a] : 0);
        pad.push_back(explicit_pads ? q.pads_end[a] : 0);
    }
    AttributeSet a;
    a["op"] = depthwise ? "DEPTHWISE_CONV2D" : q.rank == 3 ? "CONV3D" : "CONV2D";
    a["n"] = std::to_string(q.batch);
    a["c"] = std::to_string(q.in_channels);
    if (depthwise) a["multiplier"] = std::to_string(q.out_channels / q.groups);
    else a["o"] = std::to_string(q.out_channels);
    a["in"] = join(q.input_size, q.rank);
    a["k"] = join(q.kernel_size, q.rank);
    a["pad"] = join(pad);
    a["stride"] = join(q.strides, q.rank);
    a["dilation"] = join(q.dilations, q.rank);
    return a;
}

}  // namespace convcheck::reference::dialects::tosa
