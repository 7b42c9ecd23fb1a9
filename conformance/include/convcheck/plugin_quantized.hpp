// ABI 1.5, quantized convolution (convcheck/plugin/quantization.h), for plugins built on plugin_support.hpp:
// the quantization extension of a descriptor, the gate that lets add_conv's entries pass quantized cases to
// the plugin's own query and prepare (add_quantized), and the integers' element access. C++17, plugin.h only.
#pragma once

#include <cstdint>
#include <string>
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

// True when d is a quantized case: an integer dtype on any tensor, or a quantization extension. *why is then ""
// when it is one as ABI 1.5 writes it (the forward pass; src and weights U8 or S8, bias S32, dst U8, S8 or S32;
// the quantization extension, alone in the chain), else why a plugin declines it.
inline bool quantized_case(const convcheck_conv_desc& d, std::string* why) {
    const TensorDtypes t = tensor_dtypes(d);
    const convcheck_quantization* q = quantization_of(d);
    if (!is_integer_dtype(t.src) && !is_integer_dtype(t.weights) && !is_integer_dtype(t.dst) && q == nullptr)
        return false;
    why->clear();
    if (prop_kind(d) != CONVCHECK_FORWARD) *why = "a quantized convolution is a forward pass";
    else if (q == nullptr) *why = "integer dtypes without the quantization extension (ABI 1.5)";
    else if (q->header.next != nullptr) *why = "an extension beside the quantization: unknown tag " + std::to_string(q->header.next->tag);
    else if ((t.src != CONVCHECK_U8 && t.src != CONVCHECK_S8) || (t.weights != CONVCHECK_U8 && t.weights != CONVCHECK_S8))
        *why = "quantized src and weights are u8 or s8";
    else if (!is_integer_dtype(t.dst)) *why = "a quantized dst is u8, s8 or s32 (a float dst is not taken)";
    else if (d.has_bias && t.bias == CONVCHECK_F32) *why = "a quantized bias is s32 (the plugin takes no f32 bias added after the scales)";
    else if (d.has_bias && t.bias != CONVCHECK_S32) *why = "a quantized bias is s32";
    else if (per_channel_zero_points(*q))
        *why = "src or dst zero points per channel (the plugin takes one zero point per tensor)";
    return true;
}
// quantized_case, also taking an F32 bias (added after the scales, quantization.h) with a U8 or S8 dst: for a plugin
// whose query and prepare compute it (add_quantized<Prepare>(true)).
inline bool quantized_case_with_f32_bias(const convcheck_conv_desc& d, std::string* why) {
    if (!quantized_case(d, why)) return false;
    const TensorDtypes t = tensor_dtypes(d);
    if (!why->empty() && d.has_bias && t.bias == CONVCHECK_F32 && (t.dst == CONVCHECK_U8 || t.dst == CONVCHECK_S8)) {
        convcheck_conv_desc s32 = d;  // the rest of the rules, read with the bias as S32
        s32.bias_dtype = CONVCHECK_S32;
        quantized_case(s32, why);
    }
    return true;
}

// quantized_case, also taking per-channel src and dst zero points (ABI 1.7): for a plugin whose query and prepare
// compute them (add_quantized<Prepare>(f32_bias, true)).
inline bool quantized_case_with_channel_zero_points(const convcheck_conv_desc& d, std::string* why) {
    if (!quantized_case(d, why)) return false;
    if (!why->empty() && per_channel_zero_points(*quantization_of(d))) {
        convcheck_quantization one = *quantization_of(d);  // the rest of the rules, read with one zero point each
        one.src_zero_point_count = one.dst_zero_point_count = 1;
        convcheck_conv_desc per_tensor = d;
        per_tensor.next = &one.header;
        quantized_case(per_tensor, why);
    }
    return true;
}
inline bool quantized_case_with_f32_bias_and_channel_zero_points(const convcheck_conv_desc& d, std::string* why) {
    if (!quantized_case(d, why)) return false;
    if (!why->empty() && per_channel_zero_points(*quantization_of(d))) {
        convcheck_quantization one = *quantization_of(d);
        one.src_zero_point_count = one.dst_zero_point_count = 1;
        convcheck_conv_desc per_tensor = d;
        per_tensor.next = &one.header;
        quantized_case_with_f32_bias(per_tensor, why);
    } else if (!why->empty()) {
        quantized_case_with_f32_bias(d, why);
    }
    return true;
}
// Lets add_conv's entries (plugin_support.hpp) pass quantized cases to the plugin's query and prepare, which
// then compute them (quantization_of gives the extension). Call after add_conv<Prepare>.
// f32_bias: the plugin also computes an F32 bias added after the scales (quantization.h); without it such a case is
// declined before its query ("a quantized bias is s32").
// channel_zero_points: the plugin also computes per-channel src and dst zero points (ABI 1.7, quantization.h); without
// it such a case is declined before its query.
template <PrepareFn Prepare>
void add_quantized(bool f32_bias = false, bool channel_zero_points = false) {
    quantized_gate<PrepareTag<Prepare>> =
        channel_zero_points ? (f32_bias ? quantized_case_with_f32_bias_and_channel_zero_points
                                        : quantized_case_with_channel_zero_points)
                            : (f32_bias ? quantized_case_with_f32_bias : quantized_case);
}

// A plan's own copy of a case's quantization, its weights scales and per-channel zero points: the runner's are valid
// as the descriptor, during conv_prepare only (a plan must not keep pointers into them). Its `next` is NULL; its
// zero-point counts are 1.7's (1 where the runner's struct_size does not cover them).
struct QuantizationCopy {
    explicit QuantizationCopy(const convcheck_quantization& from)
        : q(from), scales(from.weights_scales, from.weights_scales + from.weights_scale_count) {
        if (per_channel_zero_points(from)) {
            if (from.src_zero_point_count > 1)
                src_zero_points.assign(from.src_zero_points, from.src_zero_points + from.src_zero_point_count);
            if (from.dst_zero_point_count > 1)
                dst_zero_points.assign(from.dst_zero_points, from.dst_zero_points + from.dst_zero_point_count);
        }
        q.header.struct_size = sizeof(q);
        q.header.next = nullptr;
        q.weights_scales = scales.data();
        q.src_zero_point_count = src_zero_points.empty() ? 1 : static_cast<int64_t>(src_zero_points.size());
        q.src_zero_points = src_zero_points.empty() ? nullptr : src_zero_points.data();
        q.dst_zero_point_count = dst_zero_points.empty() ? 1 : static_cast<int64_t>(dst_zero_points.size());
        q.dst_zero_points = dst_zero_points.empty() ? nullptr : dst_zero_points.data();
    }
    QuantizationCopy(const QuantizationCopy&) = delete;
    QuantizationCopy& operator=(const QuantizationCopy&) = delete;
    convcheck_quantization q;
    std::vector<float> scales;
    std::vector<int32_t> src_zero_points, dst_zero_points;
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
