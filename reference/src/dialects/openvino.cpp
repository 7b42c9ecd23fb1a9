// OpenVINO Convolution-1 (see openvino.hpp).
#include "convcheck/reference/dialects/openvino.hpp"

#include <algorithm>

#include "common.hpp"
#include "openvino_words.hpp"

namespace convcheck::reference::dialects::openvino {

using namespace dialects::detail;
using namespace openvino::detail;

DialectResult convolution(const ConvolutionAttributes& attr) {
    return guarded("openvino", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.strides, &attr.pads_begin, &attr.pads_end, &attr.dilations}) require_in_range("attribute", *v);
        require_in_range("groups", attr.groups);
        const int rank = s.rank();
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        const std::string mode = attr.auto_pad == "none" || attr.auto_pad == "notset" ? "explicit" : attr.auto_pad;
        if (mode != "explicit" && mode != "same_upper" && mode != "same_lower" && mode != "valid")
            refuse_ours("auto_pad", attr.auto_pad, "must be explicit, same_upper, same_lower or valid");
        auto required = [&](const char* name, const std::vector<std::int64_t>& v) {
            if (v.empty()) refuse_ours(name, "(missing)", "the attribute is required (seed 001: \"Required: yes\")");
            if (static_cast<int>(v.size()) != rank)
                refuse_ours(name, join(v), "needs one value per spatial axis (" + std::to_string(rank) + ")");
        };
        required("strides", attr.strides);
        required("pads_begin", attr.pads_begin);
        required("pads_end", attr.pads_end);
        required("dilations", attr.dilations);
        for (int a = 0; a < rank; ++a) {
            if (attr.strides[a] == 0)
                refuse("strides", join(attr.strides),
                       "Window strides (" + strides_text(attr.strides) + ") has zero dimension at axis " +
                           std::to_string(a) + ".");
            if (attr.dilations[a] == 0)
                refuse("dilations", join(attr.dilations),
                       "Window dilation (" + strides_text(attr.dilations) + ") has zero dimension at axis " +
                           std::to_string(a) + ".");
        }
        for (auto v : attr.strides)
            if (v < 0) refuse_ours("strides", join(attr.strides), "Range of values: positive s64 values");
        for (auto v : attr.dilations)
            if (v < 0) refuse_ours("dilations", join(attr.dilations), "Range of values: positive s64 values");
        for (auto* pads : {&attr.pads_begin, &attr.pads_end})
            for (auto v : *pads)
                if (v < 0)
                    refuse_ours(pads == &attr.pads_begin ? "pads_begin" : "pads_end", join(*pads),
                                "Range of values: non-negative s64 values");
        if (attr.data_format != "NXC" && attr.data_format != "NCX")
            refuse_ours("data_format", attr.data_format, "Range of values: NXC or NCX");
        if (attr.filter_format != "XIO" && attr.filter_format != "OIX")
            refuse_ours("filter_format", attr.filter_format, "Range of values: XIO or OIX");

        AxisAttributes g{attr.strides, attr.dilations, repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            const std::int64_t in = s.input_size[a], st = attr.strides[a];
            const std::int64_t K = (s.kernel_size[a] - 1) * attr.dilations[a] + 1;
            if (mode == "same_upper" || mode == "same_lower") {
                out[a] = ceil_div(in, st);
                const std::int64_t t = std::max<std::int64_t>(0, (out[a] - 1) * st + K - in);
                g.pads_begin[a] = mode == "same_upper" ? t / 2 : t - t / 2;
                g.pads_end[a] = t - g.pads_begin[a];
                continue;
            }
            if (mode == "explicit") {  // "the attribute is ignored when auto_pad attribute is specified"
                g.pads_begin[a] = attr.pads_begin[a];
                g.pads_end[a] = attr.pads_end[a];
            }
            const std::int64_t padded = g.pads_begin[a] + g.pads_end[a] + in;
            if (K > padded)
                refuse("k", join(s.kernel_size),
                       "Window after dilation has dimension (dim: " + std::to_string(K) +
                           ") larger than the data shape after padding (dim: " + std::to_string(padded) +
                           ") at axis " + std::to_string(a) + ".");
            // floor((p_b + p_e + X_I - d(X_K - 1) - 1) / s) + 1
            out[a] = floor_div(padded - attr.dilations[a] * (s.kernel_size[a] - 1) - 1, st) + 1;
        }
        DialectResult r;
        r.dialect = "openvino";
        r.data_layout = attr.data_format;
        r.filter_layout = attr.filter_format;
        const DataFormat df = attr.data_format == "NXC" ? DataFormat::nxc : DataFormat::ncx;
        const FilterFormat ff = attr.filter_format == "XIO" ? FilterFormat::xio : FilterFormat::oix;
        r.descriptor = make_descriptor(s, attr.groups, g, df, ff);
        const PaddingRequest request = mode == "same_upper"   ? PaddingRequest::same_upper
                                       : mode == "same_lower" ? PaddingRequest::same_lower
                                       : mode == "valid"      ? PaddingRequest::valid
                                                              : PaddingRequest::explicit_pads;
        r.request = make_request(s, attr.groups, g, request, df);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("openvino", [&] {
        Reader reader(attributes, "openvino");
        ConvolutionAttributes a;
        a.shapes = read_shapes(reader, true);
        const std::vector<std::int64_t> none;
        a.strides = reader.list("strides").value_or(none);
        a.pads_begin = reader.list("pads_begin").value_or(none);
        a.pads_end = reader.list("pads_end").value_or(none);
        a.dilations = reader.list("dilations").value_or(none);
        a.auto_pad = reader.text("auto_pad").value_or("explicit");
        a.groups = reader.integer("groups").value_or(1);
        a.data_format = reader.text("data_format").value_or("NXC");
        a.filter_format = reader.text("filter_format").value_or("XIO");
        reader.refuse_unknown_keys();
        return convolution(a);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "OpenVINO Convolution-1", why_not)) return std::nullopt;
    AttributeSet a = spell_shapes(q);
    a["strides"] = join(q.strides, q.rank);
    a["dilations"] = join(q.dilations, q.rank);
    a["pads_begin"] = join(q.pads_begin, q.rank);
    a["pads_end"] = join(q.pads_end, q.rank);
    a["groups"] = std::to_string(q.groups);
    a["data_format"] = q.data_format == DataFormat::nxc ? "NXC" : "NCX";
    a["filter_format"] = q.filter_format == FilterFormat::xio ? "XIO" : "OIX";
    a["auto_pad"] = q.padding == PaddingRequest::explicit_pads ? "explicit" : std::string(to_string(q.padding));
    return a;
}

}  // namespace convcheck::reference::dialects::openvino
