// PyTorch conv (see pytorch.hpp).
#include "convcheck/reference/dialects/pytorch.hpp"

#include <algorithm>
#include <cctype>

#include "common.hpp"
#include "pytorch_words.hpp"

namespace convcheck::reference::dialects::pytorch {

using namespace dialects::detail;
using namespace pytorch::detail;

namespace detail {
std::string python_list(const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

// "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions"
std::vector<std::int64_t> expand(const char* name, const std::vector<std::int64_t>& v, int rank, std::int64_t fallback) {
    if (v.empty()) return repeat(fallback, rank);
    if (v.size() == 1) return repeat(v[0], rank);
    if (static_cast<int>(v.size()) != rank)
        refuse(name, join(v),
               std::string("expected ") + name + " to be a single integer value or a list of " + std::to_string(rank) +
                   " values to match the convolution dimensions, but got " + name + "=" + python_list(v));
    return v;
}
std::string times(const std::vector<std::int64_t>& v) {  // "(2 x 4)" as ATen prints sizes
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
    return s;
}

ConvShapes read_module_shapes(Reader& reader, const AttributeSet& attributes) {
    if (attributes.count("kernel_size") && attributes.count("k"))
        refuse_ours("kernel_size", attributes.at("kernel_size"), "give k or kernel_size, not both");
    ConvShapes shapes = read_shapes(reader, false);
    if (auto ks = reader.list("kernel_size")) {
        if (ks->size() == 1) ks->assign(shapes.rank(), (*ks)[0]);
        shapes.kernel_size = *ks;
    }
    return shapes;
}

}  // namespace detail

DialectResult conv(const ConvAttributes& attr) {
    return guarded("pytorch", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.stride, &attr.padding, &attr.dilation}) require_in_range("attribute", *v);
        require_in_range("groups", attr.groups);
        const int rank = s.rank();
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        if (attr.padding_mode != "zeros")
            refuse_ours("padding_mode", attr.padding_mode,
                        "only padding_mode='zeros' is a convolution with zero padding (reflect/replicate/circular "
                        "are not read by this dialect)");
        const auto stride = expand("stride", attr.stride, rank, 1);
        const auto dilation = expand("dilation", attr.dilation, rank, 1);
        const std::string& mode = attr.padding_mode_string;
        if (!mode.empty() && mode != "same" && mode != "valid")
            refuse("padding", mode, "Invalid padding string '" + mode + "', should be one of {'valid', 'same'}");
        if (mode == "same" && std::any_of(stride.begin(), stride.end(), [](auto v) { return v != 1; }))
            refuse("padding", mode, "padding='same' is not supported for strided convolutions");
        if (attr.groups <= 0) refuse("groups", std::to_string(attr.groups), "non-positive groups is not supported");
        if (s.in_channels % attr.groups != 0)
            refuse("groups", std::to_string(attr.groups), "in_channels must be divisible by groups");
        if (s.out_channels % attr.groups != 0)
            refuse("groups", std::to_string(attr.groups), "out_channels must be divisible by groups");
        for (auto v : stride)
            if (v <= 0) refuse("stride", join(stride), "non-positive stride is not supported");
        for (auto v : dilation)
            if (v <= 0) refuse("dilation", join(dilation), "dilation should be greater than zero");

        AxisAttributes g{stride, dilation, repeat(0, rank), repeat(0, rank)};
        if (mode.empty()) {
            const auto padding = expand("padding", attr.padding, rank, 0);
            for (auto v : padding)
                if (v < 0) refuse("padding", join(padding), "negative padding is not supported");
            g.pads_begin = g.pads_end = padding;
        } else if (mode == "same") {
            for (int a = 0; a < rank; ++a) {
                const std::int64_t total = dilation[a] * (s.kernel_size[a] - 1);
                g.pads_begin[a] = total / 2;
                g.pads_end[a] = total - total / 2;  // the odd extra goes on the right (F.pad)
            }
        }
        std::vector<std::int64_t> padded(rank), K(rank), out(rank);
        for (int a = 0; a < rank; ++a) {
            padded[a] = s.input_size[a] + g.pads_begin[a] + g.pads_end[a];
            K[a] = dilation[a] * (s.kernel_size[a] - 1) + 1;
        }
        for (int a = 0; a < rank; ++a)
            if (padded[a] < K[a])
                refuse("k", join(s.kernel_size),
                       "Calculated padded input size per channel: (" + times(padded) + "). Kernel size: (" +
                           times(K) + "). Kernel size can't be greater than actual input size");
        for (int a = 0; a < rank; ++a) out[a] = floor_div(padded[a] - K[a], stride[a]) + 1;  // div_rtn
        DialectResult r;
        r.dialect = "pytorch";
        r.data_layout = "NCX";
        r.filter_layout = "OIX";
        r.descriptor = make_descriptor(s, attr.groups, g, DataFormat::ncx, FilterFormat::oix);
        const PaddingRequest request = mode == "same"    ? PaddingRequest::same_upper
                                       : mode == "valid" ? PaddingRequest::valid
                                                         : PaddingRequest::explicit_pads;
        r.request = make_request(s, attr.groups, g, request, DataFormat::ncx);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("pytorch", [&] {
        Reader reader(attributes, "pytorch");
        ConvAttributes a;
        a.shapes = read_module_shapes(reader, attributes);
        const std::vector<std::int64_t> none;
        a.stride = reader.list("stride").value_or(none);
        a.dilation = reader.list("dilation").value_or(none);
        if (auto p = reader.text("padding")) {
            if (!p->empty() && (std::isalpha(static_cast<unsigned char>((*p)[0])) != 0)) a.padding_mode_string = *p;
            else a.padding = *reader.list("padding");
        }
        a.groups = reader.integer("groups").value_or(1);
        a.padding_mode = reader.text("padding_mode").value_or("zeros");
        reader.refuse_unknown_keys();
        return conv(a);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "PyTorch conv", why_not)) return std::nullopt;
    AttributeSet a = spell_shapes(q);
    a["stride"] = join(q.strides, q.rank);
    a["dilation"] = join(q.dilations, q.rank);
    a["groups"] = std::to_string(q.groups);
    switch (q.padding) {
        case PaddingRequest::valid: a["padding"] = "valid"; break;
        case PaddingRequest::same_upper:
        case PaddingRequest::same_lower: a["padding"] = "same"; break;  // one 'same': the extra on the right
        case PaddingRequest::explicit_pads:
            for (int i = 0; i < q.rank; ++i)
                if (q.pads_begin[i] != q.pads_end[i]) {
                    *why_not = "PyTorch's padding is symmetric (pads_begin = pads_end); asymmetric pads need F.pad first";
                    return std::nullopt;
                }
            a["padding"] = join(q.pads_begin, q.rank);
            break;
    }
    return a;
}

}  // namespace convcheck::reference::dialects::pytorch
