// StableHLO's transposed convolution: `convolution` with lhs (input) dilation, which is how front ends
// lower ConvTranspose (JAX's lax.conv_transpose, TF/XLA's Conv2DBackpropInput). The spec (docs/spec.md,
// "convolution"), per spatial axis with window_strides 1: the input dilated by lhs_dilation s, padded by
// [low, high] (negative crops), convolved with the kernel dilated by rhs_dilation d, the window read
// reversed where window_reversal is true:
//   out = (low + (in - 1) * s + 1 + high) - ((k - 1) * d + 1) + 1   (C25's num_windows, stride 1)
//   output x reads the dilated input at x + k' * d = low + y * s, so with k = k - 1 - k' (the tap the
//   canonical descriptor names): x = y * s - ((k - 1) * d - low) + k * d.
// So the canonical transposed descriptor has strides s, dilations d, pads_begin = (k - 1) * d - low,
// pads_end = (k - 1) * d - high, output_padding 0. Its weights are the kernel read at k' = k - 1 - k:
// with window_reversal true the kernel as it is, with false flipped on that axis; the kernel's o is the
// op's output channels, so the canonical [C][O/G][k...] is the kernel with its feature axes swapped
// (both reorders, noted). window_strides > 1 on a dilated input, and batch_group_count > 1, are not a
// transposed convolution: refused in convcheck's words. The verifier's constraints (C2-C23) are the
// forward reading's (stablehlo_window.cpp), in StableHLO's words.
#include "stablehlo_window.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::stablehlo {

using namespace dialects::detail;
using namespace stablehlo::detail;

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("stablehlo_transpose", [&] {
        const ConvolutionAttributes attr = read_attributes(attributes, "stablehlo_transpose");
        const ConvShapes& s = attr.shapes;
        const int rank = s.rank();
        const Window w = verify(attr);
        for (auto v : w.strides)
            if (v != 1)
                refuse_ours("window_strides", join(w.strides),
                            "window_strides > 1 keeps every n-th window of the dilated input: not a transposed "
                            "convolution (which slides over the dilated input at stride 1)");
        if (attr.batch_group_count > 1)
            refuse_ours("batch_group_count", std::to_string(attr.batch_group_count),
                        "batch_group_count > 1 is the backward-weights form of convolution, not a transposed one");

        TransposedResult r;
        r.dialect = "stablehlo_transpose";
        r.data_layout = w.layouts.data_name;
        r.filter_layout = w.layouts.filter_name;
        TransposedAxisAttributes g{w.lhs_dilation, w.rhs_dilation, repeat(0, rank), repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        std::string flipped;
        for (int a = 0; a < rank; ++a) {
            const std::int64_t reach = (s.kernel_size[a] - 1) * w.rhs_dilation[a];
            const std::int64_t low = w.padding[2 * a], high = w.padding[2 * a + 1];
            g.pads_begin[a] = reach - low;
            g.pads_end[a] = reach - high;
            out[a] = (low + (s.input_size[a] - 1) * w.lhs_dilation[a] + 1 + high) - (reach + 1) + 1;
            if (out[a] < 1)
                refuse_ours("padding", join(w.padding),
                            "the output size (low + (in - 1) * lhs_dilation + 1 + high) - ((k - 1) * rhs_dilation + 1) + 1 = " +
                                std::to_string(out[a]) + " on axis " + std::to_string(a) +
                                " is empty (legal StableHLO; the canonical transposed descriptor needs >= 1)");
            const bool reversed = !attr.window_reversal.empty() && attr.window_reversal[a];
            if (!reversed) flipped += (flipped.empty() ? "" : ", ") + std::to_string(a);
        }
        r.notes.push_back("the kernel's o is the output channels: the canonical weights [C][O/G][k...] are the kernel (" +
                          w.layouts.filter_name + ") with its feature axes swapped (a reorder)");
        if (!flipped.empty())
            r.notes.push_back("window_reversal false on axis " + flipped +
                              ": the canonical weights are the kernel flipped there (a reorder)");
        r.descriptor = make_transposed(s, attr.feature_group_count, g, w.layouts.data, FilterFormat::oix);
        return conclude_transposed(r, out, PaddingRequest::explicit_pads);
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    if (t.has_bias) {
        *why_not = "StableHLO's convolution has no bias (a separate add)";
        return std::nullopt;
    }
    std::vector<std::int64_t> padding;
    std::string reversal;
    for (int a = 0; a < t.rank; ++a) {
        const std::int64_t reach = (t.kernel_size[a] - 1) * t.dilations[a];
        padding.push_back(reach - t.pads_begin[a]);
        padding.push_back(reach - t.pads_end[a] + t.output_padding[a]);  // output_padding lengthens the end
        reversal += std::string(a ? ":" : "") + "true";
    }
    const std::string digits = spatial_digits(t.rank);
    const std::string data = t.data_format == DataFormat::nxc ? "b" + digits + "f" : "bf" + digits;
    AttributeSet a = spell_shapes(t);
    a["lhs_dilation"] = join(t.strides, t.rank);
    a["rhs_dilation"] = join(t.dilations, t.rank);
    a["padding"] = join(padding);
    a["window_reversal"] = reversal;
    a["feature_group_count"] = std::to_string(t.groups);
    a["dim_labels"] = data + "_oi" + digits + "->" + data;
    return a;
}

}  // namespace convcheck::reference::dialects::stablehlo
