// ABI 1.5, quantized convolution (convcheck/plugin/quantization.h), for plugins built on plugin_support.hpp:
// the quantization extension of a descriptor, the gate that lets add_conv's entries pass quantized cases to
// the plugin's own query and prepare (add_quantized), and the integers' element access. C++17, plugin.h only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/plugin.h"
#include "convcheck/plugin_support.hpp"

namespace convcheck_plugin_support {

// True for CONVCHECK_U8, CONVCHECK_S8 and CONVCHECK_S32.
inline bool is_integer_dtype(int32_t dtype) {
    return dtype == CONVCHECK_U8 || dtype == CONVCHECK_S8 || dtype == CONVCHECK_S32;
}

// The descriptor's quantization extension, or NULL when its chain holds none (or one too small for 1.5's).
inline const convcheck_quantization* quantization_of(const convcheck_conv_desc& d) {
    for (const convcheck_extension* e = extensions(d); e != nullptr; e = e->next)
        if (e->tag == CONVCHECK_EXTENSION_QUANTIZATION &&
            e->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_max))
            return reinterpret_cast<const convcheck_quantization*>(e);
    return nullptr;
}

// True when q has per-channel src or dst zero points (ABI 1.7: a count above 1, struct_size covering it).
inline bool per_channel_zero_points(const convcheck_quantization& q) {
    return q.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_zero_points) &&
           (q.src_zero_point_count > 1 || q.dst_zero_point_count > 1);
}
// Input channel c's src zero point, output channel oc's dst zero point (per tensor or per channel).
inline int32_t src_zero_point(const convcheck_quantization& q, int64_t c) {
    return per_channel_zero_points(q) && q.src_zero_point_count > 1 ? q.src_zero_points[c] : q.src_zero_point;
}
inline int32_t dst_zero_point(const convcheck_quantization& q, int64_t oc) {
    return per_channel_zero_points(q) && q.dst_zero_point_count > 1 ? q.dst_zero_points[oc] : q.dst_zero_point;
}

// True when q has per-output-channel weights zero points (ABI 1.8: a count above 1, struct_size covering it).
inline bool per_channel_weights_zero_points(const convcheck_quantization& q) {
    return q.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, weights_zero_points) &&
           q.weights_zero_point_count > 1;
}
// Output channel oc's weights zero point (per tensor or per output channel).
inline int32_t weights_zero_point(const convcheck_quantization& q, int64_t oc) {
    return per_channel_weights_zero_points(q) ? q.weights_zero_points[oc] : q.weights_zero_point;
}

// True when q has per-output-channel dst scales (ABI 1.9: a count above 1, struct_size covering it).
inline bool per_channel_dst_scales(const convcheck_quantization& q) {
    return q.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_scales) && q.dst_scale_count > 1;
}
// Output channel oc's dst scale (per tensor or per output channel).
inline float dst_scale(const convcheck_quantization& q, int64_t oc) {
    return per_channel_dst_scales(q) ? q.dst_scales[oc] : q.dst_scale;
}

// True when a zero point of q lies outside its tensor's type (ABI 1.8: oneDNN's s32 zero points, qconv zpt=s32), e.g.
// a src zero point of -2 on a U8 src. A float dst's zero point is never outside (its type holds any).
inline bool zero_points_outside_types(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    const TensorDtypes t = tensor_dtypes(d);
    const auto outside = [](int32_t dtype, int64_t z) {
        return (dtype == CONVCHECK_U8 && (z < 0 || z > 255)) || (dtype == CONVCHECK_S8 && (z < -128 || z > 127));
    };
    for (int64_t c = 0; c < d.in_channels; ++c)
        if (outside(t.src, src_zero_point(q, c))) return true;
    for (int64_t oc = 0; oc < d.out_channels; ++oc)
        if (outside(t.weights, weights_zero_point(q, oc)) || outside(t.dst, dst_zero_point(q, oc))) return true;
    return false;
}

// True for the float dtypes a quantized dst may have (ABI 1.7): CONVCHECK_F32, BF16, F16.
inline bool is_float_dst_dtype(int32_t dtype) {
    return dtype == CONVCHECK_F32 || dtype == CONVCHECK_BF16 || dtype == CONVCHECK_F16;
}

// True when an S32 dst is oneDNN's rounded value (ABI 1.7), not the accumulator: a scale other than 1, a dst zero
// point, or an F32 bias (post-ops too: the chain says so).
inline bool rounded_s32_dst(const convcheck_conv_desc& d, const convcheck_quantization& q) {
    if (tensor_dtypes(d).dst != CONVCHECK_S32) return false;
    bool scaled = q.src_scale != 1.0f || q.dst_scale != 1.0f || q.dst_zero_point != 0;
    for (int64_t o = 0; o < q.weights_scale_count; ++o) scaled = scaled || q.weights_scales[o] != 1.0f;
    return scaled || (d.has_bias && tensor_dtypes(d).bias == CONVCHECK_F32);
}

// What a plugin's query and prepare compute beyond ABI 1.5's quantized case: add_quantized's `takes`, or'ed.
enum QuantizedTakes : unsigned {
    kQuantizedF32Bias = 1u,           // an F32 bias added after the scales, with a U8 or S8 dst (1.6)
    kQuantizedGeneralOutput = 2u,     // 1.7's general output: a float dst, a rounded s32 dst, post-ops (an F32 bias
                                      // with any dst too)
    kQuantizedChannelZeroPoints = 4u, // 1.7's per-channel src and dst zero points
    kQuantizedWeightsZeroPoints = 8u, // 1.8's per-output-channel weights zero points
    kQuantizedS32ZeroPoints = 16u,    // 1.8's zero points outside their tensors' types (oneDNN's s32 zero points)
    kQuantizedDstScales = 32u         // 1.9's per-output-channel dst scales
};

// The rules of a quantized case a plugin takes: ABI 1.5's, and what `takes` (QuantizedTakes) adds. True when d is a
// quantized case (an integer dtype on any tensor, or a quantization extension); *why is then "" when the plugin takes
// it, else why it declines it.
inline bool quantized_case_rules(const convcheck_conv_desc& d, std::string* why, unsigned takes) {
    const bool general = (takes & kQuantizedGeneralOutput) != 0;
    const bool f32_bias = general || (takes & kQuantizedF32Bias) != 0;
    const bool channel_zero_points = (takes & kQuantizedChannelZeroPoints) != 0;
    const bool weights_zero_points = (takes & kQuantizedWeightsZeroPoints) != 0;
    const bool s32_zero_points = (takes & kQuantizedS32ZeroPoints) != 0;
    const bool dst_scales = (takes & kQuantizedDstScales) != 0;
    const TensorDtypes t = tensor_dtypes(d);
    const convcheck_quantization* q = quantization_of(d);
    if (!is_integer_dtype(t.src) && !is_integer_dtype(t.weights) && !is_integer_dtype(t.dst) && q == nullptr)
        return false;
    why->clear();
    std::string beside;  // an extension other than the quantization, and whether it is the post-ops
    bool post_ops = false;
    for (const convcheck_extension* e = extensions(d); e != nullptr; e = e->next)
        if (e != &q->header) {
            post_ops = post_ops || e->tag == CONVCHECK_EXTENSION_POST_OPS;
            if (e->tag != CONVCHECK_EXTENSION_POST_OPS || !general) beside = std::to_string(e->tag);
        }
    if (prop_kind(d) != CONVCHECK_FORWARD) *why = "a quantized convolution is a forward pass";
    else if (q == nullptr) *why = "integer dtypes without the quantization extension (ABI 1.5)";
    else if (!beside.empty())
        *why = post_ops && !general ? "post-ops on a quantized case (ABI 1.7): the plugin does not take them"
                                    : "an extension beside the quantization: unknown tag " + beside;
    else if ((t.src != CONVCHECK_U8 && t.src != CONVCHECK_S8) || (t.weights != CONVCHECK_U8 && t.weights != CONVCHECK_S8))
        *why = "quantized src and weights are u8 or s8";
    else if (!is_integer_dtype(t.dst) && !(general && is_float_dst_dtype(t.dst)))
        *why = general ? "a quantized dst is u8, s8, s32, f32, bf16 or f16" : "a quantized dst is u8, s8 or s32 (a float dst is not taken)";
    else if (d.has_bias && t.bias == CONVCHECK_F32 && !f32_bias)
        *why = "a quantized bias is s32 (the plugin takes no f32 bias added after the scales)";
    else if (d.has_bias && t.bias != CONVCHECK_S32 && t.bias != CONVCHECK_F32) *why = "a quantized bias is s32";
    else if (d.has_bias && t.bias == CONVCHECK_F32 && !general && t.dst != CONVCHECK_U8 && t.dst != CONVCHECK_S8)
        *why = "an f32 bias with a dst other than u8 or s8 (ABI 1.7): the plugin does not take it";
    else if (!general && rounded_s32_dst(d, *q))
        *why = "an s32 dst with scales, a dst zero point or an f32 bias is oneDNN's rounded s32 (ABI 1.7); the plugin's "
               "s32 dst is the accumulator";
    else if (per_channel_zero_points(*q) && !channel_zero_points)
        *why = "src or dst zero points per channel (the plugin takes one zero point per tensor)";
    else if (per_channel_weights_zero_points(*q) && !weights_zero_points)
        *why = "weights zero points per output channel (the plugin takes one weights zero point per tensor)";
    else if (!s32_zero_points && zero_points_outside_types(d, *q))
        *why = "a zero point outside its tensor's type (oneDNN's s32 zero points; the plugin takes zero points its "
               "tensors' types hold)";
    else if (per_channel_dst_scales(*q) && !dst_scales)
        *why = "dst scales per output channel (the plugin takes one dst scale per tensor)";
    return true;
}

// True when d is a quantized case: an integer dtype on any tensor, or a quantization extension. *why is then ""
// when it is one as ABI 1.5 writes it (the forward pass; src and weights U8 or S8, bias S32, dst U8, S8 or S32 the
// accumulator; one zero point per tensor; the quantization extension, alone in the chain), else why a plugin declines it.
inline bool quantized_case(const convcheck_conv_desc& d, std::string* why) { return quantized_case_rules(d, why, 0); }
// quantized_case_rules with `takes` fixed: the gate add_quantized installs.
template <unsigned Takes>
bool quantized_case_taking(const convcheck_conv_desc& d, std::string* why) {
    return quantized_case_rules(d, why, Takes);
}

// Lets add_conv's entries (plugin_support.hpp) pass quantized cases to the plugin's query and prepare, which
// then compute them (quantization_of gives the extension). Call after add_conv<Prepare>. `takes` (QuantizedTakes,
// or'ed) names what they compute beyond ABI 1.5's quantized case; a case that needs more is declined before the
// plugin's query, saying what it needs ("a quantized bias is s32", "src or dst zero points per channel ..."):
//   kQuantizedF32Bias            an F32 bias added after the scales, with a U8 or S8 dst (quantization.h);
//   kQuantizedGeneralOutput      1.7's general output: a float dst, a rounded s32 dst, post-ops beside the
//                                quantization, an F32 bias with any dst (implies kQuantizedF32Bias);
//   kQuantizedChannelZeroPoints  1.7's per-channel src and dst zero points (src_zero_point(q, c), dst_zero_point(q, oc));
//   kQuantizedWeightsZeroPoints  1.8's per-output-channel weights zero points (weights_zero_point(q, oc));
//   kQuantizedS32ZeroPoints      1.8's zero points outside their tensors' types (any s32 value: oneDNN's);
//   kQuantizedDstScales          1.9's per-output-channel dst scales (dst_scale(q, oc)).
// add_quantized<Prepare>(true) is add_quantized<Prepare>(kQuantizedF32Bias), as in 1.6.
// The gate of `takes`: one instantiation of quantized_case_taking per value.
template <unsigned... Takes>
QuantizedGate gate_of(unsigned takes, std::integer_sequence<unsigned, Takes...>) {
    static constexpr QuantizedGate kGates[] = {quantized_case_taking<Takes>...};
    return kGates[takes];
}

template <PrepareFn Prepare>
void add_quantized(unsigned takes = 0) {
    quantized_gate<PrepareTag<Prepare>> = gate_of(takes & 63u, std::make_integer_sequence<unsigned, 64>{});
}

// A plan's own copy of a case's quantization, its weights scales and per-channel zero points: the runner's are valid
// as the descriptor, during conv_prepare only (a plan must not keep pointers into them). Its `next` is NULL; its
// zero-point counts are 1.7's and 1.8's, its dst scale count 1.9's (1 where the runner's struct_size does not cover
// them).
struct QuantizationCopy {
    explicit QuantizationCopy(const convcheck_quantization& from)
        : q(from), scales(from.weights_scales, from.weights_scales + from.weights_scale_count) {
        if (per_channel_zero_points(from)) {
            if (from.src_zero_point_count > 1)
                src_zero_points.assign(from.src_zero_points, from.src_zero_points + from.src_zero_point_count);
            if (from.dst_zero_point_count > 1)
                dst_zero_points.assign(from.dst_zero_points, from.dst_zero_points + from.dst_zero_point_count);
        }
        if (per_channel_weights_zero_points(from))
            weights_zero_points.assign(from.weights_zero_points, from.weights_zero_points + from.weights_zero_point_count);
        if (per_channel_dst_scales(from)) dst_scales.assign(from.dst_scales, from.dst_scales + from.dst_scale_count);
        q.header.struct_size = sizeof(q);
        q.header.next = nullptr;
        q.weights_scales = scales.data();
        q.src_zero_point_count = src_zero_points.empty() ? 1 : static_cast<int64_t>(src_zero_points.size());
        q.src_zero_points = src_zero_points.empty() ? nullptr : src_zero_points.data();
        q.dst_zero_point_count = dst_zero_points.empty() ? 1 : static_cast<int64_t>(dst_zero_points.size());
        q.dst_zero_points = dst_zero_points.empty() ? nullptr : dst_zero_points.data();
        q.weights_zero_point_count = weights_zero_points.empty() ? 1 : static_cast<int64_t>(weights_zero_points.size());
        q.weights_zero_points = weights_zero_points.empty() ? nullptr : weights_zero_points.data();
        q.dst_scale_count = dst_scales.empty() ? 1 : static_cast<int64_t>(dst_scales.size());
        q.dst_scales = dst_scales.empty() ? nullptr : dst_scales.data();
    }
    QuantizationCopy(const QuantizationCopy&) = delete;
    QuantizationCopy& operator=(const QuantizationCopy&) = delete;
    convcheck_quantization q;
    std::vector<float> scales;
    std::vector<int32_t> src_zero_points, dst_zero_points, weights_zero_points;
    std::vector<float> dst_scales;
};

// One integer element at an element offset.
inline int64_t load_integer(const void* data, int32_t dtype, int64_t offset) {
    if (dtype == CONVCHECK_U8) return static_cast<const uint8_t*>(data)[offset];
    if (dtype == CONVCHECK_S8) return static_cast<const int8_t*>(data)[offset];
    return static_cast<const int32_t*>(data)[offset];
}
inline void store_integer(void* data, int32_t dtype, int64_t offset, int64_t v) {
    if (dtype == CONVCHECK_U8) static_cast<uint8_t*>(data)[offset] = static_cast<uint8_t>(v);
    else if (dtype == CONVCHECK_S8) static_cast<int8_t*>(data)[offset] = static_cast<int8_t>(v);
    else static_cast<int32_t*>(data)[offset] = static_cast<int32_t>(v);
}
// Bytes of one element of an integer dtype.
inline std::size_t integer_bytes(int32_t dtype) { return dtype == CONVCHECK_S32 ? 4 : 1; }

// Output channel oc's weights scale (per tensor or per output channel).
inline float weights_scale(const convcheck_quantization& q, int64_t oc) {
    return q.weights_scales[q.weights_scale_count == 1 ? 0 : oc];
}

}  // namespace convcheck_plugin_support
