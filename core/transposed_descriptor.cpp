// The transposed convolution's descriptor (see transposed_descriptor.hpp).
#include "convcheck/core/transposed_descriptor.hpp"

#include <map>

#include "convcheck/core/descriptor_unvalidated.hpp"

namespace convcheck {

bool TransposedDescriptor::operator==(const TransposedDescriptor& o) const {
    auto same = [&](const SpatialDims& a, const SpatialDims& b) {
        for (int i = 0; i < rank; ++i)
            if (a[i] != b[i]) return false;
        return true;
    };
    return rank == o.rank && batch == o.batch && in_channels == o.in_channels && out_channels == o.out_channels &&
           groups == o.groups && same(input_size, o.input_size) && same(kernel_size, o.kernel_size) &&
           same(strides, o.strides) && same(dilations, o.dilations) && same(pads_begin, o.pads_begin) &&
           same(pads_end, o.pads_end) && same(output_padding, o.output_padding) && has_bias == o.has_bias &&
           dtype == o.dtype && data_format == o.data_format && filter_format == o.filter_format;
}

std::int64_t TransposedDescriptor::dilated_kernel(int axis) const {
    return (kernel_size[axis] - 1) * dilations[axis] + 1;
}

std::int64_t TransposedDescriptor::output_size(int axis) const {
    return (input_size[axis] - 1) * strides[axis] - pads_begin[axis] - pads_end[axis] + dilated_kernel(axis) +
           output_padding[axis];
}

ConvDescriptor TransposedDescriptor::forward() const {
    ConvDescriptor d;
    d.rank = rank;
    d.batch = batch;
    d.in_channels = out_channels;
    d.out_channels = in_channels;
    d.groups = groups;
    for (int a = 0; a < kMaxSpatialRank; ++a) {
        const bool used = a < rank;
        d.input_size[a] = used ? output_size(a) : 1;
        d.kernel_size[a] = used ? kernel_size[a] : 1;
        d.strides[a] = used ? strides[a] : 1;
        d.dilations[a] = used ? dilations[a] : 1;
        d.pads_begin[a] = used ? pads_begin[a] : 0;
        d.pads_end[a] = used ? pads_end[a] - output_padding[a] : 0;
    }
    d.has_bias = false;
    d.dtype = dtype;
    d.data_format = data_format;
    d.filter_format = filter_format;
    return d;
}

std::vector<std::int64_t> TransposedDescriptor::src_dims() const { return forward().dst_dims(); }
std::vector<std::int64_t> TransposedDescriptor::dst_dims() const { return forward().src_dims(); }
std::int64_t TransposedDescriptor::src_elements() const { return forward().dst_elements(); }
std::int64_t TransposedDescriptor::weights_elements() const { return forward().weights_elements(); }
std::int64_t TransposedDescriptor::dst_elements() const { return forward().src_elements(); }

namespace {

std::string axis_attr(const char* name, int axis) { return std::string(name) + "[" + std::to_string(axis) + "]"; }

}  // namespace

void validate(const TransposedDescriptor& t) {
    if (t.rank < 1 || t.rank > kMaxSpatialRank)
        throw ConvError("rank", std::to_string(t.rank), "the spatial rank must be 1, 2 or 3");
    auto positive = [](const std::string& name, std::int64_t v) {
        if (v < 1) throw ConvError(name, std::to_string(v), "must be a positive integer (>= 1)");
    };
    if (is_fp8(t.dtype))
        throw ConvError("dt", std::string(to_string(t.dtype)),
                        "a transposed convolution takes f32, f16 or bf16 (fp8 is defined for the discrete convolution)");
    positive("batch (n)", t.batch);
    positive("in_channels (c)", t.in_channels);
    positive("out_channels (o)", t.out_channels);
    positive("groups (g)", t.groups);
    for (auto [name, v] : {std::pair{"in_channels (c)", t.in_channels}, {"out_channels (o)", t.out_channels}})
        if (v % t.groups != 0)
            throw ConvError(name, std::to_string(v), "must be divisible by groups = " + std::to_string(t.groups));
    constexpr std::int64_t limit = std::int64_t{1} << 40;  // keeps the output-size formula inside 64 bits
    for (int a = 0; a < t.rank; ++a) {
        positive(axis_attr("input_size (in)", a), t.input_size[a]);
        positive(axis_attr("kernel_size (k)", a), t.kernel_size[a]);
        positive(axis_attr("strides (s)", a), t.strides[a]);
        positive(axis_attr("dilations (d)", a), t.dilations[a]);
        if (t.output_padding[a] < 0)
            throw ConvError(axis_attr("output_padding (op)", a), std::to_string(t.output_padding[a]),
                            "must be >= 0 (it only lengthens the output at the end)");
        for (auto [name, v] : {std::pair{"input_size (in)", t.input_size[a]}, {"kernel_size (k)", t.kernel_size[a]},
                               {"strides (s)", t.strides[a]}, {"dilations (d)", t.dilations[a]},
                               {"pads_begin (pb)", t.pads_begin[a]}, {"pads_end (pe)", t.pads_end[a]},
                               {"output_padding (op)", t.output_padding[a]}})
            if (v > limit || v < -limit)
                throw ConvError(axis_attr(name, a), std::to_string(v), "out of range: |value| <= 2^40");
        if (t.output_size(a) < 1)
            throw ConvError(axis_attr("pads_end (pe)", a), std::to_string(t.pads_end[a]),
                            "the output size (in-1)*s - pb - pe + (k-1)*d + 1 + op = " +
                                std::to_string(t.output_size(a)) + " must be >= 1");
    }
    try {
        validate(t.forward());
    } catch (const ConvError& e) {
        throw ConvError(e.attribute(), e.value(), e.rule() + " (in the forward convolution it transposes, " +
                                                      to_string(t.forward()) + ")");
    }
}

std::string to_string(const TransposedDescriptor& t) {
    ConvDescriptor fields;  // the keys the convolution descriptor shares, in its printer's order
    fields.rank = t.rank;
    fields.batch = t.batch;
    fields.in_channels = t.in_channels;
    fields.out_channels = t.out_channels;
    fields.groups = t.groups;
    fields.input_size = t.input_size;
    fields.kernel_size = t.kernel_size;
    fields.strides = t.strides;
    fields.dilations = t.dilations;
    fields.pads_begin = t.pads_begin;
    fields.pads_end = t.pads_end;
    fields.has_bias = t.has_bias;
    fields.dtype = t.dtype;
    fields.data_format = t.data_format;
    fields.filter_format = t.filter_format;
    std::string s = to_string(fields).substr(std::string_view("conv:").size());
    std::string op;
    for (int a = 0; a < t.rank; ++a) op += (a ? "x" : "") + std::to_string(t.output_padding[a]);
    const std::size_t bias = s.find(",bias=");
    return "deconv:" + s.substr(0, bias) + ",op=" + op + s.substr(bias);
}

TransposedDescriptor parse_transposed_descriptor(std::string_view text) {
    TransposedDescriptor t = parse_transposed_descriptor_unvalidated(text);
    validate(t);
    return t;
}

TransposedDescriptor parse_transposed_descriptor_unvalidated(std::string_view text) {
    constexpr std::string_view prefix = "deconv:";
    if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    // op= is the one key the convolution descriptor does not have: take it out, parse the rest there.
    std::string rest, op;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string_view field = text.substr(start, comma - start);
        if (field.substr(0, 3) == "op=") {
            if (!op.empty()) throw ConvError("op", std::string(field.substr(3)), "the key appears twice");
            op = std::string(field.substr(3));
            if (op.empty()) throw ConvError("op", "(empty)", "output_padding: one value per axis, or one for all");
        } else {
            rest += (rest.empty() ? "" : ",") + std::string(field);
        }
        start = comma + 1;
    }
    const ConvDescriptor f = parse_descriptor_unvalidated(rest);
    // keys of the convolution descriptor a transposed one has no meaning for: refused, never dropped
    if (f.pass != Pass::forward)
        throw ConvError("dir", std::string(to_string(f.pass)),
                        "a transposed convolution has no pass of its own (it is the backward data of forward())");
    if (!f.src_strides.empty() || !f.weights_strides.empty() || !f.dst_strides.empty())
        throw ConvError("ss/ws/ds", "memory strides", "a transposed convolution's tensors are dense");
    if (f.scales.present())
        throw ConvError("ssc/wsc/dsc", scales_text(f.scales).substr(1),
                        "scales are defined for the discrete convolution's forward pass");
    TransposedDescriptor t;
    t.rank = f.rank;
    t.batch = f.batch;
    t.in_channels = f.in_channels;
    t.out_channels = f.out_channels;
    t.groups = f.groups;
    t.input_size = f.input_size;
    t.kernel_size = f.kernel_size;
    t.strides = f.strides;
    t.dilations = f.dilations;
    t.pads_begin = f.pads_begin;
    t.pads_end = f.pads_end;
    t.has_bias = f.has_bias;
    t.dtype = f.dtype;
    t.data_format = f.data_format;
    t.filter_format = f.filter_format;
    if (!op.empty()) {
        // the same list syntax as every spatial key: read it through the convolution parser's k=
        ConvDescriptor values;
        try {
            values = parse_descriptor_unvalidated("c=1,o=1,in=" + op + ",k=1");
        } catch (const ConvError& e) {
            throw ConvError("op", op, e.rule());
        }
        if (values.rank != 1 && values.rank != t.rank)
            throw ConvError("op", op, "has " + std::to_string(values.rank) + " values but in= has " +
                                          std::to_string(t.rank) + " (one per spatial axis, or one for all)");
        for (int a = 0; a < t.rank; ++a) t.output_padding[a] = values.input_size[values.rank == 1 ? 0 : a];
    }
    return t;
}

}  // namespace convcheck
