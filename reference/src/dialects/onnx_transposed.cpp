// ONNX ConvTranspose (onnx/defs/nn/defs.cc, opset 1/11/22 text), read literally, K = (k-1)*d + 1:
//   pads given (or 0):  out = stride * (in - 1) + output_padding + K - pads_begin - pads_end
//   output_shape given: "pads values are auto generated" (and pads are ignored):
//       total_padding = stride * (in - 1) + output_padding + K - output_shape
//       SAME_UPPER: begin = total/2, end = total - total/2;  otherwise: begin = total - total/2, end = total/2
//   auto_pad SAME_UPPER / SAME_LOWER without output_shape: "pad the input so that output_shape[i] =
//       input_shape[i] * strides[i]", split by the same rule; VALID: pads 0.
// The spec's "/" on a negative total_padding (an output_shape larger than the full result) is read as
// floor division, as the ONNX reference evaluator (onnx/reference/ops/op_conv_transpose.py) computes it;
// the negative pads it gives widen the output with zeros (noted). output_padding: "Each padding value in
// output_padding must be less than the corresponding stride/dilation dimension", read as PyTorch's
// "smaller than stride or dilation". Weights [C, M/group, k...] (IOX), data NCX, B of size M.
// docs/errata.md "Transposed convolution" says where ONNX Runtime and the reference evaluator differ.
#include <algorithm>

#include "onnx_words.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::onnx {

using namespace dialects::detail;
using namespace onnx::detail;

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("onnx_transpose", [&] {
        Reader reader(attributes, "onnx_transpose");
        ConvShapes s = read_shapes(reader, false);
        const std::vector<std::int64_t> none;
        const std::string mode = reader.text("auto_pad").value_or("NOTSET");
        const auto pads_v = reader.list("pads");
        const auto strides = per_axis("strides", reader.list("strides").value_or(none), s.rank(), 1);
        const auto dilations = per_axis("dilations", reader.list("dilations").value_or(none), s.rank(), 1);
        const auto output_padding = per_axis("output_padding", reader.list("output_padding").value_or(none), s.rank(), 0);
        const auto output_shape_v = reader.list("output_shape");
        const auto kernel_shape = reader.list("kernel_shape").value_or(none);
        const std::int64_t group = reader.integer("group").value_or(1);
        const std::int64_t bias = reader.integer("bias").value_or(0);
        reader.refuse_unknown_keys();

        const int rank = s.rank();
        if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID")
            refuse_ours("auto_pad", mode, "must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
        if (!kernel_shape.empty()) {
            if (static_cast<int>(kernel_shape.size()) != rank)
                refuse("kernel_shape", join(kernel_shape), "Attribute kernel_shape has incorrect length");
            if (!s.kernel_size.empty() && kernel_shape != s.kernel_size)
                refuse_ours("kernel_shape", join(kernel_shape), "disagrees with the spatial shape of W (k=" + join(s.kernel_size) + ")");
            s.kernel_size = kernel_shape;
        }
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "give k= (W's spatial shape) or kernel_shape=");
        if (group < 1) refuse_ours("group", std::to_string(group), "the number of groups must be >= 1");
        if (s.in_channels % group != 0)
            refuse_ours("group", std::to_string(group), "C (X's channels, W's first dimension) must be divisible by group");
        if (s.out_channels % group != 0)
            refuse_ours("o", std::to_string(s.out_channels),
                        "the output has W.shape[1] * group channels: o must be a multiple of group");
        if (bias != 0 && bias != s.out_channels)
            refuse_ours("bias", std::to_string(bias), "B has size M (the output channels, " + std::to_string(s.out_channels) + ")");
        if (mode != "NOTSET" && pads_v)
            refuse("pads", join(*pads_v), "This attribute cannot be used simultaneously with auto_pad attribute.");
        const auto pads = pads_v ? *pads_v : repeat(0, 2 * rank);
        if (static_cast<int>(pads.size()) != 2 * rank) refuse("pads", join(pads), "Attribute pads has incorrect length");
        for (auto p : pads)
            if (p < 0) refuse_ours("pads", join(pads), "the spec: pads \"can take any value greater than or equal to 0\"");
        for (auto v : strides)
            if (v < 1) refuse_ours("strides", join(strides), "every stride must be >= 1");
        for (auto v : dilations)
            if (v < 1) refuse_ours("dilations", join(dilations), "every dilation must be >= 1");
        for (int a = 0; a < rank; ++a) {
            if (output_padding[a] < 0)
                refuse_ours("output_padding", join(output_padding), "every output_padding must be >= 0");
            if (output_padding[a] >= strides[a] && output_padding[a] >= dilations[a])
                refuse("output_padding", join(output_padding),
                       "Each padding value in \"output_padding\" must be less than the corresponding stride/dilation "
                       "dimension (axis " + std::to_string(a) + ": output_padding " + std::to_string(output_padding[a]) +
                           ", stride " + std::to_string(strides[a]) + ", dilation " + std::to_string(dilations[a]) + ")");
        }
        std::vector<std::int64_t> output_shape;
        if (output_shape_v) {
            output_shape = *output_shape_v;
            if (static_cast<int>(output_shape.size()) != rank)
                refuse_ours("output_shape", join(output_shape),
                            "one size per spatial axis: \"the output_shape attribute value should not include dimensions "
                            "for batch size and channels\"");
            for (auto v : output_shape)
                if (v < 1) refuse_ours("output_shape", join(output_shape), "every output size must be >= 1");
        } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
            for (int a = 0; a < rank; ++a) output_shape.push_back(s.input_size[a] * strides[a]);
        }

        TransposedResult r;
        r.dialect = "onnx_transpose";
        TransposedAxisAttributes g{strides, dilations, repeat(0, rank), repeat(0, rank), output_padding};
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            const std::int64_t K = (s.kernel_size[a] - 1) * dilations[a] + 1;
            const std::int64_t full = strides[a] * (s.input_size[a] - 1) + output_padding[a] + K;
            if (!output_shape.empty()) {
                const std::int64_t total = full - output_shape[a];
                const std::int64_t half = floor_div(total, 2);
                g.pads_begin[a] = mode == "SAME_UPPER" ? half : total - half;
                g.pads_end[a] = mode == "SAME_UPPER" ? total - half : half;
                out[a] = output_shape[a];
                if (total < 0)
                    r.notes.push_back("axis " + std::to_string(a) + ": output_shape " + std::to_string(output_shape[a]) +
                                      " exceeds the full result " + std::to_string(full) +
                                      ": total_padding " + std::to_string(total) + " gives negative pads (zeros added)");
            } else {
                if (mode == "NOTSET") {
                    g.pads_begin[a] = pads[a];
                    g.pads_end[a] = pads[rank + a];
                }
                out[a] = full - g.pads_begin[a] - g.pads_end[a];
                if (out[a] < 1)
                    refuse_ours("pads", join(pads),
                                "the output size stride * (in - 1) + output_padding + K - pads = " + std::to_string(out[a]) +
                                    " on axis " + std::to_string(a) + " must be >= 1");
            }
        }
        if (output_shape_v && pads_v) r.notes.push_back("output_shape given: \"pads values are ignored\"");
        r.data_layout = "NCX";
        r.filter_layout = "IOX";
        r.descriptor = make_transposed(s, group, g, DataFormat::ncx, FilterFormat::oix);
        r.descriptor.has_bias = bias != 0;
        return conclude_transposed(r, out, padding_request_named(mode));
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    AttributeSet a = spell_shapes(t);
    a["strides"] = join(t.strides, t.rank);
    a["dilations"] = join(t.dilations, t.rank);
    a["group"] = std::to_string(t.groups);
    a["output_padding"] = join(t.output_padding, t.rank);
    if (t.has_bias) a["bias"] = std::to_string(t.out_channels);
    switch (q.padding) {
        case PaddingRequest::valid: a["auto_pad"] = "VALID"; break;
        case PaddingRequest::same_upper: a["auto_pad"] = "SAME_UPPER"; break;
        case PaddingRequest::same_lower: a["auto_pad"] = "SAME_LOWER"; break;
        case PaddingRequest::explicit_pads: {
            const std::vector<std::int64_t> p = pads_list(t.pads_begin, t.pads_end, t.rank);
            if (std::any_of(p.begin(), p.end(), [](auto v) { return v < 0; })) {
                // a negative pad (an output wider than the full result): only output_shape says it, and its
                // total_padding = pads_begin + pads_end is split by a fixed rule (NOTSET: the extra at the
                // beginning; SAME_UPPER: at the end)
                const OutputShapeSplit split = output_shape_split(t);
                if (!split.begin_is_ceil_half && !split.begin_is_floor_half) {
                    *why_not = "ONNX pads are >= 0, and output_shape splits a negative total padding by a fixed rule "
                               "that gives other pads";
                    return std::nullopt;
                }
                if (!split.begin_is_ceil_half) a["auto_pad"] = "SAME_UPPER";  // NOTSET: begin = total - total/2
                a["output_shape"] = join(split.output_shape);
                break;
            }
            a["pads"] = join(p);
            break;
        }
    }
    return a;
}

}  // namespace convcheck::reference::dialects::onnx
