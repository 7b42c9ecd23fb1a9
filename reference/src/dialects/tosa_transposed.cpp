// TOSA TRANSPOSE_CONV2D (arm/tosa-specification v1.0, pseudocode/operators/TRANSPOSE_CONV2D.tosac),
// read literally:
//   input [N,IH,IW,IC] (NHWC), weight [OC,KH,KW,IC] (OHWI: no canonical filter format stores it, the
//   descriptor says IOX and a reorder is implied), bias [BC], out_pad [out_pad_top, out_pad_bottom,
//   out_pad_left, out_pad_right], stride [stride_y, stride_x]; no dilation attribute.
//   output[n, oy, ox, oc] += input[n, iy, ix, ic] * weight[oc, ky, kx, ic]  at oy = iy*stride_y + out_pad_top + ky
// so the canonical pads are pads_begin = -out_pad_top, pads_end = -out_pad_bottom (a positive out_pad
// widens the output, a negative one crops it), output_padding 0. Its ERROR_IF rules, in the spec's order,
// each refused with the rule's text:
//   ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0); ERROR_IF(!is_same<weight_t,i8_t>() && weight_zp != 0)
//   ERROR_IF(out_pad_top <= -KH || out_pad_bottom <= -KH); ERROR_IF(out_pad_left <= -KW || out_pad_right <= -KW)
//   ERROR_IF(stride_y < 1 || stride_x < 1)
//   ERROR_IF(OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH)   (and OW)
//   ERROR_IF(BC != OC && BC != 1)
// and "The tensor shape in each dimension must be greater than or equal to 1".
#include "tosa_words.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::tosa {

using namespace dialects::detail;
using namespace tosa::detail;

namespace {
std::string size_rule(const AxisNames& n) {
    return "ERROR_IF(O" + n.size + " != (I" + n.size + " - 1) * stride_" + n.letter + " + out_" + n.pad_begin +
           " + out_" + n.pad_end + " + K" + n.size + ")";
}
}  // namespace

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("tosa_transpose", [&] {
        Reader reader(attributes, "tosa_transpose");
        const ConvShapes s = read_shapes(reader, true);
        const std::vector<std::int64_t> none;
        const auto out_pad_v = reader.list("out_pad").value_or(none);
        const auto stride_v = reader.list("stride").value_or(none);
        const auto output = reader.list("out").value_or(none);
        const std::int64_t input_zp = reader.integer("input_zp").value_or(0);
        const std::int64_t weight_zp = reader.integer("weight_zp").value_or(0);
        const std::int64_t bias = reader.integer("bias").value_or(0);
        if (auto d = reader.text("dilation"))
            refuse_ours("dilation", *d, "TRANSPOSE_CONV2D has no dilation attribute (TOSA v1.0: out_pad, stride)");
        reader.refuse_unknown_keys();

        if (s.rank() != 2) refuse_ours("in", join(s.input_size), "TRANSPOSE_CONV2D has 2 spatial axes (input [N,IH,IW,IC])");
        const auto names = axis_names(2);
        const auto out_pad = per_axis("out_pad", out_pad_v, 4, 0, "[out_pad_top, out_pad_bottom, out_pad_left, out_pad_right]");
        const auto stride = per_axis("stride", stride_v, 2, 1, "stride[_y, _x]");
        if (!output.empty() && output.size() != 2) refuse_ours("out", join(output), "OH, OW: one output size per spatial axis");
        for (auto v : s.kernel_size)
            if (v < 1)
                refuse("k", join(s.kernel_size), "The tensor shape in each dimension must be greater than or equal to 1 (weight)");

        const std::string zp_why = " (convcheck reads floating-point types: f32, f16, bf16)";
        if (input_zp != 0)
            refuse("input_zp", std::to_string(input_zp),
                   "ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0): Zero point only allowed for i8_t" + zp_why);
        if (weight_zp != 0)
            refuse("weight_zp", std::to_string(weight_zp),
                   "ERROR_IF(!is_same<weight_t,i8_t>() && weight_zp != 0): Zero point only allowed for i8_t" + zp_why);
        for (int a = 0; a < 2; ++a) {
            const AxisNames& n = names[a];
            if (out_pad[2 * a] <= -s.kernel_size[a] || out_pad[2 * a + 1] <= -s.kernel_size[a])
                refuse("out_pad", join(out_pad),
                       "ERROR_IF(out_" + n.pad_begin + " <= -K" + n.size + " || out_" + n.pad_end + " <= -K" + n.size + ")");
        }
        for (auto v : stride)
            if (v < 1) refuse("stride", join(stride), any_below(names, "stride_", "1"));
        std::vector<std::int64_t> out(2);
        for (int a = 0; a < 2; ++a) {
            const AxisNames& n = names[a];
            out[a] = (s.input_size[a] - 1) * stride[a] + out_pad[2 * a] + out_pad[2 * a + 1] + s.kernel_size[a];
            if (!output.empty() && output[a] != out[a])
                refuse("out", join(output),
                       size_rule(n) + ": O" + n.size + " = " + std::to_string(output[a]) + " but the rule gives " +
                           std::to_string(out[a]));
            if (out[a] < 1)
                refuse("out_pad", join(out_pad),
                       "The tensor shape in each dimension must be greater than or equal to 1: O" + n.size + " = " +
                           std::to_string(out[a]) + " (" + size_rule(n) + ")");
        }
        if (bias != 0 && bias != s.out_channels && bias != 1) refuse("bias", std::to_string(bias), "ERROR_IF(BC != OC && BC != 1)");
        if (bias == 1 && s.out_channels != 1)
            refuse_ours("bias", "1",
                        "a bias of shape [1] broadcast to every output channel: the canonical descriptor has one bias "
                        "value per output channel (give bias=" + std::to_string(s.out_channels) + ")");

        TransposedResult r;
        r.dialect = "tosa_transpose";
        r.data_layout = "NHWC";
        r.filter_layout = "OHWI";
        r.notes.push_back("weights are [OC,KH,KW,IC] (OHWI), which no canonical filter format stores: the descriptor "
                          "says IOX ([IC][OC][KH][KW]) and a reorder is implied");
        const TransposedAxisAttributes g{stride, repeat(1, 2), {-out_pad[0], -out_pad[2]}, {-out_pad[1], -out_pad[3]}, repeat(0, 2)};
        r.descriptor = make_transposed(s, 1, g, DataFormat::nxc, FilterFormat::oix);
        r.descriptor.has_bias = bias != 0;
        return conclude_transposed(r, out, PaddingRequest::explicit_pads);
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    if (t.rank != 2) {
        *why_not = "TOSA's only transposed convolution is TRANSPOSE_CONV2D (2 spatial axes)";
        return std::nullopt;
    }
    if (t.groups != 1) {
        *why_not = "TRANSPOSE_CONV2D has no groups";
        return std::nullopt;
    }
    if (t.dilations[0] != 1 || t.dilations[1] != 1) {
        *why_not = "TRANSPOSE_CONV2D has no dilation";
        return std::nullopt;
    }
    std::vector<std::int64_t> out_pad;
    for (int a = 0; a < 2; ++a) {
        out_pad.push_back(-t.pads_begin[a]);
        out_pad.push_back(t.output_padding[a] - t.pads_end[a]);  // output_padding only lengthens the end
    }
    AttributeSet a = spell_shapes(t);
    a["stride"] = join(t.strides, 2);
    a["out_pad"] = join(out_pad);
    if (t.has_bias) a["bias"] = std::to_string(t.out_channels);
    return a;
}

}  // namespace convcheck::reference::dialects::tosa
