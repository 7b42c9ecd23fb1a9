// oneDNN: the convolution primitive and the Graph Convolution op (see onednn.hpp).
#include "convcheck/reference/dialects/onednn.hpp"

#include <algorithm>

#include "common.hpp"
#include "onednn_words.hpp"

namespace convcheck::reference::dialects::onednn {

using namespace dialects::detail;
using namespace onednn::detail;

namespace detail {

std::vector<std::int64_t> per_axis(const char* name, const std::vector<std::int64_t>& v, int rank,
                                   std::int64_t fallback) {
    if (v.empty()) return repeat(fallback, rank);
    if (static_cast<int>(v.size()) != rank)
        refuse_ours(name, join(v), "needs one value per spatial axis (" + std::to_string(rank) + ")");
    return v;
}

DataFormat data_format_of(const std::string& attribute, const std::string& v) {
    if (v == "NCX") return DataFormat::ncx;
    if (v == "NXC") return DataFormat::nxc;
    refuse_ours(attribute, v, "must be NCX or NXC");
}
FilterFormat filter_format_of(const std::string& attribute, const std::string& v) {
    if (v == "OIX") return FilterFormat::oix;
    if (v == "XIO") return FilterFormat::xio;
    refuse_ours(attribute, v, "must be OIX or XIO");
}

}  // namespace detail

namespace {

// Both APIs compute dst = (src - ker_range + pb + pe) / s + 1 with C division. Where the numerator
// is in (-s, 0) that is 1 although no window fits: the window overhangs the padded input by
// `deficit` and reads zeros there, which the canonical descriptor spells as a larger pads_end.
void read_truncated_output(DialectResult* r, AxisAttributes* g, const ConvShapes& s, const std::vector<std::int64_t>& K,
                           std::vector<std::int64_t>* out) {
    for (int a = 0; a < s.rank(); ++a) {
        const std::int64_t numerator = s.input_size[a] - K[a] + g->pads_begin[a] + g->pads_end[a];
        (*out)[a] = trunc_div(numerator, g->strides[a]) + 1;
        if ((*out)[a] < 0)
            refuse_ours("k", join(s.kernel_size),
                        "the dst size (src - ker_range + pad_l + pad_r) / stride + 1 = " + std::to_string((*out)[a]) +
                            " on axis " + std::to_string(a) + " is negative: no dst memory can have it");
        if (numerator < 0 && (*out)[a] == 1) {
            g->pads_end[a] -= numerator;
            r->notes.push_back("axis " + std::to_string(a) + ": C division gives dst = 1 although the window (" +
                               std::to_string(K[a]) + ") overhangs the padded input by " +
                               std::to_string(-numerator) + "; read as pads_end + " + std::to_string(-numerator) +
                               " (zeros)");
        }
    }
}

AttributeSet shape_keys(const Request& q) {
    AttributeSet a = spell_shapes(q);
    a["strides"] = join(q.strides, q.rank);
    a["groups"] = std::to_string(q.groups);
    a["data_format"] = q.data_format == DataFormat::nxc ? "NXC" : "NCX";
    a["weights_format"] = q.filter_format == FilterFormat::xio ? "XIO" : "OIX";
    return a;
}

}  // namespace

DialectResult convolution_primitive(const PrimitiveAttributes& attr) {
    return guarded("onednn", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.strides, &attr.dilates, &attr.padding_l, &attr.padding_r}) require_in_range("attribute", *v);
        require_in_range("groups", attr.groups);
        const int rank = s.rank();
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        const auto strides = per_axis("strides", attr.strides, rank, 1);
        const auto dilates = per_axis("dilates", attr.dilates, rank, 0);
        const auto padding_l = per_axis("padding_l", attr.padding_l, rank, 0);
        const auto padding_r = per_axis("padding_r", attr.padding_r, rank, 0);
        const DataFormat df = data_format_of("data_format", attr.data_format);
        const FilterFormat ff = filter_format_of("weights_format", attr.weights_format);
        for (int a = 0; a < rank; ++a) {
            if (strides[a] < 1)
                refuse("strides", join(strides), "invalid_arguments: bad dimension strides:" + std::to_string(a));
            // VCHECK_CONV(dil >= 0 && pad_l >= 0 && pad_r + str > 0, VERBOSE_INCONSISTENT_PRB)
            if (dilates[a] < 0 || padding_l[a] < 0 || padding_r[a] + strides[a] <= 0) {
                const char* which = dilates[a] < 0 ? "dilates" : padding_l[a] < 0 ? "padding_l" : "padding_r";
                const auto& v = dilates[a] < 0 ? dilates : padding_l[a] < 0 ? padding_l : padding_r;
                refuse(which, join(v),
                       "invalid_arguments: problem is not mathematically consistent (needs dilates >= 0, "
                       "padding_l >= 0 and padding_r + strides > 0 on axis " + std::to_string(a) + ")");
            }
        }
        std::vector<std::int64_t> dilations(rank), K(rank);
        for (int a = 0; a < rank; ++a) {
            dilations[a] = dilates[a] + 1;                       // 0-based -> 1-based
            K[a] = 1 + (s.kernel_size[a] - 1) * (dilates[a] + 1);  // ker_range
        }
        DialectResult r;
        r.dialect = "onednn";
        AxisAttributes g{strides, dilations, padding_l, padding_r};
        r.request = make_request(s, attr.groups, g, PaddingRequest::explicit_pads, df);
        std::vector<std::int64_t> out(rank);
        read_truncated_output(&r, &g, s, K, &out);
        r.data_layout = attr.data_format;
        r.filter_layout = attr.weights_format;
        r.descriptor = make_descriptor(s, attr.groups, g, df, ff);
        return conclude(r, out);
    });
}

DialectResult read_primitive(const AttributeSet& attributes) {
    return guarded("onednn", [&] {
        Reader reader(attributes, "onednn");
        PrimitiveAttributes a;
        a.shapes = read_shapes(reader, true);
        const std::vector<std::int64_t> none;
        a.strides = reader.list("strides").value_or(none);
        a.dilates = reader.list("dilates").value_or(none);
        a.padding_l = reader.list("padding_l").value_or(none);
        a.padding_r = reader.list("padding_r").value_or(none);
        a.groups = reader.integer("groups").value_or(1);
        a.data_format = reader.text("data_format").value_or("NCX");
        a.weights_format = reader.text("weights_format").value_or("OIX");
        reader.refuse_unknown_keys();
        return convolution_primitive(a);
    });
}

std::optional<AttributeSet> spell_primitive(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "oneDNN", why_not)) return std::nullopt;
    if (q.padding != PaddingRequest::explicit_pads && q.padding != PaddingRequest::valid) {
        *why_not = "the primitive API has no automatic padding: it takes padding_l / padding_r only";
        return std::nullopt;
    }
    AttributeSet a = shape_keys(q);
    std::vector<std::int64_t> dilates(q.rank);
    for (int i = 0; i < q.rank; ++i) dilates[i] = q.dilations[i] - 1;  // 1-based -> 0-based
    a["dilates"] = join(dilates);
    a["padding_l"] = join(q.pads_begin, q.rank);
    a["padding_r"] = join(q.pads_end, q.rank);
    return a;
}

namespace {

// The Graph library's infer_auto_pad for SAME_UPPER / SAME_LOWER on one axis (t the total pad).
//   v3.2 and later (commit 4029cdbda1, src/graph/interface/shape_infer.cpp): the dilated kernel
//     K = (k-1)*d + 1; t = K - s if in % s == 0, else K - in % s; t clamped at 0.
//     (t equals (ceil(in/s) - 1)*s + K - in: ONNX's total.)
//   before v3.2: dilation other than 1 is unsupported; t = (ceil(in/s) - 1)*s + k - in, not clamped.
// SAME_LOWER pb = (t+1)/2, SAME_UPPER pb = t/2 (C division) in both.
struct AutoPad {
    std::int64_t total = 0;
};
AutoPad same_total_pad(bool before_v3_2, std::int64_t in, std::int64_t stride, std::int64_t kernel,
                       std::int64_t dilation) {
    if (before_v3_2) {
        const std::int64_t legacy = (in + stride - 1) / stride;
        return {(legacy - 1) * stride + kernel - in};
    }
    const std::int64_t effective_kernel = (kernel - 1) * dilation + 1;
    const std::int64_t total = in % stride == 0 ? effective_kernel - stride : effective_kernel - in % stride;
    return {std::max<std::int64_t>(0, total)};
}

}  // namespace

DialectResult graph_convolution(const GraphAttributes& attr) {
    const std::string name = attr.before_v3_2 ? "onednn_graph@<3.2" : "onednn_graph";
    return guarded(name, [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.strides, &attr.pads_begin, &attr.pads_end, &attr.dilations}) require_in_range("attribute", *v);
        require_in_range("groups", attr.groups);
        const int rank = s.rank();
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        auto required = [&](const char* name, const std::vector<std::int64_t>& v) {
            if (v.empty()) refuse_ours(name, "(missing)", "the attribute is required (seed 002: \"Required\")");
            if (static_cast<int>(v.size()) != rank)
                refuse_ours(name, join(v), "needs one value per spatial axis (" + std::to_string(rank) + ")");
        };
        required("strides", attr.strides);
        required("pads_begin", attr.pads_begin);
        required("pads_end", attr.pads_end);
        required("dilations", attr.dilations);
        // "None" is the schema's default; v3.2's infer_auto_pad also takes "NONE" (explicit pads)
        const std::string& mode = attr.auto_pad;
        const bool explicit_pads = mode == "None" || (!attr.before_v3_2 && mode == "NONE");
        if (!explicit_pads && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID")
            refuse("auto_pad", mode,
                   attr.before_v3_2 ? "invalid_arguments: auto_pad must be None, SAME_UPPER, SAME_LOWER or VALID"
                                    : "Convolution, auto padding attribute can only be set to the following values: "
                                      "VALID, SAME_UPPER, SAME_LOWER, NONE. given value: " + mode);
        for (auto v : attr.strides)
            if (v < 1) refuse_ours("strides", join(attr.strides), "A s64 list containing positive values");
        for (auto v : attr.dilations)
            if (v < 1) refuse_ours("dilations", join(attr.dilations), "A s64 list containing positive values");
        for (auto* pads : {&attr.pads_begin, &attr.pads_end})
            for (auto v : *pads)
                if (v < 0)
                    refuse_ours(pads == &attr.pads_begin ? "pads_begin" : "pads_end", join(*pads),
                                "A s64 list containing non-negative values");
        const DataFormat df = data_format_of("data_format", attr.data_format);
        const FilterFormat ff = filter_format_of("weights_format", attr.weights_format);

        DialectResult r;
        r.dialect = name;
        AxisAttributes g{attr.strides, attr.dilations, attr.pads_begin, attr.pads_end};
        std::vector<std::int64_t> K(rank);
        for (int a = 0; a < rank; ++a) K[a] = (s.kernel_size[a] - 1) * attr.dilations[a] + 1;
        for (int a = 0; a < rank; ++a) {
            if (mode == "VALID") g.pads_begin[a] = g.pads_end[a] = 0;
            if (mode != "SAME_UPPER" && mode != "SAME_LOWER") continue;
            if (attr.before_v3_2 && attr.dilations[a] != 1)
                refuse("dilations", join(attr.dilations),
                       "unimplemented: infer_auto_pad supports SAME_UPPER / SAME_LOWER only with dilation 1 "
                       "(before v3.2)");
            const AutoPad t = same_total_pad(attr.before_v3_2, s.input_size[a], attr.strides[a], s.kernel_size[a],
                                             attr.dilations[a]);
            g.pads_begin[a] = mode == "SAME_LOWER" ? trunc_div(t.total + 1, 2) : trunc_div(t.total, 2);
            g.pads_end[a] = t.total - g.pads_begin[a];
            if (t.total < 0)
                r.notes.push_back("axis " + std::to_string(a) + ": the auto pad " + std::to_string(t.total) +
                                  " is negative (Graph before v3.2 does not clamp it at 0): pads_end crops " +
                                  std::to_string(-g.pads_end[a]) + " element(s) no window reads");
        }
        const PaddingRequest request = mode == "SAME_UPPER"   ? PaddingRequest::same_upper
                                       : mode == "SAME_LOWER" ? PaddingRequest::same_lower
                                       : mode == "VALID"      ? PaddingRequest::valid
                                                              : PaddingRequest::explicit_pads;
        r.request = make_request(s, attr.groups, g, request, df);
        std::vector<std::int64_t> out(rank);
        read_truncated_output(&r, &g, s, K, &out);
        r.data_layout = attr.data_format;
        r.filter_layout = attr.weights_format;
        r.descriptor = make_descriptor(s, attr.groups, g, df, ff);
        return conclude(r, out);
    });
}

namespace {
DialectResult read_graph_version(const AttributeSet& attributes, bool before_v3_2) {
    const std::string name = before_v3_2 ? "onednn_graph@<3.2" : "onednn_graph";
    return guarded(name, [&] {
        Reader reader(attributes, name);
        GraphAttributes a;
        a.shapes = read_shapes(reader, true);
        const std::vector<std::int64_t> none;
        a.strides = reader.list("strides").value_or(none);
        a.pads_begin = reader.list("pads_begin").value_or(none);
        a.pads_end = reader.list("pads_end").value_or(none);
        a.dilations = reader.list("dilations").value_or(none);
        a.auto_pad = reader.text("auto_pad").value_or("None");
        a.groups = reader.integer("groups").value_or(1);
        a.data_format = reader.text("data_format").value_or("NXC");
        a.weights_format = reader.text("weights_format").value_or("XIO");
        a.before_v3_2 = before_v3_2;
        reader.refuse_unknown_keys();
        return graph_convolution(a);
    });
}
}  // namespace

DialectResult read_graph(const AttributeSet& attributes) { return read_graph_version(attributes, false); }
DialectResult read_graph_before_v3_2(const AttributeSet& attributes) { return read_graph_version(attributes, true); }

std::optional<AttributeSet> spell_graph(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "oneDNN Graph", why_not)) return std::nullopt;
    AttributeSet a = shape_keys(q);
    a["dilations"] = join(q.dilations, q.rank);
    a["pads_begin"] = join(q.pads_begin, q.rank);
    a["pads_end"] = join(q.pads_end, q.rank);
    switch (q.padding) {
        case PaddingRequest::explicit_pads: a["auto_pad"] = "None"; break;
        case PaddingRequest::valid: a["auto_pad"] = "VALID"; break;
        case PaddingRequest::same_upper: a["auto_pad"] = "SAME_UPPER"; break;
        case PaddingRequest::same_lower: a["auto_pad"] = "SAME_LOWER"; break;
    }
    return a;
}

}  // namespace convcheck::reference::dialects::onednn
