// benchdnn's int8 conv cases as qconv: descriptors (benchdnn_quantized.hpp).
#include "convcheck/formats/benchdnn_quantized.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "convcheck/core/memory_layout.hpp"
#include "convcheck/core/quantized_descriptor.hpp"

namespace convcheck {

namespace {

bool is_integer(const std::string& t) {
    return t == "u8" || t == "s8" || t == "s32" || t == "s64" || t == "s4" || t == "u4" || t == "boolean";
}

// One entry of --attr-scales or --attr-zero-points as benchdnn reads it (dnn_types.cpp, entry_t::from_str): ARG:MASK,
// then the VALUE only where the mask gives one value (common, host_scalar, 0: has_single_element()), then
// [:DATA_TYPE[:GROUPS]]. So wei:per_oc:bf16 is per-channel scales of type bf16, not a value "bf16".
struct ArgPolicy {
    std::string arg, mask, value, data_type;
};

bool common_mask(const std::string& mask) { return mask == "common" || mask == "host_scalar" || mask == "0"; }

std::vector<ArgPolicy> arg_policies(const std::string& written) {
    std::vector<ArgPolicy> out;
    if (written.empty()) return out;
    for (const std::string& entry : split_benchdnn_list(written, '+')) {
        const auto parts = split_benchdnn_list(entry, ':');
        ArgPolicy p;
        if (!parts.empty()) p.arg = parts[0];
        if (parts.size() > 1) p.mask = parts[1];
        const std::size_t type_at = common_mask(p.mask) ? 3 : 2;  // after the value, where there is one
        if (type_at == 3 && parts.size() > 2) p.value = parts[2];
        if (parts.size() > type_at) p.data_type = parts[type_at];
        if (parts.size() > type_at + 1) p.data_type = "groups";  // a GROUPS part: grouped scales or zero points
        out.push_back(p);
    }
    return out;
}

// A scale: benchdnn's f32 value of the text (stof_safe), finite. A zero point: an integer within s32.
bool parse_float(const std::string& text, float* out) { return read_benchdnn_float(text, out) && std::isfinite(*out); }
bool parse_int(const std::string& text, std::int32_t* out) {
    long long v = 0;
    if (!read_benchdnn_integer(text, &v) || v < INT32_MIN || v > INT32_MAX) return false;
    *out = static_cast<std::int32_t>(v);
    return true;
}

// --attr-scales onto q; "" or the skip reason.
std::string apply_scales(const std::string& written, QuantizedDescriptor& q) {
    const std::string option = "--attr-scales";
    for (const ArgPolicy& p : arg_policies(written)) {
        if (!p.data_type.empty() && p.data_type != "f32")
            return option + ": " + p.arg + " scales of type " + p.data_type +
                   " (or grouped); convcheck's quantized descriptor has f32 scales, one per tensor or per output channel";
        const bool wei = p.arg == "wei";
        if (p.arg != "src" && p.arg != "src0" && !wei && p.arg != "dst")
            return option + ": a scale for " + p.arg + ", not an argument of the convolution";
        if (common_mask(p.mask)) {
            float v = 0;
            if (!parse_float(p.value, &v)) return option + ": " + p.arg + ":" + p.mask + " needs a number (benchdnn refuses it)";
            (wei ? q.weights_scale : p.arg == "dst" ? q.dst_scale : q.src_scale) = v;
            continue;
        }
        const bool grouped = q.conv.groups > 1;  // per_oc of grouped weights is per_dim_01 (mask 3): every output channel
        if (wei && (p.mask == "per_oc" || p.mask == (grouped ? "3" : "1") || (grouped && p.mask == "per_dim_01") ||
                    (!grouped && p.mask == "per_dim_0"))) {
            q.per_channel_scales = true;
            continue;
        }
        return option + ": " + p.arg + ":" + p.mask +
               " (scales per channel of src or dst, or per weights element); convcheck's quantized descriptor has "
               "per-tensor src and dst scales and per-output-channel weights scales";
    }
    return "";
}

// --attr-zero-points onto q; "" or the skip reason. A zero point's DATA_TYPE (s32, s8, u8) is how oneDNN stores it:
// a common one is read as its value where that type holds it; oneDNN's zero points are s32 values whatever the
// tensor's type, so one outside the tensor's type is read as it is, with zpt=s32. Per channel (src or dst, mask 1 << 1: per_dim_1, or
// per_oc, benchdnn's name for the same mask) is szp=ic / dzp=oc: benchdnn fills their values, convcheck draws them.
std::string apply_zero_points(const std::string& written, QuantizedDescriptor& q) {
    const std::string option = "--attr-zero-points";
    for (const ArgPolicy& p : arg_policies(written)) {
        if (p.arg != "src" && p.arg != "wei" && p.arg != "dst")
            return option + ": a zero point for " + p.arg + ", not an argument of the convolution";
        if (p.data_type == "groups")
            return option + ": " + p.arg + " zero points in groups; convcheck's quantized descriptor has one zero point "
                   "per tensor or per channel";
        if (!p.data_type.empty() && p.data_type != "s32" && p.data_type != "s8" && p.data_type != "u8")
            return option + ": " + p.arg + " zero points of type " + p.data_type +
                   "; convcheck's quantized descriptor has integer zero points that s32, s8 or u8 hold";
        const bool channel_mask = p.mask == "per_dim_1" || p.mask == "per_oc" || p.mask == "2";
        if (channel_mask && p.arg != "wei") {
            if (!p.data_type.empty() && p.data_type != "s32")
                return option + ": " + p.arg + ":" + p.mask + " of type " + p.data_type +
                       "; convcheck draws per-channel zero points over the tensor's own type, which " + p.data_type +
                       " may not hold";
            (p.arg == "src" ? q.per_channel_src_zero_points : q.per_channel_dst_zero_points) = true;
            continue;
        }
        if (!common_mask(p.mask))
            return option + ": " + p.arg + ":" + p.mask +
                   " (weights zero points per channel, or another mask); convcheck reads src and dst zero points per "
                   "tensor or per channel (mask 1 << 1) and a common weights zero point, as oneDNN's convolution takes them";
        std::int32_t v = 0;
        if (!parse_int(p.value, &v)) return option + ": " + p.arg + ":" + p.mask + " needs an integer (benchdnn refuses it)";
        if ((p.data_type == "s8" && (v < -128 || v > 127)) || (p.data_type == "u8" && (v < 0 || v > 255)))
            return option + ": " + p.arg + ":" + p.mask + ":" + p.value + ":" + p.data_type + ": the value is outside " +
                   p.data_type + " (benchdnn refuses it)";
        (p.arg == "src" ? q.src_zero_point : p.arg == "wei" ? q.weights_zero_point : q.dst_zero_point) = v;
        // oneDNN's zero points are s32 attributes whatever the tensor's type (benchdnn takes -2 for a u8 src): the
        // case says so (zpt=s32) where one lies outside its tensor's type, rather than refuse it by ONNX's rule
        const IntegerType t = p.arg == "src" ? q.src : p.arg == "wei" ? q.weights : q.dst;
        if (v < lowest(t) || v > highest(t)) q.s32_zero_points = true;
    }
    return "";
}

}  // namespace

bool benchdnn_float_scales(const std::string& written, ConvDescriptor& d, std::string* reason) {
    QuantizedDescriptor q;  // the int8 mapping's reading of the option, on a stand-in with d's geometry
    q.conv = d;
    if (std::string why = apply_scales(written, q); !why.empty()) {
        *reason = why;
        return false;
    }
    d.scales.src = q.src_scale;
    d.scales.dst = q.dst_scale;
    d.scales.per_channel = q.per_channel_scales;
    d.scales.weights = q.per_channel_scales ? 1.0f : q.weights_scale;
    try {
        validate_scales(d.scales, d.out_channels);
    } catch (const ConvError& e) {
        *reason = "--attr-scales: " + e.attribute() + "=" + e.value() + ": " + e.rule();
        return false;
    }
    return true;
}

bool benchdnn_integer_types(const std::array<std::string, 3>& types) {
    return std::any_of(types.begin(), types.end(), is_integer);
}

BenchdnnMapping map_benchdnn_int8_case(const BenchdnnSetup& s, const BenchdnnProblem& problem,
                                       const std::array<std::string, 3>& t) {
    BenchdnnMapping m;
    const auto int8 = [](const std::string& x) { return x == "u8" || x == "s8"; };
    // dst: u8, s8, s32 (the accumulator, or oneDNN's rounded s32 with scales, a bias or post-ops), or a float type
    const bool float_dst = t[2] == "f32" || t[2] == "bf16" || t[2] == "f16";
    if (!int8(t[0]) || !int8(t[1]) || !(int8(t[2]) || t[2] == "s32" || float_dst)) {
        m.skip_reason = "--dt: integer types other than u8/s8 src and weights with a u8, s8, s32, f32, bf16 or f16 dst "
                        "(s32 or 4-bit inputs, integer and floating-point inputs mixed)";
        return m;
    }
    // Every other option as benchdnn reads it for an f32 case: the direction, the layouts, the algorithm, the
    // other attributes, --mb (the scales and zero points are read below)
    BenchdnnSetup as_float = s;
    as_float.dt = "f32";
    as_float.cfg.clear();
    as_float.attr[static_cast<int>(BenchdnnAttr::scales)].clear();
    as_float.attr[static_cast<int>(BenchdnnAttr::zero_points)].clear();  // the post-ops as a float case's (po=)
    as_float.attr[static_cast<int>(BenchdnnAttr::fpmath)].clear();  // read below: it applies to integer primitives only
                                                                    // with APPLY_TO_INT
    const BenchdnnMapping f = map_benchdnn_case(as_float, problem);
    if (!f.descriptor) {
        m.skip_reason = f.skip_reason;
        return m;
    }
    FpMath fpmath = FpMath::strict;
    bool apply_to_int = false;
    if (!benchdnn_fpmath(s.attr[static_cast<int>(BenchdnnAttr::fpmath)], &fpmath, &apply_to_int, &m.skip_reason)) return m;
    if (fpmath != FpMath::strict && apply_to_int) {
        m.skip_reason = "--attr-fpmath=" + s.attr[static_cast<int>(BenchdnnAttr::fpmath)] +
                        ": applied to an integer primitive, oneDNN may compute the int8 convolution in " +
                        std::string(to_string(fpmath)) + "; convcheck's integer convolution is exact";
        return m;
    }
    const ConvDescriptor& d = *f.descriptor;
    if (d.pass != Pass::forward) {
        m.skip_reason = "--dir=" + s.dir + ": an int8 backward pass (oneDNN's int8 convolution is forward only)";
        return m;
    }
    // the bias: FWD_B's is f32 (bench_conv.cpp; v3.7.1: the weights' type, f32 for integer weights), FWD_D's and
    // FWD_I's --bia-dt's; oneDNN adds it after the src and weights scales, before the dst scale: bdt=f32
    if (d.has_bias && d.bias_dtype() != DataType::f32) {
        m.skip_reason = "--bia-dt=" + std::string(to_string(d.bias_dtype())) +
                        ": an int8 convolution with a bias other than f32; convcheck's quantized descriptor has an "
                        "f32 bias after the scales (bdt=f32) or an s32 one in the accumulator";
        return m;
    }
    if (has_strides(d)) {
        m.skip_reason = "--stag/--wtag/--dtag/--strides: memory strides on an int8 case; convcheck's quantized cases "
                        "take ncx/nxc and oix/xio";
        return m;
    }
    QuantizedDescriptor q;
    q.conv = d;
    q.conv.dtype = DataType::f32;
    q.conv.dtype_overrides = {};
    q.f32_bias = d.has_bias;
    parse_integer_type(t[0], &q.src);
    parse_integer_type(t[1], &q.weights);
    DataType float_type = DataType::f32;
    if (float_dst && parse_data_type(t[2], &float_type)) q.float_dst = float_type, q.dst = IntegerType::s32;
    else parse_integer_type(t[2], &q.dst);
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    if (std::string why = apply_scales(s.attr[static_cast<int>(BenchdnnAttr::scales)], q); !why.empty()) {
        m.skip_reason = why;
        return m;
    }
    if (std::string why = apply_zero_points(s.attr[static_cast<int>(BenchdnnAttr::zero_points)], q); !why.empty()) {
        m.skip_reason = why;
        return m;
    }
    try {
        validate(q);
    } catch (const ConvError& e) {
        m.skip_reason = "--dt/--attr-scales/--attr-zero-points: " + e.attribute() + "=" + e.value() + ": " + e.rule() +
                        " (convcheck's quantized descriptor)";
        return m;
    }
    m.quantized = q;
    return m;
}

}  // namespace convcheck
