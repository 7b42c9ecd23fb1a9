#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/descriptor_unvalidated.hpp"
#include "convcheck/core/memory_layout.hpp"

#include <charconv>
#include <limits>
#include <map>

namespace convcheck {

std::string_view to_string(DataFormat format) { return format == DataFormat::ncx ? "ncx" : "nxc"; }
std::string_view to_string(FilterFormat format) {
    switch (format) {
        case FilterFormat::oix: return "oix";
        case FilterFormat::xio: return "xio";
        case FilterFormat::oxi: return "oxi";
    }
    return "?";
}

namespace {
// Error text echoes user input: control bytes, NUL and non-ASCII bytes are written as \xHH so that
// what() is always the whole, readable message.
std::string printable(const std::string& text) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : text) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}
}  // namespace

ConvError::ConvError(std::string attribute, std::string value, std::string rule)
    : std::invalid_argument(printable(attribute) + " = " + printable(value) + ": " + printable(rule)),
      attribute_(printable(attribute)), value_(printable(value)), rule_(printable(rule)) {}

std::string_view to_string(Pass pass) {
    switch (pass) {
        case Pass::forward: return "fwd";
        case Pass::backward_data: return "bwd_d";
        case Pass::backward_weights: return "bwd_w";
    }
    return "?";
}

bool ConvDescriptor::operator==(const ConvDescriptor& o) const {
    auto same_spatial = [&](const SpatialDims& a, const SpatialDims& b) {
        for (int i = 0; i < rank; ++i)
            if (a[i] != b[i]) return false;
        return true;
    };
    return rank == o.rank && batch == o.batch && in_channels == o.in_channels && out_channels == o.out_channels &&
           groups == o.groups && same_spatial(input_size, o.input_size) && same_spatial(kernel_size, o.kernel_size) &&
           same_spatial(strides, o.strides) && same_spatial(dilations, o.dilations) &&
           same_spatial(pads_begin, o.pads_begin) && same_spatial(pads_end, o.pads_end) && has_bias == o.has_bias &&
           src_dtype() == o.src_dtype() && weights_dtype() == o.weights_dtype() &&
           bias_dtype() == o.bias_dtype() && dst_dtype() == o.dst_dtype() && data_format == o.data_format && filter_format == o.filter_format &&
           src_strides == o.src_strides && weights_strides == o.weights_strides && dst_strides == o.dst_strides &&
           pass == o.pass && post_ops == o.post_ops && fpmath == o.fpmath && scales == o.scales;
}

std::string_view to_string(FpMath m) {
    switch (m) {
        case FpMath::strict: return "strict";
        case FpMath::tf32: return "tf32";
        case FpMath::bf16: return "bf16";
    }
    return "?";
}

int fpmath_significand_bits(FpMath m) { return m == FpMath::tf32 ? 11 : m == FpMath::bf16 ? 8 : 0; }

bool ConvDescriptor::mixed() const {
    return weights_dtype() != dtype || dst_dtype() != dtype || (has_bias && bias_dtype() != dtype);
}

bool ConvDescriptor::has_fp8() const {
    return is_fp8(src_dtype()) || is_fp8(weights_dtype()) || is_fp8(dst_dtype()) || (has_bias && is_fp8(bias_dtype()));
}

std::int64_t ConvDescriptor::dilated_kernel(int axis) const { return (kernel_size[axis] - 1) * dilations[axis] + 1; }

std::int64_t ConvDescriptor::output_size(int axis) const {
    const std::int64_t span = input_size[axis] + pads_begin[axis] + pads_end[axis] - dilated_kernel(axis);
    // floor division (span may be negative for an invalid descriptor)
    const std::int64_t q = span / strides[axis];
    return (span % strides[axis] != 0 && span < 0 ? q - 1 : q) + 1;
}

namespace {

std::vector<std::int64_t> spatial(const ConvDescriptor& d, const SpatialDims& dims) {
    return std::vector<std::int64_t>(dims.begin(), dims.begin() + d.rank);
}

std::vector<std::int64_t> activation_dims(const ConvDescriptor& d, std::int64_t channels, std::vector<std::int64_t> sp) {
    std::vector<std::int64_t> dims{d.batch};
    if (d.data_format == DataFormat::ncx) {
        dims.push_back(channels);
        dims.insert(dims.end(), sp.begin(), sp.end());
    } else {
        dims.insert(dims.end(), sp.begin(), sp.end());
        dims.push_back(channels);
    }
    return dims;
}

std::int64_t product(const std::vector<std::int64_t>& dims) {
    std::int64_t p = 1;
    for (auto v : dims) p *= v;
    return p;
}

}  // namespace

std::vector<std::int64_t> ConvDescriptor::src_dims() const {
    return activation_dims(*this, in_channels, spatial(*this, input_size));
}

std::vector<std::int64_t> ConvDescriptor::dst_dims() const {
    std::vector<std::int64_t> out;
    for (int a = 0; a < rank; ++a) out.push_back(output_size(a));
    return activation_dims(*this, out_channels, out);
}

std::vector<std::int64_t> ConvDescriptor::weights_dims() const {
    auto k = spatial(*this, kernel_size);
    std::vector<std::int64_t> dims;
    if (filter_format == FilterFormat::oix) {
        dims = {out_channels, in_channels_per_group()};
        dims.insert(dims.end(), k.begin(), k.end());
    } else if (filter_format == FilterFormat::oxi) {
        dims = {out_channels};
        dims.insert(dims.end(), k.begin(), k.end());
        dims.push_back(in_channels_per_group());
    } else {
        dims = k;
        dims.push_back(in_channels_per_group());
        dims.push_back(out_channels);
    }
    return dims;
}

std::int64_t ConvDescriptor::src_elements() const { return product(src_dims()); }
std::int64_t ConvDescriptor::weights_elements() const { return product(weights_dims()); }
std::int64_t ConvDescriptor::dst_elements() const { return product(dst_dims()); }
std::int64_t ConvDescriptor::macs() const {
    std::int64_t k = 1;
    for (int a = 0; a < rank; ++a) k *= kernel_size[a];
    return dst_elements() * in_channels_per_group() * k;
}

namespace {

const char* axis_name(int rank, int axis) {
    static const char* names[3][3] = {{"w", "", ""}, {"h", "w", ""}, {"d", "h", "w"}};
    return names[rank - 1][axis];
}

std::string attr(const char* name, const ConvDescriptor& d, int axis) {
    return std::string(name) + "[" + std::to_string(axis) + "] (" + axis_name(d.rank, axis) + ")";
}

bool mul_overflows(std::int64_t a, std::int64_t b, std::int64_t* out) { return __builtin_mul_overflow(a, b, out); }
bool add_overflows(std::int64_t a, std::int64_t b, std::int64_t* out) { return __builtin_add_overflow(a, b, out); }

void check_count(const char* what, const std::vector<std::int64_t>& dims, int element_bytes) {
    std::int64_t p = 1;
    for (auto v : dims) {
        if (mul_overflows(p, v, &p))
            throw ConvError(what, "element count", "the element count overflows 64 bits");
    }
    if (mul_overflows(p, element_bytes, &p)) throw ConvError(what, "byte size", "the byte size overflows 64 bits");
}

}  // namespace

void validate(const ConvDescriptor& d) {
    if (d.rank < 1 || d.rank > kMaxSpatialRank)
        throw ConvError("rank", std::to_string(d.rank), "the spatial rank must be 1, 2 or 3");
    auto positive = [](const char* name, std::int64_t v) {
        if (v < 1) throw ConvError(name, std::to_string(v), "must be a positive integer (>= 1)");
    };
    positive("batch (n)", d.batch);
    positive("in_channels (c)", d.in_channels);
    positive("out_channels (o)", d.out_channels);
    positive("groups (g)", d.groups);
    if (d.in_channels % d.groups != 0)
        throw ConvError("in_channels (c)", std::to_string(d.in_channels),
                        "must be divisible by groups = " + std::to_string(d.groups));
    if (d.out_channels % d.groups != 0)
        throw ConvError("out_channels (o)", std::to_string(d.out_channels),
                        "must be divisible by groups = " + std::to_string(d.groups));
    for (int a = 0; a < d.rank; ++a) {
        auto positive_axis = [&](const char* name, std::int64_t v) {
            if (v < 1) throw ConvError(attr(name, d, a), std::to_string(v), "must be a positive integer (>= 1)");
        };
        positive_axis("input_size (in)", d.input_size[a]);
        positive_axis("kernel_size (k)", d.kernel_size[a]);
        positive_axis("strides (s)", d.strides[a]);
        positive_axis("dilations (d)", d.dilations[a]);
        // K = (k - 1) * d + 1 and input + pads_begin + pads_end, computed without overflow.
        std::int64_t extent;
        if (mul_overflows(d.kernel_size[a] - 1, d.dilations[a], &extent) || add_overflows(extent, 1, &extent))
            throw ConvError(attr("dilations (d)", d, a), std::to_string(d.dilations[a]),
                            "the dilated kernel extent (k-1)*d+1 overflows 64 bits");
        std::int64_t padded;
        if (add_overflows(d.input_size[a], d.pads_begin[a], &padded) || add_overflows(padded, d.pads_end[a], &padded))
            throw ConvError(attr("pads_end (pe)", d, a), std::to_string(d.pads_end[a]),
                            "input + pads_begin + pads_end overflows 64 bits");
        if (padded < extent)
            throw ConvError(attr("kernel_size (k)", d, a), std::to_string(d.kernel_size[a]),
                            "the dilated kernel extent (k-1)*d+1 = " + std::to_string(extent) +
                                " exceeds the padded input input+pads_begin+pads_end = " + std::to_string(padded) +
                                " (empty output)");
    }
    if (!d.has_bias && d.bias_dtype() != d.dtype)
        throw ConvError("bdt", std::string(to_string(d.bias_dtype())),
                        "a bias data type of its own needs a bias (bias=1)");
    // f64 is the type of every tensor or of none: the reference computes in f64, and a mix with f64 has no wider
    // type for its one right answer (docs/accuracy.md, "f64 cases")
    const bool any_f64 = d.src_dtype() == DataType::f64 || d.weights_dtype() == DataType::f64 ||
                         d.dst_dtype() == DataType::f64 || (d.has_bias && d.bias_dtype() == DataType::f64);
    if (any_f64 && d.mixed()) {
        const bool bias_only = d.weights_dtype() == d.dtype && d.dst_dtype() == d.dtype;
        throw ConvError(bias_only ? "bdt" : "dt", bias_only ? std::string(to_string(d.bias_dtype())) : dtypes_text(d).substr(3),
                        "f64 is every tensor's type or none's (dt=f64, no bdt=)");
    }
    if (any_f64 && d.fpmath != FpMath::strict)
        throw ConvError("fpmath", std::string(to_string(d.fpmath)),
                        "an fpmath mode rounds f32 inputs; an f64 convolution (dt=f64) computes strictly");
    check_count("src", d.src_dims(), size_of(d.src_dtype()));
    check_count("weights", d.weights_dims(), size_of(d.weights_dtype()));
    check_count("dst", d.dst_dims(), size_of(d.dst_dtype()));
    std::int64_t macs = 1;
    auto dst = d.dst_dims();
    dst.push_back(d.in_channels_per_group());
    for (int a = 0; a < d.rank; ++a) dst.push_back(d.kernel_size[a]);
    for (auto v : dst)
        if (mul_overflows(macs, v, &macs)) throw ConvError("problem", "multiply-add count", "overflows 64 bits");
    for (TensorRole role : {TensorRole::src, TensorRole::weights, TensorRole::dst}) validate_strides(d, role);
    validate_post_ops(d);
    validate_scales(d.scales, d.out_channels);
    if (d.scales.present() && d.pass != Pass::forward)
        throw ConvError("ssc/wsc/dsc", scales_text(d.scales).substr(1), "scales are checked on the forward pass only");
}

// ---------------------------------------------------------------------------------------------
// The canonical string form.

namespace {

std::string join_spatial(const ConvDescriptor& d, const SpatialDims& dims) {
    std::string s;
    for (int a = 0; a < d.rank; ++a) {
        if (a) s += 'x';
        s += std::to_string(dims[a]);
    }
    return s;
}

std::int64_t parse_int(std::string_view key, std::string_view text) {
    std::int64_t v = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (!text.empty() && text[0] == '+') ++first;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (text.empty() || ec != std::errc() || ptr != last)
        throw ConvError(std::string(key), std::string(text), "must be a 64-bit integer");
    return v;
}

std::vector<std::int64_t> parse_list(std::string_view key, std::string_view text) {
    std::vector<std::int64_t> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t x = text.find('x', start);
        values.push_back(parse_int(key, text.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start)));
        if (x == std::string_view::npos) break;
        if (values.size() >= kMaxSpatialRank)
            throw ConvError(std::string(key), std::string(text), "at most 3 spatial values separated by 'x'");
        start = x + 1;
    }
    return values;
}

// dt=T (every tensor) or dt=S:W:D (benchdnn's --dt order: src, weights, dst); an override is kept only
// where it differs from src's type, so that one descriptor has one form.
void parse_data_types(const std::string& text, ConvDescriptor* d) {
    std::vector<DataType> types;
    std::size_t start = 0;
    while (true) {
        const std::size_t colon = text.find(':', start);
        DataType t;
        if (!parse_data_type(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start), &t))
            throw ConvError("dt", text, "must be f32, f16, bf16, f64, f8_e4m3 or f8_e5m2, or src:weights:dst of them (e.g. bf16:bf16:f32)");
        types.push_back(t);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    if (types.size() != 1 && types.size() != 3)
        throw ConvError("dt", text, "one data type for every tensor, or three (src:weights:dst)");
    d->dtype = types[0];
    if (types.size() == 3) {
        if (types[1] != types[0]) d->dtype_overrides.weights = types[1];
        if (types[2] != types[0]) d->dtype_overrides.dst = types[2];
    }
}

}  // namespace

std::string dtypes_text(const ConvDescriptor& d) {
    std::string s = "dt=" + std::string(to_string(d.dtype));
    if (d.weights_dtype() != d.dtype || d.dst_dtype() != d.dtype)
        s += ":" + std::string(to_string(d.weights_dtype())) + ":" + std::string(to_string(d.dst_dtype()));
    if (d.bias_dtype() != d.dtype) s += ",bdt=" + std::string(to_string(d.bias_dtype()));
    return s;
}

std::string to_string(const ConvDescriptor& d) {
    std::string s = "conv:n=" + std::to_string(d.batch) + ",c=" + std::to_string(d.in_channels) +
                     ",o=" + std::to_string(d.out_channels) + ",g=" + std::to_string(d.groups);
    s += ",in=" + join_spatial(d, d.input_size) + ",k=" + join_spatial(d, d.kernel_size) +
         ",s=" + join_spatial(d, d.strides) + ",d=" + join_spatial(d, d.dilations) +
         ",pb=" + join_spatial(d, d.pads_begin) + ",pe=" + join_spatial(d, d.pads_end);
    s += std::string(",bias=") + (d.has_bias ? "1" : "0");
    s += "," + dtypes_text(d);
    s += ",data=" + std::string(to_string(d.data_format)) + ",wei=" + std::string(to_string(d.filter_format));
    if (!d.src_strides.empty()) s += ",ss=" + strides_text(d.src_strides);
    if (!d.weights_strides.empty()) s += ",ws=" + strides_text(d.weights_strides);
    if (!d.dst_strides.empty()) s += ",ds=" + strides_text(d.dst_strides);
    if (d.pass != Pass::forward) s += ",dir=" + std::string(to_string(d.pass));
    if (!d.post_ops.empty()) s += ",po=" + post_ops_text(d.post_ops);
    if (d.fpmath != FpMath::strict) s += ",fpmath=" + std::string(to_string(d.fpmath));
    s += scales_text(d.scales);
    return s;
}

ConvDescriptor parse_descriptor(std::string_view text) {
    ConvDescriptor d = parse_descriptor_unvalidated(text);
    validate(d);
    return d;
}

ConvDescriptor parse_descriptor_unvalidated(std::string_view text) {
    constexpr std::string_view prefix = "conv:";
    if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    if (text.size() > 4096) throw ConvError("descriptor", "(" + std::to_string(text.size()) + " characters)", "longer than 4096 characters");
    std::map<std::string, std::string, std::less<>> fields;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        std::string_view field = text.substr(start, comma - start);
        const std::size_t eq = field.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw ConvError("descriptor", std::string(field), "every field is key=value (e.g. k=3x3)");
        std::string key(field.substr(0, eq));
        if (fields.count(key)) throw ConvError(key, std::string(field.substr(eq + 1)), "the key appears twice");
        fields[key] = std::string(field.substr(eq + 1));
        start = comma + 1;
    }
    static const char* known[] = {"n",  "c",    "o",   "g",  "in", "k",  "s",  "d", "pb",
                                  "pe", "bias", "dt", "bdt", "data", "wei", "ss", "ws", "ds", "dir", "po", "fpmath",
                                  "ssc", "wsc", "dsc"};
    for (const auto& [key, value] : fields) {
        bool ok = false;
        for (const char* k : known) ok = ok || key == k;
        if (!ok)
            throw ConvError(key, value, "unknown key (known: n c o g in k s d pb pe bias dt bdt data wei ss ws ds dir po fpmath ssc wsc dsc)");
    }
    for (const char* required : {"c", "o", "in", "k"})
        if (!fields.count(required)) throw ConvError(required, "(missing)", "the key is required");

    ConvDescriptor d;
    const auto in = parse_list("in", fields["in"]);
    d.rank = static_cast<int>(in.size());
    auto spatial_field = [&](const char* key, SpatialDims* out, std::int64_t fallback) {
        auto it = fields.find(key);
        std::vector<std::int64_t> values = it == fields.end() ? std::vector<std::int64_t>{fallback} : parse_list(key, it->second);
        if (values.size() == 1) values.assign(d.rank, values[0]);
        if (static_cast<int>(values.size()) != d.rank)
            throw ConvError(key, it->second, "has " + std::to_string(values.size()) + " values but in= has " +
                                                 std::to_string(d.rank) + " (one per spatial axis, or one for all)");
        out->fill(fallback);
        for (int a = 0; a < d.rank; ++a) (*out)[a] = values[a];
    };
    spatial_field("in", &d.input_size, 1);
    spatial_field("k", &d.kernel_size, 1);
    spatial_field("s", &d.strides, 1);
    spatial_field("d", &d.dilations, 1);
    spatial_field("pb", &d.pads_begin, 0);
    spatial_field("pe", &d.pads_end, 0);
    // unused axes keep neutral values so that equal descriptors compare equal however parsed
    for (int a = d.rank; a < kMaxSpatialRank; ++a) {
        d.input_size[a] = d.kernel_size[a] = d.strides[a] = d.dilations[a] = 1;
        d.pads_begin[a] = d.pads_end[a] = 0;
    }
    auto scalar = [&](const char* key, std::int64_t fallback) {
        auto it = fields.find(key);
        return it == fields.end() ? fallback : parse_int(key, it->second);
    };
    d.batch = scalar("n", 1);
    d.in_channels = scalar("c", 1);
    d.out_channels = scalar("o", 1);
    d.groups = scalar("g", 1);
    if (auto it = fields.find("bias"); it != fields.end()) {
        if (it->second != "0" && it->second != "1") throw ConvError("bias", it->second, "must be 0 or 1");
        d.has_bias = it->second == "1";
    }
    if (auto it = fields.find("dt"); it != fields.end()) parse_data_types(it->second, &d);
    if (auto it = fields.find("bdt"); it != fields.end()) {
        DataType bias;
        if (!parse_data_type(it->second, &bias)) throw ConvError("bdt", it->second, "must be f32, f16, bf16, f64, f8_e4m3 or f8_e5m2");
        if (bias != d.dtype) d.dtype_overrides.bias = bias;
    }
    if (auto it = fields.find("data"); it != fields.end()) {
        if (it->second == "ncx") d.data_format = DataFormat::ncx;
        else if (it->second == "nxc") d.data_format = DataFormat::nxc;
        else throw ConvError("data", it->second, "must be ncx or nxc");
    }
    if (auto it = fields.find("dir"); it != fields.end()) {
        if (it->second == "fwd") d.pass = Pass::forward;
        else if (it->second == "bwd_d") d.pass = Pass::backward_data;
        else if (it->second == "bwd_w") d.pass = Pass::backward_weights;
        else throw ConvError("dir", it->second, "must be fwd, bwd_d or bwd_w (backward weights takes the bias gradient too when bias=1)");
    }
    if (auto it = fields.find("wei"); it != fields.end()) {
        if (it->second == "oix") d.filter_format = FilterFormat::oix;
        else if (it->second == "xio") d.filter_format = FilterFormat::xio;
        else if (it->second == "oxi") d.filter_format = FilterFormat::oxi;
        else throw ConvError("wei", it->second, "must be oix, xio or oxi");
    }
    // memory strides: one per dim of the tensor (rank + 2), separated by 'x'; validate() checks them
    auto strides_field = [&](const char* key, std::vector<std::int64_t>* out) {
        auto it = fields.find(key);
        if (it == fields.end()) return;
        std::size_t start = 0;
        while (true) {
            const std::size_t x = it->second.find('x', start);
            out->push_back(parse_int(key, std::string_view(it->second).substr(start, x == std::string::npos ? std::string::npos : x - start)));
            if (x == std::string::npos) break;
            if (out->size() >= kMaxSpatialRank + 2)
                throw ConvError(key, it->second, "at most 5 strides (rank + 2) separated by 'x'");
            start = x + 1;
        }
    };
    strides_field("ss", &d.src_strides);
    strides_field("ws", &d.weights_strides);
    strides_field("ds", &d.dst_strides);
    if (auto it = fields.find("po"); it != fields.end()) d.post_ops = parse_post_ops(it->second);
    if (auto it = fields.find("fpmath"); it != fields.end()) {
        if (it->second == "tf32") d.fpmath = FpMath::tf32;
        else if (it->second == "bf16") d.fpmath = FpMath::bf16;
        else if (it->second == "strict") d.fpmath = FpMath::strict;
        else
            throw ConvError("fpmath", it->second,
                            "tf32 or bf16 (the input precision a backend may compute f32 in), or strict (f16's narrower "
                            "exponent range is not a rounding of the significand: not modelled)");
    }
    for (const char* key : {"ssc", "wsc", "dsc"})
        if (auto it = fields.find(key); it != fields.end()) parse_scale_key(key, it->second, &d.scales);
    return d;
}

}  // namespace convcheck
