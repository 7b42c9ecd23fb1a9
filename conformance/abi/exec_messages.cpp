#include "convcheck/abi/exec_messages.hpp"

#include <stdexcept>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/plugin_support.hpp"

namespace convcheck_exec {

using nlohmann::json;

namespace {

std::uint64_t element_bytes(std::int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return 4;
        case CONVCHECK_F16: return 2;
        case CONVCHECK_BF16: return 2;
        case CONVCHECK_F64: return 8;
        case CONVCHECK_U8: return 1;
        case CONVCHECK_S8: return 1;
        case CONVCHECK_S32: return 4;
    }
    throw std::invalid_argument("dtype " + dtype_name(dtype) +
                                ": the exec protocol carries f32, f16, bf16, f64, u8, s8 and s32 tensors only");
}

std::vector<std::int64_t> axes(const std::int64_t* values, int rank) { return {values, values + rank}; }

// The fields a convolution's and a transposed convolution's descriptors share (docs/exec-protocol.md).
template <typename Desc>
void geometry_fields(json& j, const Desc& d) {
    j["rank"] = d.rank;
    j["batch"] = d.batch;
    j["in_channels"] = d.in_channels;
    j["out_channels"] = d.out_channels;
    j["groups"] = d.groups;
    j["input_size"] = axes(d.input_size, d.rank);
    j["kernel_size"] = axes(d.kernel_size, d.rank);
    j["strides"] = axes(d.strides, d.rank);
    j["dilations"] = axes(d.dilations, d.rank);
    j["pads_begin"] = axes(d.pads_begin, d.rank);
    j["pads_end"] = axes(d.pads_end, d.rank);
}

std::int64_t output_size(const convcheck_conv_desc& d, int i) {
    const std::int64_t window = (d.kernel_size[i] - 1) * d.dilations[i] + 1;
    return (d.input_size[i] + d.pads_begin[i] + d.pads_end[i] - window) / d.strides[i] + 1;
}

std::vector<std::int64_t> data_shape(const convcheck_conv_desc& d, std::int64_t channels, bool output) {
    std::vector<std::int64_t> spatial;
    for (int i = 0; i < d.rank; ++i) spatial.push_back(output ? output_size(d, i) : d.input_size[i]);
    std::vector<std::int64_t> shape{d.batch};
    if (d.data_format == CONVCHECK_NCX) shape.push_back(channels);
    shape.insert(shape.end(), spatial.begin(), spatial.end());
    if (d.data_format == CONVCHECK_NXC) shape.push_back(channels);
    return shape;
}

std::vector<std::int64_t> weights_shape(const convcheck_conv_desc& d) {
    const std::vector<std::int64_t> k = axes(d.kernel_size, d.rank);
    const std::int64_t o = d.out_channels, i = d.in_channels / d.groups;
    std::vector<std::int64_t> shape;
    if (d.filter_format == CONVCHECK_OIX) shape = {o, i}, shape.insert(shape.end(), k.begin(), k.end());
    else if (d.filter_format == CONVCHECK_XIO) shape = k, shape.push_back(i), shape.push_back(o);
    else shape = {o}, shape.insert(shape.end(), k.begin(), k.end()), shape.push_back(i);
    return shape;
}

std::string data_layout(const convcheck_conv_desc& d) { return d.data_format == CONVCHECK_NCX ? "ncx" : "nxc"; }
std::string filter_layout(const convcheck_conv_desc& d) {
    return d.filter_format == CONVCHECK_OIX ? "oix" : d.filter_format == CONVCHECK_XIO ? "xio" : "oxi";
}

}  // namespace

std::string dtype_name(std::int32_t dtype) {
    const std::string name = convcheck_plugin_support::dtype_name(dtype);
    return name == "unknown" ? "?" + std::to_string(dtype) : name;
}

std::string pass_name(std::int32_t prop_kind) {
    switch (prop_kind) {
        case CONVCHECK_FORWARD: return "forward";
        case CONVCHECK_BACKWARD_DATA: return "backward_data";
        case CONVCHECK_BACKWARD_WEIGHTS: return "backward_weights";
    }
    return "?" + std::to_string(prop_kind);
}

std::vector<Tensor> case_tensors(const convcheck_conv_desc& d, const convcheck_conv_args* a, std::uint64_t* size) {
    const auto src = [&] { return Tensor{"src", d.src_dtype, data_layout(d), data_shape(d, d.in_channels, false)}; };
    const auto weights = [&] { return Tensor{"weights", d.weights_dtype, filter_layout(d), weights_shape(d)}; };
    const auto bias = [&] { return Tensor{"bias", d.bias_dtype, "x", {d.out_channels}}; };
    const auto dst = [&] { return Tensor{"dst", d.dst_dtype, data_layout(d), data_shape(d, d.out_channels, true)}; };
    std::vector<Tensor> t;
    const auto input = [&](Tensor x, const void* p) { x.input = p, t.push_back(x); };
    const auto output = [&](Tensor x, const char* name, void* p) { x.name = name, x.output = p, t.push_back(x); };
    if (d.prop_kind == CONVCHECK_FORWARD) {
        input(src(), a ? a->src : nullptr);
        input(weights(), a ? a->weights : nullptr);
        if (d.has_bias) input(bias(), a ? a->bias : nullptr);
        output(dst(), "dst", a ? a->dst : nullptr);
    } else if (d.prop_kind == CONVCHECK_BACKWARD_DATA) {
        Tensor diff_dst = dst();
        diff_dst.name = "diff_dst";
        input(diff_dst, a ? a->dst : nullptr);
        input(weights(), a ? a->weights : nullptr);
        output(src(), "diff_src", a ? a->diff_src : nullptr);
    } else if (d.prop_kind == CONVCHECK_BACKWARD_WEIGHTS) {
        Tensor diff_dst = dst();
        diff_dst.name = "diff_dst";
        input(src(), a ? a->src : nullptr);
        input(diff_dst, a ? a->dst : nullptr);
        output(weights(), "diff_weights", a ? a->diff_weights : nullptr);
        if (d.has_bias) output(bias(), "diff_bias", a ? a->diff_bias : nullptr);
    } else {
        throw std::invalid_argument("prop_kind " + std::to_string(d.prop_kind) + ": not a pass the exec protocol knows");
    }
    std::uint64_t offset = 0;
    for (Tensor& x : t) {
        std::uint64_t n = 1;
        for (std::int64_t e : x.shape) n *= static_cast<std::uint64_t>(e);
        x.bytes = n * element_bytes(x.dtype);
        x.offset = offset;
        offset = (offset + x.bytes + 63) / 64 * 64;
    }
    *size = offset;
    return t;
}

namespace {

json quantization_json(const convcheck_conv_desc& d) {
    const convcheck::runner::QuantizedCase c = convcheck::runner::quantized_from_abi(d);  // throws ConvError
    const auto reals = [](const std::vector<float>& v) {
        std::vector<double> r(v.begin(), v.end());
        return r;
    };
    return {{"src_scale", double(c.q.src_scale)},
            {"src_zero_points", c.src_zero_points},
            {"weights_scales", reals(c.weights_scales)},
            {"weights_zero_points", c.weights_zero_points},
            {"dst_scale", double(c.q.dst_scale)},
            {"dst_zero_points", c.dst_zero_points},
            {"dst_min", c.q.dst_min},
            {"dst_max", c.q.dst_max}};
}

}  // namespace

json descriptor_json(const convcheck_conv_desc& d) {
    json j;
    const convcheck_quantization* q = quantization_of(d);
    try {
        j["canonical"] = q ? convcheck::to_string(convcheck::runner::quantized_from_abi(d).q)
                           : convcheck::to_string(convcheck::runner::from_abi(d));
    } catch (const std::exception&) {
        j["canonical"] = nullptr;  // a descriptor the core form cannot write (the fields below say it all)
    }
    j["operation"] = "conv";
    j["pass"] = pass_name(d.prop_kind);
    geometry_fields(j, d);
    std::vector<std::int64_t> out;
    for (int i = 0; i < d.rank; ++i) out.push_back(output_size(d, i));
    j["output_size"] = out;
    j["has_bias"] = d.has_bias != 0;
    j["data_format"] = data_layout(d);
    j["filter_format"] = filter_layout(d);
    j["dtypes"] = {{"src", dtype_name(d.src_dtype)}, {"weights", dtype_name(d.weights_dtype)},
                   {"bias", dtype_name(d.bias_dtype)}, {"dst", dtype_name(d.dst_dtype)}};
    if (q) j["quantization"] = quantization_json(d);  // protocol 1.1: a quantized case (docs/exec-protocol.md)
    return j;
}

json tensor_json(const Tensor& t) {
    return {{"dtype", dtype_name(t.dtype)}, {"layout", t.layout}, {"shape", t.shape}, {"offset", t.offset},
            {"bytes", t.bytes}};
}

namespace {

std::int64_t transposed_output_size(const convcheck_conv_transposed_desc& d, int i) {
    const std::int64_t window = (d.kernel_size[i] - 1) * d.dilations[i] + 1;
    return (d.input_size[i] - 1) * d.strides[i] - d.pads_begin[i] - d.pads_end[i] + window + d.output_padding[i];
}

std::vector<std::int64_t> transposed_data_shape(const convcheck_conv_transposed_desc& d, std::int64_t channels,
                                                bool output) {
    std::vector<std::int64_t> shape{d.batch};
    if (d.data_format == CONVCHECK_NCX) shape.push_back(channels);
    for (int i = 0; i < d.rank; ++i) shape.push_back(output ? transposed_output_size(d, i) : d.input_size[i]);
    if (d.data_format == CONVCHECK_NXC) shape.push_back(channels);
    return shape;
}

}  // namespace

std::vector<Tensor> transposed_tensors(const convcheck_conv_transposed_desc& d, const convcheck_conv_args* a,
                                       std::uint64_t* size) {
    if (d.filter_format != CONVCHECK_OIX && d.filter_format != CONVCHECK_XIO)
        throw std::invalid_argument("filter_format " + std::to_string(d.filter_format) +
                                    ": a transposed convolution's weights are OIX or XIO");
    const std::string layout = d.data_format == CONVCHECK_NCX ? "ncx" : "nxc";
    const std::vector<std::int64_t> k = axes(d.kernel_size, d.rank);
    const std::int64_t i = d.in_channels, o = d.out_channels / d.groups;
    std::vector<std::int64_t> w;  // in_channels outermost (OIX) or innermost (XIO), as transposed.h says
    if (d.filter_format == CONVCHECK_OIX) w = {i, o}, w.insert(w.end(), k.begin(), k.end());
    else w = k, w.push_back(o), w.push_back(i);
    std::vector<Tensor> t;
    t.push_back(Tensor{"src", d.dtype, layout, transposed_data_shape(d, d.in_channels, false), 0, 0, a ? a->src : nullptr});
    t.push_back(Tensor{"weights", d.dtype, d.filter_format == CONVCHECK_OIX ? "oix" : "xio", w, 0, 0, a ? a->weights : nullptr});
    if (d.has_bias) t.push_back(Tensor{"bias", d.dtype, "x", {d.out_channels}, 0, 0, a ? a->bias : nullptr});
    Tensor dst{"dst", d.dtype, layout, transposed_data_shape(d, d.out_channels, true)};
    dst.output = a ? a->dst : nullptr;
    t.push_back(dst);
    std::uint64_t offset = 0;
    for (Tensor& x : t) {
        std::uint64_t n = 1;
        for (std::int64_t e : x.shape) n *= static_cast<std::uint64_t>(e);
        x.bytes = n * element_bytes(x.dtype);
        x.offset = offset;
        offset = (offset + x.bytes + 63) / 64 * 64;
    }
    *size = offset;
    return t;
}

json transposed_descriptor_json(const convcheck_conv_transposed_desc& d) {
    json j;
    try {
        j["canonical"] = convcheck::to_string(convcheck::runner::from_abi(d));
    } catch (const std::exception&) {
        j["canonical"] = nullptr;
    }
    j["operation"] = "conv_transposed";
    j["pass"] = "forward";
    geometry_fields(j, d);
    j["output_padding"] = axes(d.output_padding, d.rank);
    std::vector<std::int64_t> out;
    for (int i = 0; i < d.rank; ++i) out.push_back(transposed_output_size(d, i));
    j["output_size"] = out;
    j["has_bias"] = d.has_bias != 0;
    j["data_format"] = d.data_format == CONVCHECK_NCX ? "ncx" : "nxc";
    j["filter_format"] = d.filter_format == CONVCHECK_OIX ? "oix" : "xio";
    const std::string t = dtype_name(d.dtype);
    j["dtypes"] = {{"src", t}, {"weights", t}, {"bias", t}, {"dst", t}};
    return j;
}

namespace {

[[noreturn]] void bad_claim(const std::string& key, const json& value, const std::string& rule) {
    throw std::invalid_argument("claims." + key + " = " + value.dump() + ": " + rule);
}

// A list of names, each one of `known` (its bit: the index in `bits`).
std::uint32_t bits_of(const json& claims, const std::string& key, const std::vector<std::pair<std::string, int>>& known,
                      bool required) {
    if (!claims.contains(key)) {
        if (required) throw std::invalid_argument("claims." + key + " is missing: the handshake must name it");
        return 0;
    }
    const json& v = claims[key];
    std::string names;
    for (const auto& k : known) names += (names.empty() ? "" : ", ") + k.first;
    if (!v.is_array()) bad_claim(key, v, "a list of names (" + names + ")");
    std::uint32_t bits = 0;
    for (const json& item : v) {
        bool found = false;
        for (const auto& k : known)
            if (item.is_string() && item.get<std::string>() == k.first) bits |= CONVCHECK_BIT(k.second), found = true;
        if (!found) bad_claim(key, item, "each item is one of " + names);
    }
    return bits;
}

}  // namespace

void read_claims(const json& c, convcheck_plugin_info* info, std::string* name, std::string* version) {
    static const char* const kKeys[] = {"name", "version", "operations", "dtypes", "ranks", "data_formats",
                                        "filter_formats", "accumulation_dtype", "passes", "mixed_dtypes",
                                        "requantization", "integer_accumulator", "zero_points_outside_types"};
    for (const auto& item : c.items()) {
        bool known = false;
        for (const char* k : kKeys) known = known || item.key() == k;
        if (!known) bad_claim(item.key(), item.value(), "not a claim protocol 1 knows (docs/exec-protocol.md)");
    }
    if (!c.contains("name") || !c["name"].is_string() || c["name"].get<std::string>().empty())
        throw std::invalid_argument("claims.name: the backend must name itself (a non-empty string)");
    *name = c["name"].get<std::string>();
    *version = c.contains("version") && c["version"].is_string() ? c["version"].get<std::string>() : "";
    const std::vector<std::pair<std::string, int>> dtypes = {
        {"f32", CONVCHECK_F32}, {"f16", CONVCHECK_F16}, {"bf16", CONVCHECK_BF16}, {"f64", CONVCHECK_F64},
        {"u8", CONVCHECK_U8},   {"s8", CONVCHECK_S8},   {"s32", CONVCHECK_S32}};  // the integers: protocol 1.1
    // protocol 1 has one operation, discrete convolution: the default
    // 1.1: transposed convolution too (its dtypes, ranks and formats are the claims above)
    const std::uint32_t ops =
        c.contains("operations") ? bits_of(c, "operations", {{"conv", 0}, {"conv_transposed", 2}}, false) : 1u;
    info->operations = ops;  // bit 0 CONVCHECK_OP_CONV (1), bit 2 CONVCHECK_OP_CONV_TRANSPOSED (4)
    info->dtypes = bits_of(c, "dtypes", dtypes, true);
    if (c.contains("ranks")) {  // numbers, the natural spelling
        info->ranks = 0;
        if (!c["ranks"].is_array()) bad_claim("ranks", c["ranks"], "a list of ranks (1, 2, 3)");
        for (const json& r : c["ranks"]) {
            if (!r.is_number_integer() || r.get<int>() < 1 || r.get<int>() > 3)
                bad_claim("ranks", r, "each rank is 1, 2 or 3");
            info->ranks |= CONVCHECK_BIT(r.get<int>());
        }
    } else {
        info->ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    }
    info->data_formats = bits_of(c, "data_formats", {{"ncx", CONVCHECK_NCX}, {"nxc", CONVCHECK_NXC}}, false);
    if (!c.contains("data_formats")) info->data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    info->filter_formats =
        bits_of(c, "filter_formats", {{"oix", CONVCHECK_OIX}, {"xio", CONVCHECK_XIO}, {"oxi", CONVCHECK_OXI}}, false);
    if (!c.contains("filter_formats")) info->filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    info->accumulation_dtype = CONVCHECK_F32;
    if (c.contains("accumulation_dtype")) {
        const json& a = c["accumulation_dtype"];
        bool found = false;
        for (const auto& d : dtypes)
            if (a.is_string() && a.get<std::string>() == d.first && d.second <= CONVCHECK_F64)
                info->accumulation_dtype = d.second, found = true;
        if (!found) bad_claim("accumulation_dtype", a, "one of f32, f16, bf16, f64");
    }
    // protocol 1.1, quantized convolution: the rule and the accumulator it declares (plugin_info's, ABI 1.5)
    info->requantization = CONVCHECK_REQUANTIZATION_UNNAMED;
    if (c.contains("requantization")) {
        const json& r = c["requantization"];
        const std::vector<std::pair<std::string, int>> rules = {
            {"double_rounding", CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING},
            {"single_rounding", CONVCHECK_REQUANTIZATION_SINGLE_ROUNDING},
            {"nearest_even_f32", CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32},
            {"nearest_even_f32_with_zero_point", CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT}};
        bool found = r.is_null();  // null: none named (TOSA's window)
        for (const auto& k : rules)
            if (r.is_string() && r.get<std::string>() == k.first) info->requantization = k.second, found = true;
        if (!found)
            bad_claim("requantization", r, "one of double_rounding, single_rounding, nearest_even_f32, "
                                           "nearest_even_f32_with_zero_point, or null (none named)");
    }
    info->integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    if (c.contains("integer_accumulator")) {
        const json& a = c["integer_accumulator"];
        if (a == "s16_pairs") info->integer_accumulator = CONVCHECK_ACCUMULATOR_S16_PAIRS;
        else if (a != "s32") bad_claim("integer_accumulator", a, "s32 (exact) or s16_pairs (VPMADDUBSW's saturating pairs)");
    }
    info->prop_kinds = bits_of(c, "passes",
                               {{"forward", CONVCHECK_FORWARD},
                                {"backward_data", CONVCHECK_BACKWARD_DATA},
                                {"backward_weights", CONVCHECK_BACKWARD_WEIGHTS}},
                               false);
    if (!c.contains("passes")) info->prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD);
    if (c.contains("passes") && info->prop_kinds == 0) bad_claim("passes", c["passes"], "names at least one pass");
    info->mixed_dtypes = 0;
    if (c.contains("mixed_dtypes")) {
        if (!c["mixed_dtypes"].is_boolean()) bad_claim("mixed_dtypes", c["mixed_dtypes"], "true or false");
        info->mixed_dtypes = c["mixed_dtypes"].get<bool>() ? 1 : 0;
    }
    info->strided_tensors = 0;  // protocol 1 carries dense tensors only
    (void)claims_zero_points_outside_types(c);  // a bad value fails the handshake too
}

bool claims_zero_points_outside_types(const json& c) {
    if (!c.contains("zero_points_outside_types")) return false;
    const json& v = c["zero_points_outside_types"];
    if (!v.is_boolean()) bad_claim("zero_points_outside_types", v, "true or false");
    return v.get<bool>();
}

std::string check_outputs(const json& reply, const std::vector<Tensor>& tensors) {
    if (!reply.contains("outputs") || !reply["outputs"].is_object())
        return "its \"done\" reply has no \"outputs\" object naming what it wrote: " + reply.dump().substr(0, 200);
    const json& outs = reply["outputs"];
    for (const Tensor& t : tensors) {
        if (!t.output) continue;
        if (!outs.contains(t.name)) return "its \"done\" reply lacks the output " + t.name;
        const json& o = outs[t.name];
        const std::string dtype = o.is_object() && o.contains("dtype") && o["dtype"].is_string()
                                      ? o["dtype"].get<std::string>() : "(none)";
        if (dtype != dtype_name(t.dtype))
            return "it returned " + t.name + " as " + dtype + " where the case's " + t.name + " is " +
                   dtype_name(t.dtype);
        const json shape = o.is_object() && o.contains("shape") ? o["shape"] : json();
        if (shape != json(t.shape))
            return "it returned " + t.name + " of shape " + shape.dump() + " where the case's " + t.name + " is " +
                   json(t.shape).dump() + " (" + t.layout + ")";
    }
    for (const auto& item : outs.items()) {
        bool asked = false;
        for (const Tensor& t : tensors) asked = asked || (t.output && t.name == item.key());
        if (!asked) return "it returned an output " + item.key() + " the case does not have";
    }
    return "";
}

}  // namespace convcheck_exec
