// The quantized convolution's descriptor (quantized_descriptor.hpp): its integer types, rules and string form.
#include "convcheck/core/quantized_descriptor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "convcheck/core/descriptor_unvalidated.hpp"

namespace convcheck {

namespace {

constexpr IntegerType kIntegerTypes[] = {IntegerType::u8, IntegerType::s8, IntegerType::s32};

// A float as the shortest decimal that reads back as the same float.
std::string float_text(float v) {
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof(text), v);
    return std::string(text, end);
}

float parse_float(const std::string& key, const std::string& text) {
    float v = 0.0f;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size())
        throw ConvError(key, text, "a scale is a decimal number");
    return v;
}

std::int64_t parse_integer(const std::string& key, const std::string& text) {
    std::int64_t v = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size()) throw ConvError(key, text, "an integer");
    return v;
}

void check_scale(const char* key, float scale) {
    if (!(scale > 0.0f) || !std::isfinite(scale))
        throw ConvError(key, float_text(scale), "a scale must be > 0 and finite");
}

void check_in_range(const char* key, std::int64_t v, IntegerType type, const char* of) {
    if (v < lowest(type) || v > highest(type))
        throw ConvError(key, std::to_string(v),
                        std::string("must lie in ") + of + "'s range " + std::string(to_string(type)) + " [" +
                            std::to_string(lowest(type)) + ", " + std::to_string(highest(type)) + "]");
}

}  // namespace

std::string_view to_string(IntegerType type) {
    switch (type) {
        case IntegerType::u8: return "u8";
        case IntegerType::s8: return "s8";
        case IntegerType::s32: return "s32";
    }
    return "?";
}

bool parse_integer_type(std::string_view text, IntegerType* type) {
    for (IntegerType t : kIntegerTypes)
        if (text == to_string(t)) return *type = t, true;
    return false;
}

std::int64_t lowest(IntegerType type) {
    return type == IntegerType::u8 ? 0 : type == IntegerType::s8 ? -128 : std::numeric_limits<std::int32_t>::min();
}

std::int64_t highest(IntegerType type) {
    return type == IntegerType::u8 ? 255 : type == IntegerType::s8 ? 127 : std::numeric_limits<std::int32_t>::max();
}

std::int64_t QuantizedDescriptor::largest_product() const {
    std::int64_t x = std::max(highest(src) - src_zero_point, src_zero_point - lowest(src));
    if (per_channel_src_zero_points) {
        x = src_zero_points.empty() ? highest(src) - lowest(src) : 0;  // drawn: any value of src's range
        for (std::int32_t z : src_zero_points) x = std::max({x, highest(src) - z, z - lowest(src)});
    }
    std::int64_t w = std::max(highest(weights) - weights_zero_point, weights_zero_point - lowest(weights));
    if (per_channel_weights_zero_points) {
        w = weights_zero_points.empty() ? highest(weights) - lowest(weights) : 0;  // drawn: any value of the range
        for (std::int32_t z : weights_zero_points) w = std::max({w, highest(weights) - z, z - lowest(weights)});
    }
    return x * w;
}

std::int64_t QuantizedDescriptor::products_per_output() const {
    std::int64_t n = conv.in_channels_per_group();
    for (int a = 0; a < conv.rank; ++a) n *= conv.kernel_size[a];
    return n;
}

bool QuantizedDescriptor::rounded_s32() const {
    if (dst != IntegerType::s32 || float_dst) return false;
    return src_scale != 1.0f || dst_scale != 1.0f || !dst_scales.empty() || dst_zero_point != 0 || f32_bias || !conv.post_ops.empty() ||
           (per_channel_scales ? true : weights_scale != 1.0f);
}

namespace {
// The range a zero point of a tensor of type t must lie in: t's, or s32's with zpt=s32.
IntegerType zero_point_range(const QuantizedDescriptor& q, IntegerType t) { return q.s32_zero_points ? IntegerType::s32 : t; }
}  // namespace

void validate(const QuantizedDescriptor& q) {
    validate(q.conv);
    if (q.conv.pass != Pass::forward)
        throw ConvError("dir", std::string(to_string(q.conv.pass)), "a quantized convolution is a forward pass");
    if (!q.conv.src_strides.empty() || !q.conv.weights_strides.empty() || !q.conv.dst_strides.empty())
        throw ConvError("ss/ws/ds", "memory strides", "a quantized convolution's tensors are dense");
    if (q.conv.fpmath != FpMath::strict)
        throw ConvError("fpmath", std::string(to_string(q.conv.fpmath)), "an integer convolution has no f32 inputs to round");
    if (q.src == IntegerType::s32) throw ConvError("dt", "s32", "src is u8 or s8");
    if (q.weights == IntegerType::s32) throw ConvError("dt", "s32", "weights are u8 or s8");
    check_scale("ssc", q.src_scale);
    if (!q.per_channel_scales) check_scale("wsc", q.weights_scale);
    if (!q.channel_scales.empty()) {
        if (!q.per_channel_scales || static_cast<std::int64_t>(q.channel_scales.size()) != q.conv.out_channels)
            throw ConvError("wsc", std::to_string(q.channel_scales.size()) + " values",
                            "one scale, oc, or one per output channel (" + std::to_string(q.conv.out_channels) + ")");
        for (float s : q.channel_scales) check_scale("wsc", s);
    }
    check_scale("dsc", q.dst_scale);
    if (!q.dst_scales.empty()) {
        if (static_cast<std::int64_t>(q.dst_scales.size()) != q.conv.out_channels)
            throw ConvError("dsc", std::to_string(q.dst_scales.size()) + " values",
                            "one scale, or one per output channel (" + std::to_string(q.conv.out_channels) + ")");
        for (float s : q.dst_scales) check_scale("dsc", s);
    }
    check_in_range("szp", q.src_zero_point, zero_point_range(q, q.src), q.s32_zero_points ? "a zero point (zpt=s32)" : "src");
    const auto check_list = [&](const char* key, const std::vector<std::int32_t>& points, bool per_channel,
                                std::int64_t channels, const char* per, IntegerType type, const char* of) {
        if (points.empty()) return;
        if (!per_channel || static_cast<std::int64_t>(points.size()) != channels)
            throw ConvError(key, std::to_string(points.size()) + " values",
                            std::string("one zero point, ") + per + ", or one per channel (" + std::to_string(channels) + ")");
        for (std::int32_t z : points) check_in_range(key, z, type, of);
    };
    const char* s32 = "a zero point (zpt=s32)";
    check_list("szp", q.src_zero_points, q.per_channel_src_zero_points, q.conv.in_channels, "ic",
               zero_point_range(q, q.src), q.s32_zero_points ? s32 : "src");
    check_list("dzp", q.dst_zero_points, q.per_channel_dst_zero_points, q.conv.out_channels, "oc",
               zero_point_range(q, q.dst), q.s32_zero_points ? s32 : "dst");
    check_list("wzp", q.weights_zero_points, q.per_channel_weights_zero_points, q.conv.out_channels, "oc",
               zero_point_range(q, q.weights), q.s32_zero_points ? s32 : "the weights");
    check_in_range("wzp", q.weights_zero_point, zero_point_range(q, q.weights), q.s32_zero_points ? s32 : "the weights");
    if (q.float_dst && *q.float_dst != DataType::f32 && *q.float_dst != DataType::bf16 && *q.float_dst != DataType::f16)
        throw ConvError("dt", std::string(to_string(*q.float_dst)), "a float dst is f32, bf16 or f16");
    if (q.float_dst && q.dst != IntegerType::s32)
        throw ConvError("dt", "a float dst", "its integer type is unused (s32)");
    // an s32 dst (the accumulator, or oneDNN's rounded value saturated to s32) and a float dst take no lo/hi
    if (q.dst == IntegerType::s32 && q.narrowed())
        throw ConvError("lo/hi", "given", "an s32 or float dst takes its whole range: no lo/hi");
    if (q.f32_bias && !q.conv.has_bias)
        throw ConvError("bdt", "f32", "names the bias's type; the case has no bias (bias=1)");
    if (q.f32_accumulation && !q.float_dst && q.dst == IntegerType::s32)
        throw ConvError("acc", "f32", "an f32 accumulation is rounded to a u8 or s8 dst, or kept in a float one (not s32)");
    check_in_range("dzp", q.dst_zero_point, zero_point_range(q, q.dst), q.s32_zero_points ? s32 : "dst");
    check_in_range("lo", q.dst_min, q.dst, "dst");
    check_in_range("hi", q.dst_max, q.dst, "dst");
    if (q.dst_min > q.dst_max)
        throw ConvError("lo", std::to_string(q.dst_min), "lo <= hi (hi=" + std::to_string(q.dst_max) + ")");
    const std::int64_t n = q.products_per_output(), p = q.largest_product();
    const std::int64_t most = p > 0 ? std::numeric_limits<std::int32_t>::max() / p : n;
    if (n > most)
        throw ConvError("c/k", std::to_string(n) + " products per output",
                        "an s32 accumulator must hold every sum: " + std::to_string(n) + " products of up to " +
                            std::to_string(p) + " can leave s32 (at most " + std::to_string(most) +
                            " with these types and zero points)");
}

std::string to_string(const QuantizedDescriptor& q) {
    std::string s = to_string(q.conv).substr(std::string_view("conv:").size());
    const std::size_t dt = s.find(",dt=");
    const std::size_t end = s.find(',', dt + 1);
    s = s.substr(0, dt) + (end == std::string::npos ? "" : s.substr(end));
    s += ",dt=" + std::string(to_string(q.src)) + ":" + std::string(to_string(q.weights)) + ":" +
         std::string(q.float_dst ? to_string(*q.float_dst) : to_string(q.dst));
    if (q.f32_bias) s += ",bdt=f32";
    if (q.f32_accumulation) s += ",acc=f32";
    if (q.s32_zero_points) s += ",zpt=s32";
    // a zero point per tensor; per channel: "ic"/"oc" (drawn) or the given list
    const auto zero_points = [](bool per_channel, const std::vector<std::int32_t>& points, std::int32_t one,
                                const char* drawn) {
        if (!per_channel) return std::to_string(one);
        if (points.empty()) return std::string(drawn);
        std::string list;
        for (std::int32_t z : points) list += (list.empty() ? "" : ":") + std::to_string(z);
        return list;
    };
    s += ",ssc=" + float_text(q.src_scale) +
         ",szp=" + zero_points(q.per_channel_src_zero_points, q.src_zero_points, q.src_zero_point, "ic");
    std::string scales;
    for (float v : q.channel_scales) scales += (scales.empty() ? "" : ":") + float_text(v);
    s += ",wsc=" + (!q.per_channel_scales ? float_text(q.weights_scale) : scales.empty() ? std::string("oc") : scales) +
         ",wzp=" + zero_points(q.per_channel_weights_zero_points, q.weights_zero_points, q.weights_zero_point, "oc");
    std::string dst_scales;
    for (float v : q.dst_scales) dst_scales += (dst_scales.empty() ? "" : ":") + float_text(v);
    s += ",dsc=" + (q.dst_scales.empty() ? float_text(q.dst_scale) : dst_scales) +
         ",dzp=" + zero_points(q.per_channel_dst_zero_points, q.dst_zero_points, q.dst_zero_point, "oc");
    if (q.narrowed()) s += ",lo=" + std::to_string(q.dst_min) + ",hi=" + std::to_string(q.dst_max);
    return "qconv:" + s;
}

QuantizedDescriptor parse_quantized_descriptor(std::string_view text) {
    QuantizedDescriptor q = parse_quantized_descriptor_unvalidated(text);
    validate(q);
    return q;
}

QuantizedDescriptor parse_quantized_descriptor_unvalidated(std::string_view text) {
    constexpr std::string_view prefix = "qconv:";
    if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    QuantizedDescriptor q;
    std::string rest;
    std::vector<std::string> seen;
    bool lo = false, hi = false;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string field(text.substr(start, comma - start));
        start = comma + 1;
        const std::size_t eq = field.find('=');
        const std::string key = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
        static const char* const kOwn[] = {"dt", "bdt", "acc", "zpt", "ssc", "szp", "wsc", "wzp", "dsc", "dzp", "lo", "hi"};
        if (std::find(std::begin(kOwn), std::end(kOwn), key) == std::end(kOwn)) {
            rest += (rest.empty() ? "" : ",") + field;  // the geometry's: the convolution parser reads it
            continue;
        }
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) throw ConvError(key, value, "the key appears twice");
        seen.push_back(key);
        if (key == "dt") {
            std::vector<std::string> types;
            for (std::size_t from = 0;;) {
                const std::size_t colon = value.find(':', from);
                types.push_back(value.substr(from, colon - from));
                if (colon == std::string::npos) break;
                from = colon + 1;
            }
            DataType float_dst = DataType::f32;
            const bool is_float = types.size() == 3 && parse_data_type(types[2], &float_dst);
            if (types.size() != 3 || !parse_integer_type(types[0], &q.src) || !parse_integer_type(types[1], &q.weights) ||
                !(is_float || parse_integer_type(types[2], &q.dst)))
                throw ConvError("dt", value, "src:weights:dst, each u8, s8 or s32, dst also f32, bf16 or f16 (e.g. u8:s8:u8)");
            if (is_float) q.float_dst = float_dst, q.dst = IntegerType::s32;
        } else if (key == "bdt") {
            if (value != "s32" && value != "f32")
                throw ConvError("bdt", value, "the bias's type is s32 (in the accumulator) or f32 (after the scales)");
            q.f32_bias = value == "f32";
        } else if (key == "acc") {
            if (value != "s32" && value != "f32")
                throw ConvError("acc", value, "the sum is s32 (the integer accumulator) or f32 (of the dequantized products)");
            q.f32_accumulation = value == "f32";
        } else if (key == "zpt") {
            if (value != "type" && value != "s32")
                throw ConvError("zpt", value, "zero points lie in their tensors' types (type: ONNX, TFLite) or in s32 (s32: "
                                              "oneDNN's attributes)");
            q.s32_zero_points = value == "s32";
        } else if (key == "ssc") {
            q.src_scale = parse_float(key, value);
        } else if (key == "wsc") {
            q.per_channel_scales = value == "oc" || value.find(':') != std::string::npos;
            if (!q.per_channel_scales) q.weights_scale = parse_float(key, value);
            for (std::size_t from = 0; value != "oc" && q.per_channel_scales;) {  // a list: one per output channel
                const std::size_t colon = value.find(':', from);
                q.channel_scales.push_back(parse_float(key, value.substr(from, colon - from)));
                if (colon == std::string::npos) break;
                from = colon + 1;
            }
        } else if (key == "dsc" && value.find(':') != std::string::npos) {  // a list: one per output channel
            for (std::size_t from = 0;;) {
                const std::size_t colon = value.find(':', from);
                q.dst_scales.push_back(parse_float(key, value.substr(from, colon - from)));
                if (colon == std::string::npos) break;
                from = colon + 1;
            }
        } else if (key == "dsc") {
            q.dst_scale = parse_float(key, value);
        } else if ((key == "szp" && (value == "ic" || value.find(':') != std::string::npos)) ||
                   ((key == "dzp" || key == "wzp") && (value == "oc" || value.find(':') != std::string::npos))) {
            // per channel: drawn (ic, oc) or a list, one per channel
            (key == "szp"   ? q.per_channel_src_zero_points
             : key == "wzp" ? q.per_channel_weights_zero_points
                            : q.per_channel_dst_zero_points) = true;
            std::vector<std::int32_t>& points =
                key == "szp" ? q.src_zero_points : key == "wzp" ? q.weights_zero_points : q.dst_zero_points;
            for (std::size_t from = 0; value != "ic" && value != "oc";) {
                const std::size_t colon = value.find(':', from);
                const std::int64_t v = parse_integer(key, value.substr(from, colon - from));
                if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
                    throw ConvError(key, value, "a zero point is a 32-bit integer");
                points.push_back(static_cast<std::int32_t>(v));
                if (colon == std::string::npos) break;
                from = colon + 1;
            }
        } else if (key == "szp" || key == "wzp" || key == "dzp") {
            const std::int64_t v = parse_integer(key, value);
            if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
                throw ConvError(key, value, "a zero point is a 32-bit integer");
            (key == "szp" ? q.src_zero_point : key == "wzp" ? q.weights_zero_point : q.dst_zero_point) =
                static_cast<std::int32_t>(v);
        } else {
            (key == "lo" ? q.dst_min : q.dst_max) = parse_integer(key, value);
            (key == "lo" ? lo : hi) = true;
        }
    }
    q.conv = parse_descriptor_unvalidated(rest);  // dt= is ours: the geometry keeps f32
    if (!lo) q.dst_min = lowest(q.dst);
    if (!hi) q.dst_max = highest(q.dst);
    return q;
}

}  // namespace convcheck
