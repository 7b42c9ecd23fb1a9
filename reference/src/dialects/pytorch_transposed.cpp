// PyTorch nn.ConvTranspose{1,2,3}d and F.conv_transpose{1,2,3}d (PyTorch 1.13, measured with
// python3-torch; docs/errata.md "Transposed convolution"), read literally:
//   out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1
//   weights [in_channels, out_channels / groups, k...] (the canonical IOX = the forward's OIX), data NCX.
// The module's constructor checks groups and padding_mode; forward(input, output_size) turns
// output_size into output_padding (torch/nn/modules/conv.py, _output_padding): the sizes from
// min = out(output_padding = 0) to min + stride - 1 are accepted, output_padding = size - min.
// ATen then checks, in this order (measured): negative padding, negative output_padding, non-positive
// stride, dilation > 0, "output padding must be smaller than either stride or dilation" (per axis),
// and an output size >= 1. ATen computes a 1-D transposed convolution as 2-D with a unit height, so its
// messages for rank 1 name a height axis of size 1: they are reproduced so.
#include <algorithm>
#include <cctype>

#include "pytorch_words.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::pytorch {

using namespace dialects::detail;
using namespace pytorch::detail;

namespace {

// ATen's axes for the messages: rank 1 is computed as 2-D with a unit height axis.
struct AtenAxes {
    std::vector<std::string> names;
    int unit = 0;  // leading unit axes added (1 for rank 1)
};
AtenAxes aten_axes(int rank) {
    if (rank == 3) return {{"depth", "height", "width"}, 0};
    return {{"height", "width"}, rank == 1 ? 1 : 0};
}
std::vector<std::int64_t> with_unit(const std::vector<std::int64_t>& v, const AtenAxes& axes, std::int64_t unit) {
    std::vector<std::int64_t> out(axes.unit, unit);
    out.insert(out.end(), v.begin(), v.end());
    return out;
}
// "stride_height: 1 stride_width: 2" (separator " ") or "dilation_height: 1, dilation_width: 0" (", ")
std::string named(const std::string& prefix, const std::vector<std::int64_t>& v, const AtenAxes& axes,
                  const char* separator) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? separator : "") + prefix + "_" + axes.names[i] + ": " + std::to_string(v[i]);
    return s;
}

}  // namespace

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("pytorch_transpose", [&] {
        Reader reader(attributes, "pytorch_transpose");
        const ConvShapes s = read_module_shapes(reader, attributes);
        const std::vector<std::int64_t> none;
        auto stride_v = reader.list("stride").value_or(none);
        auto dilation_v = reader.list("dilation").value_or(none);
        auto output_padding_v = reader.list("output_padding").value_or(none);
        std::vector<std::int64_t> padding_v;
        std::string padding_string;
        if (auto p = reader.text("padding")) {
            if (!p->empty() && std::isalpha(static_cast<unsigned char>((*p)[0])) != 0) padding_string = *p;
            else padding_v = *reader.list("padding");
        }
        const std::int64_t groups = reader.integer("groups").value_or(1);
        const bool bias = reader.boolean("bias").value_or(false);
        const std::string padding_mode = reader.text("padding_mode").value_or("zeros");
        const auto output_size = reader.list("output_size");
        reader.refuse_unknown_keys();

        const int rank = s.rank();
        const std::string module = "ConvTranspose" + std::to_string(rank) + "d";
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", "(missing)", "one kernel size per axis");
        // the module's constructor (torch/nn/modules/conv.py, _ConvNd.__init__)
        if (groups <= 0) refuse("groups", std::to_string(groups), "groups must be a positive integer");
        if (s.in_channels % groups != 0) refuse("groups", std::to_string(groups), "in_channels must be divisible by groups");
        if (s.out_channels % groups != 0) refuse("groups", std::to_string(groups), "out_channels must be divisible by groups");
        if (padding_mode != "zeros")
            refuse("padding_mode", padding_mode, "Only \"zeros\" padding mode is supported for " + module);
        // The constructor keeps padding='same' as the tuple ('s', 'a', 'm', 'e'); forward then fails:
        if (!padding_string.empty())
            refuse("padding", padding_string,
                   "conv_transpose" + std::to_string(rank) + "d(): argument 'padding' (position 5) must be tuple of ints, not tuple");
        const auto stride = expand("stride", stride_v, rank, 1);
        const auto padding = expand("padding", padding_v, rank, 0);
        const auto dilation = expand("dilation", dilation_v, rank, 1);
        auto output_padding = expand("output_padding", output_padding_v, rank, 0);

        TransposedResult r;
        r.dialect = "pytorch_transpose";
        if (output_size) {  // the module's _output_padding
            std::vector<std::int64_t> size = *output_size;
            if (static_cast<int>(size.size()) == rank + 2) size.erase(size.begin(), size.begin() + 2);
            if (static_cast<int>(size.size()) != rank)
                refuse("output_size", join(*output_size),
                       "ConvTranspose" + std::to_string(rank) + "D: for " + std::to_string(rank + 2) +
                           "D input, output_size must have " + std::to_string(rank) + " or " + std::to_string(rank + 2) +
                           " elements (got " + std::to_string(output_size->size()) + ")");
            std::vector<std::int64_t> min(rank), max(rank);
            for (int a = 0; a < rank; ++a) {
                min[a] = (s.input_size[a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (s.kernel_size[a] - 1) + 1;
                max[a] = min[a] + stride[a] - 1;
            }
            for (int a = 0; a < rank; ++a)
                if (size[a] < min[a] || size[a] > max[a])
                    refuse("output_size", join(*output_size),
                           "requested an output size of " + python_list(size) + ", but valid sizes range from " +
                               python_list(min) + " to " + python_list(max) + " (for an input of torch.Size(" +
                               python_list(s.input_size) + "))");
            if (!output_padding_v.empty())
                r.notes.push_back("output_size given: the module computes output_padding from it and ignores output_padding=" +
                                  join(output_padding_v));
            for (int a = 0; a < rank; ++a) output_padding[a] = size[a] - min[a];
        }
        // ATen (aten/src/ATen/native/Convolution.cpp and the slow_conv_transpose shape check), measured order
        const AtenAxes axes = aten_axes(rank);
        if (std::any_of(padding.begin(), padding.end(), [](auto v) { return v < 0; }))
            refuse("padding", join(padding), "negative padding is not supported");
        if (std::any_of(output_padding.begin(), output_padding.end(), [](auto v) { return v < 0; }))
            refuse("output_padding", join(output_padding), "negative output_padding is not supported");
        if (std::any_of(stride.begin(), stride.end(), [](auto v) { return v <= 0; }))
            refuse("stride", join(stride), "non-positive stride is not supported");
        if (std::any_of(dilation.begin(), dilation.end(), [](auto v) { return v <= 0; }))
            refuse("dilation", join(dilation),
                   "dilation should be greater than zero, but got " + named("dilation", with_unit(dilation, axes, 1), axes, ", "));
        for (int a = 0; a < rank; ++a)
            if (output_padding[a] >= stride[a] && output_padding[a] >= dilation[a])
                refuse("output_padding", join(output_padding),
                       "output padding must be smaller than either stride or dilation, but got " +
                           named("output_padding", with_unit(output_padding, axes, 0), axes, " ") + " " +
                           named("stride", with_unit(stride, axes, 1), axes, " ") + " " +
                           named("dilation", with_unit(dilation, axes, 1), axes, " "));
        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a)
            out[a] = (s.input_size[a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (s.kernel_size[a] - 1) +
                     output_padding[a] + 1;
        if (std::any_of(out.begin(), out.end(), [](auto v) { return v < 1; }))
            refuse("padding", join(padding),
                   "Given input size per channel: (" + times(with_unit(s.input_size, axes, 1)) +
                       "). Calculated output size per channel: (" + times(with_unit(out, axes, 1)) +
                       "). Output size is too small");
        r.data_layout = "NCX";
        r.filter_layout = "IOX";
        r.descriptor = make_transposed(s, groups, {stride, dilation, padding, padding, output_padding}, DataFormat::ncx,
                                       FilterFormat::oix);
        r.descriptor.has_bias = bias;
        return conclude_transposed(r, out, PaddingRequest::explicit_pads);
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    std::vector<std::int64_t> padding, output_padding;
    for (int a = 0; a < t.rank; ++a) {
        // symmetric padding p = pads_begin; the end is then p - output_padding': output_padding' = op + pb - pe
        padding.push_back(t.pads_begin[a]);
        output_padding.push_back(t.output_padding[a] + t.pads_begin[a] - t.pads_end[a]);
        if (output_padding.back() < 0) {
            *why_not = "PyTorch's padding is symmetric and output_padding only adds at the end: pads_end > pads_begin + "
                       "output_padding (axis " + std::to_string(a) + ") needs a crop after the op";
            return std::nullopt;
        }
    }
    AttributeSet a = spell_shapes(t);
    a["stride"] = join(t.strides, t.rank);
    a["dilation"] = join(t.dilations, t.rank);
    a["groups"] = std::to_string(t.groups);
    a["padding"] = join(padding);
    a["output_padding"] = join(output_padding);
    if (t.has_bias) a["bias"] = "true";
    return a;
}

}  // namespace convcheck::reference::dialects::pytorch
