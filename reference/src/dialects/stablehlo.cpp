// StableHLO convolution (see stablehlo.hpp): the spec's constraints in the verifier's order and words,
// then C25's num_windows per spatial axis.
#include "convcheck/reference/dialects/stablehlo.hpp"

#include <algorithm>

#include "stablehlo_window.hpp"

namespace convcheck::reference::dialects::stablehlo {

using namespace dialects::detail;
using namespace stablehlo::detail;

DialectResult convolution(const ConvolutionAttributes& attr) {
    return guarded("stablehlo", [&] {
        const ConvShapes& s = attr.shapes;
        const int rank = s.rank();
        const Window w = verify(attr);
        const Layouts& layouts = w.layouts;
        const auto &strides = w.strides, &lhs_dilation = w.lhs_dilation, &rhs_dilation = w.rhs_dilation,
                   &padding = w.padding;
        const std::int64_t g = attr.feature_group_count, bg = attr.batch_group_count;

        // Legal StableHLO that is not a forward convolution.
        for (int a = 0; a < rank; ++a)
            if (lhs_dilation[a] > 1)
                refuse_ours("lhs_dilation", join(lhs_dilation),
                            "lhs (input) dilation > 1 dilates the input: a transposed convolution, which the "
                            "stablehlo_transpose dialect reads");
        if (bg > 1)
            refuse_ours("batch_group_count", std::to_string(bg),
                        "batch_group_count > 1 is the backward-weights form of convolution, not a forward one (the "
                        "runner's dir=bwd_w cases compute backward weights; no dialect reads this form yet)");
        for (bool reversed : attr.window_reversal)
            if (reversed)
                refuse_ours("window_reversal", "true",
                            "a reversed window flips the kernel: not the canonical (cross-correlation) descriptor");

        // C25: num_windows per spatial axis (lhs dilation is 1 here)
        AxisAttributes geometry{strides, rhs_dilation, repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            geometry.pads_begin[a] = padding[2 * a];
            geometry.pads_end[a] = padding[2 * a + 1];
            const std::int64_t padded = padding[2 * a] + s.input_size[a] + padding[2 * a + 1];
            const std::int64_t window = (s.kernel_size[a] - 1) * rhs_dilation[a] + 1;
            const bool empty_window = padded <= 0 || window > padded;
            out[a] = empty_window ? 0 : floor_div(padded - window, strides[a]) + 1;
        }
        DialectResult r;
        r.dialect = "stablehlo";
        r.data_layout = layouts.data_name;
        r.filter_layout = layouts.filter_name;
        if (layouts.filter_reordered)
            r.notes.push_back("the kernel layout " + layouts.filter_name +
                              " is neither oi.. (OIX) nor ..io (XIO): the descriptor says OIX and a reorder is implied");
        r.descriptor = make_descriptor(s, g, geometry, layouts.data, layouts.filter);
        r.request = make_request(s, g, geometry, PaddingRequest::explicit_pads, layouts.data);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("stablehlo", [&] { return convolution(read_attributes(attributes, "stablehlo")); });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "StableHLO", why_not)) return std::nullopt;
    if (q.padding == PaddingRequest::same_upper || q.padding == PaddingRequest::same_lower) {
        *why_not = "StableHLO has no automatic padding: padding is given explicitly (front ends compute SAME pads)";
        return std::nullopt;
    }
    const std::string digits = spatial_digits(q.rank);
    std::vector<std::int64_t> padding;
    for (int a = 0; a < q.rank; ++a) {
        const bool explicit_pads = q.padding == PaddingRequest::explicit_pads;
        padding.push_back(explicit_pads ? q.pads_begin[a] : 0);
        padding.push_back(explicit_pads ? q.pads_end[a] : 0);
    }
    AttributeSet a = spell_shapes(q);
    a["window_strides"] = join(q.strides, q.rank);
    a["rhs_dilation"] = join(q.dilations, q.rank);
    a["padding"] = join(padding);
    a["feature_group_count"] = std::to_string(q.groups);
    const std::string data = q.data_format == DataFormat::nxc ? "b" + digits + "f" : "bf" + digits;
    const std::string kernel = q.filter_format == FilterFormat::xio ? digits + "io" : "oi" + digits;
    a["dim_labels"] = data + "_" + kernel + "->" + data;
    return a;
}

}  // namespace convcheck::reference::dialects::stablehlo
