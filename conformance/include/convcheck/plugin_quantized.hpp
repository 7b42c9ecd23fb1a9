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

// Lets add_conv's entries (plugin_support.hpp) pass quantized cases to the plugin's query and prepare, which
// then compute them (quantization_of gives the extension). Call after add_conv<Prepare>.
// f32_bias: the plugin also computes an F32 bias added after the scales (quantization.h); without it such a case is
// declined before its query ("a quantized bias is s32").
template <PrepareFn Prepare>
void add_quantized(bool f32_bias = false) {
    quantized_gate<PrepareTag<Prepare>> = f32_bias ? quantized_case_with_f32_bias : quantized_case;
}

// A plan's own copy of a case's quantization and its weights scales: the runner's are valid as the descriptor,
// during conv_prepare only (a plan must not keep pointers into them). Its `next` is NULL.
struct QuantizationCopy {
    explicit QuantizationCopy(const convcheck_quantization& from)
        : q(from), scales(from.weights_scales, from.weights_scales + from.weights_scale_count) {
        q.header.struct_size = sizeof(q);
        q.header.next = nullptr;
        q.weights_scales = scales.data();
    }
    QuantizationCopy(const QuantizationCopy&) = delete;
    QuantizationCopy& operator=(const QuantizationCopy&) = delete;
    convcheck_quantization q;
    std::vector<float> scales;
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
