// OpenVINO ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 (docs/ops/convolution/
// ConvolutionBackpropData_1.md), read literally. Data NCX; filters [C_IN, C_OUT, X...] (IOX), for the
// group op [GROUPS, C_IN/G, C_OUT/G, X...]; no bias input (a separate Add). The spec, per axis i:
//   without the output_shape input:
//       if auto_pads != None: pads_begin[i] = 0, pads_end[i] = 0
//       Y_i = stride[i] * (X_i - 1) + ((K_i - 1) * dilations[i] + 1) - pads_begin[i] - pads_end[i]
//             + output_padding[i]
//   with output_shape: "pads_begin and pads_end are ignored, and auto_pad defines how to distribute
//   padding amount around the tensor":
//       total_padding[i] = stride[i] * (X_i - 1) + ((K_i - 1) * dilations[i] + 1) - output_shape[i]
//                          + output_padding[i]
//       if auto_pads != SAME_UPPER: pads_begin[i] = total_padding[i] // 2; pads_end[i] = total - pads_begin[i]
//       else:                       pads_end[i] = total_padding[i] // 2;   pads_begin[i] = total - pads_end[i]
// `//` is read as Python's floor division (the spec's pseudocode is Python); a negative total (an
// output_shape wider than the full result) gives negative pads: zeros at the ends (noted). OpenVINO's
// shape inference differs in two places (docs/errata.md "OpenVINO ConvolutionBackpropData"): it keeps
// explicit pads when output_shape is given, and clamps total_padding at 0.
// Attribute ranges (the spec's "Range of values"): strides and dilations positive, pads and
// output_padding non-negative, refused in convcheck's words; a zero stride or dilation in OpenVINO's
// validation words ("Strides has zero dimension(s). Strides{1, 0}").
#include "openvino_words.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::openvino {

using namespace dialects::detail;
using namespace openvino::detail;

namespace {
std::vector<std::int64_t> spatial(const char* name, const std::optional<std::vector<std::int64_t>>& v, int rank,
                                  std::int64_t fallback, bool required) {
    if (!v) {
        if (required) refuse_ours(name, "(missing)", "the attribute is required (\"Required: yes\")");
        return repeat(fallback, rank);
    }
    if (static_cast<int>(v->size()) != rank)
        refuse_ours(name, join(*v), "needs one value per spatial axis (" + std::to_string(rank) + ")");
    return *v;
}
}  // namespace

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("openvino_transpose", [&] {
        Reader reader(attributes, "openvino_transpose");
        const ConvShapes s = read_shapes(reader, true);
        const int rank = s.rank();
        // strides and dilations: "Required: yes"; pads_begin / pads_end "May be omitted" (0, as OpenVINO's
        // shape inference fills empty pads)
        const auto strides = spatial("strides", reader.list("strides"), rank, 1, true);
        const auto dilations = spatial("dilations", reader.list("dilations"), rank, 1, true);
        const auto pads_begin_v = reader.list("pads_begin");
        const auto pads_end_v = reader.list("pads_end");
        const auto pads_begin = spatial("pads_begin", pads_begin_v, rank, 0, false);
        const auto pads_end = spatial("pads_end", pads_end_v, rank, 0, false);
        const auto output_padding = spatial("output_padding", reader.list("output_padding"), rank, 0, false);
        const auto output_shape_v = reader.list("output_shape");
        const std::string auto_pad = reader.text("auto_pad").value_or("explicit");
        const std::int64_t groups = reader.integer("groups").value_or(1);
        reader.refuse_unknown_keys();
        for (const auto* v : {&strides, &dilations, &pads_begin, &pads_end, &output_padding}) require_in_range("attribute", *v);

        const std::string mode = auto_pad == "notset" || auto_pad == "none" ? "explicit" : auto_pad;
        if (mode != "explicit" && mode != "same_upper" && mode != "same_lower" && mode != "valid")
            refuse_ours("auto_pad", auto_pad, "must be explicit, same_upper, same_lower or valid");
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        for (int a = 0; a < rank; ++a) {
            if (strides[a] == 0)
                refuse("strides", join(strides), "Strides has zero dimension(s). " + strides_text(strides));
            if (dilations[a] == 0)
                refuse("dilations", join(dilations), "Filter dilations has zero dimension(s). " + strides_text(dilations));
        }
        for (auto v : strides)
            if (v < 0) refuse_ours("strides", join(strides), "Range of values: positive integers");
        for (auto v : dilations)
            if (v < 0) refuse_ours("dilations", join(dilations), "Range of values: positive integers");
        for (const auto* pads : {&pads_begin, &pads_end})
            for (auto v : *pads)
                if (v < 0)
                    refuse_ours(pads == &pads_begin ? "pads_begin" : "pads_end", join(*pads),
                                "Range of values: non-negative integers");
        for (auto v : output_padding)
            if (v < 0) refuse_ours("output_padding", join(output_padding), "Range of values: non-negative integer values");
        if (groups < 1) refuse_ours("groups", std::to_string(groups), "GROUPS (the filter's first dimension) must be >= 1");
        if (s.in_channels % groups != 0 || s.out_channels % groups != 0)
            refuse_ours("groups", std::to_string(groups),
                        "GroupConvolutionBackpropData's filter is [GROUPS, C_IN/GROUPS, C_OUT/GROUPS, ...]: c and o "
                        "must be multiples of groups");
        if (output_shape_v && static_cast<int>(output_shape_v->size()) != rank)
            refuse("output_shape", join(*output_shape_v), "Output shape should be defined for all and only spatial dimensions.");
        if (output_shape_v)
            for (auto v : *output_shape_v)
                if (v < 1) refuse_ours("output_shape", join(*output_shape_v), "every output size must be >= 1");

        TransposedResult r;
        r.dialect = "openvino_transpose";
        TransposedAxisAttributes g{strides, dilations, repeat(0, rank), repeat(0, rank), output_padding};
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            const std::int64_t K = (s.kernel_size[a] - 1) * dilations[a] + 1;
            const std::int64_t full = strides[a] * (s.input_size[a] - 1) + K + output_padding[a];
            if (output_shape_v) {
                out[a] = (*output_shape_v)[a];
                const std::int64_t total = full - out[a];
                const std::int64_t half = floor_div(total, 2);
                g.pads_begin[a] = mode == "same_upper" ? total - half : half;
                g.pads_end[a] = mode == "same_upper" ? half : total - half;
                if (total < 0)
                    r.notes.push_back("axis " + std::to_string(a) + ": output_shape " + std::to_string(out[a]) +
                                      " exceeds the full result " + std::to_string(full) + ": total_padding " +
                                      std::to_string(total) + " gives negative pads (zeros at the ends; OpenVINO's "
                                      "shape inference clamps it at 0)");
                continue;
            }
            if (mode == "explicit") {
                g.pads_begin[a] = pads_begin[a];
                g.pads_end[a] = pads_end[a];
            }
            out[a] = full - g.pads_begin[a] - g.pads_end[a];
            if (out[a] < 1)
                refuse_ours("pads_begin", join(pads_begin),
                            "the output size stride * (X - 1) + K - pads_begin - pads_end + output_padding = " +
                                std::to_string(out[a]) + " on axis " + std::to_string(a) + " must be >= 1");
        }
        if (output_shape_v && (pads_begin_v || pads_end_v))
            r.notes.push_back("output_shape given: pads_begin and pads_end are ignored (the spec; OpenVINO's shape "
                              "inference keeps explicit pads)");
        if (!output_shape_v && (mode == "same_upper" || mode == "same_lower"))
            r.notes.push_back("auto_pad " + mode + " without output_shape: \"if auto_pads != None: pads = 0\", not an "
                              "output of X * stride");
        r.data_layout = "NCX";
        r.filter_layout = groups > 1 ? "GIOX" : "IOX";
        r.descriptor = make_transposed(s, groups, g, DataFormat::ncx, FilterFormat::oix);
        return conclude_transposed(r, out, padding_request_named(mode));
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    if (t.has_bias) {
        *why_not = "ConvolutionBackpropData has no bias input (a bias is a separate Add)";
        return std::nullopt;
    }
    AttributeSet a = spell_shapes(t);
    a["strides"] = join(t.strides, t.rank);
    a["dilations"] = join(t.dilations, t.rank);
    a["output_padding"] = join(t.output_padding, t.rank);
    if (t.groups != 1) a["groups"] = std::to_string(t.groups);
    bool negative = false;
    for (int i = 0; i < t.rank; ++i) negative = negative || t.pads_begin[i] < 0 || t.pads_end[i] < 0;
    if (!negative) {
        a["pads_begin"] = join(t.pads_begin, t.rank);
        a["pads_end"] = join(t.pads_end, t.rank);
        return a;
    }
    // a negative pad: only output_shape says it, with total_padding = pads_begin + pads_end split by a fixed
    // rule (explicit and same_lower: the odd unit at the end; same_upper: at the beginning)
    const OutputShapeSplit split = output_shape_split(t);
    if (!split.begin_is_floor_half && !split.begin_is_ceil_half) {
        *why_not = "OpenVINO pads are >= 0, and output_shape splits a negative total padding by a fixed rule that "
                   "gives other pads";
        return std::nullopt;
    }
    if (!split.begin_is_floor_half) a["auto_pad"] = "same_upper";
    a["output_shape"] = join(split.output_shape);
    return a;
}

}  // namespace convcheck::reference::dialects::openvino
