// ONNX Conv (see onnx.hpp for the formulas).
#include "convcheck/reference/dialects/onnx.hpp"

#include <algorithm>

#include "common.hpp"
#include "onnx_words.hpp"

namespace convcheck::reference::dialects::onnx {

using namespace dialects::detail;
using namespace onnx::detail;

namespace detail {
std::vector<std::int64_t> per_axis(const std::string& name, const std::vector<std::int64_t>& v, int rank,
                                   std::int64_t fallback) {
    if (v.empty()) return repeat(fallback, rank);
    if (static_cast<int>(v.size()) != rank) refuse(name, join(v), "Attribute " + name + " has incorrect length");
    return v;
}

std::vector<std::int64_t> pads_list(const SpatialDims& begin, const SpatialDims& end, int rank) {
    std::vector<std::int64_t> p(begin.begin(), begin.begin() + rank);
    p.insert(p.end(), end.begin(), end.begin() + rank);
    return p;
}
}  // namespace detail

DialectResult conv(const ConvAttributes& attr) {
    return guarded("onnx", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.pads, &attr.strides, &attr.dilations, &attr.kernel_shape}) require_in_range("attribute", *v);
        require_in_range("group", attr.group);
        const int rank = s.rank();
        const std::string& mode = attr.auto_pad;
        if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID")
            refuse_ours("auto_pad", mode, "must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
        if (!attr.kernel_shape.empty()) {
            if (static_cast<int>(attr.kernel_shape.size()) != rank)
                refuse("kernel_shape", join(attr.kernel_shape), "Attribute kernel_shape has incorrect length");
            if (!s.kernel_size.empty() && attr.kernel_shape != s.kernel_size)
                refuse_ours("kernel_shape", join(attr.kernel_shape),
                            "disagrees with the spatial shape of W (k=" + join(s.kernel_size) + ")");
        }
        ConvShapes shapes = s;
        if (shapes.kernel_size.empty()) shapes.kernel_size = attr.kernel_shape;
        if (static_cast<int>(shapes.kernel_size.size()) != rank)
            refuse_ours("k", "(missing)", "give k= (W's spatial shape) or kernel_shape=");
        const auto strides = per_axis("strides", attr.strides, rank, 1);
        const auto dilations = per_axis("dilations", attr.dilations, rank, 1);
        if (mode != "NOTSET" && !attr.pads.empty())
            refuse("pads", join(attr.pads), "This attribute cannot be used simultaneously with auto_pad attribute.");
        const auto pads = attr.pads.empty() ? repeat(0, 2 * rank) : attr.pads;
        if (static_cast<int>(pads.size()) != 2 * rank) refuse("pads", join(pads), "Attribute pads has incorrect length");
        for (auto p : pads)
            if (p < 0) refuse_ours("pads", join(pads), "the spec requires every pad to be >= 0");
        for (auto v : strides)
            if (v < 1) refuse_ours("strides", join(strides), "every stride must be >= 1");
        for (auto v : dilations)
            if (v < 1) refuse_ours("dilations", join(dilations), "every dilation must be >= 1");

        AxisAttributes g{strides, dilations, repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank), overhang(rank, 0);
        for (int a = 0; a < rank; ++a) {
            const std::int64_t in = shapes.input_size[a], st = strides[a];
            const std::int64_t K = (shapes.kernel_size[a] - 1) * dilations[a] + 1;
            if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
                // "pad the input so that output_shape[i] = ceil(input_shape[i] / strides[i])"
                out[a] = ceil_div(in, st);
                const std::int64_t t = std::max<std::int64_t>(0, (out[a] - 1) * st + K - in);
                g.pads_begin[a] = mode == "SAME_UPPER" ? t / 2 : t - t / 2;
                g.pads_end[a] = t - g.pads_begin[a];
            } else {
                if (mode == "NOTSET") {
                    g.pads_begin[a] = pads[a];
                    g.pads_end[a] = pads[rank + a];
                }
                // ONNX's shape inference (onnx/defs/nn/defs.cc, convPoolShapeInference, onnx 1.12):
                // strided_kernel_positions = (in + pb + pe - K) / s with C division, out = 1 + that.
                // A numerator in (-s, 0) gives 1: the window overhangs the padded input and reads
                // zeros there (read as a larger pads_end); -s gives 0, an empty tensor; below -s the
                // inferred size is negative, which no tensor has.
                const std::int64_t numerator = in + g.pads_begin[a] + g.pads_end[a] - K;
                out[a] = trunc_div(numerator, st) + 1;
                if (out[a] < 0)
                    refuse_ours("k", join(shapes.kernel_size),
                                "shape inference gives a negative output size " + std::to_string(out[a]) +
                                    " on axis " + std::to_string(a) + " ((in + pads - K) / s + 1, C division)");
                if (numerator < 0 && out[a] == 1) {
                    overhang[a] = -numerator;
                }
            }
        }
        DialectResult r;
        r.dialect = "onnx";
        r.data_layout = "NCX";
        r.filter_layout = "OIX";
        const PaddingRequest request = mode == "SAME_UPPER"   ? PaddingRequest::same_upper
                                       : mode == "SAME_LOWER" ? PaddingRequest::same_lower
                                       : mode == "VALID"      ? PaddingRequest::valid
                                                              : PaddingRequest::explicit_pads;
        r.request = make_request(shapes, attr.group, g, request, DataFormat::ncx);
        for (int a = 0; a < rank; ++a) {
            if (overhang[a] == 0) continue;
            g.pads_end[a] += overhang[a];
            r.notes.push_back("axis " + std::to_string(a) + ": shape inference gives 1 although the window overhangs "
                              "the padded input by " + std::to_string(overhang[a]) + " (C division); read as pads_end + " +
                              std::to_string(overhang[a]) + " (zeros)");
        }
        r.descriptor = make_descriptor(shapes, attr.group, g, DataFormat::ncx, FilterFormat::oix);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("onnx", [&] {
        Reader reader(attributes, "onnx");
        ConvAttributes a;
        a.shapes = read_shapes(reader, false);
        a.auto_pad = reader.text("auto_pad").value_or("NOTSET");
        a.pads = reader.list("pads").value_or(std::vector<std::int64_t>{});
        a.strides = reader.list("strides").value_or(std::vector<std::int64_t>{});
        a.dilations = reader.list("dilations").value_or(std::vector<std::int64_t>{});
        a.kernel_shape = reader.list("kernel_shape").value_or(std::vector<std::int64_t>{});
        a.group = reader.integer("group").value_or(1);
        reader.refuse_unknown_keys();
        return conv(a);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "ONNX Conv", why_not)) return std::nullopt;
    AttributeSet a = spell_shapes(q);
    a["strides"] = join(q.strides, q.rank);
    a["dilations"] = join(q.dilations, q.rank);
    a["group"] = std::to_string(q.groups);
    switch (q.padding) {
        case PaddingRequest::valid: a["auto_pad"] = "VALID"; break;
        case PaddingRequest::same_upper: a["auto_pad"] = "SAME_UPPER"; break;
        case PaddingRequest::same_lower: a["auto_pad"] = "SAME_LOWER"; break;
        case PaddingRequest::explicit_pads: a["pads"] = join(pads_list(q.pads_begin, q.pads_end, q.rank)); break;
    }
    return a;
}

}  // namespace convcheck::reference::dialects::onnx
