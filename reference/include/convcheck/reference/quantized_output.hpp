// The outputs of a quantized convolution (docs/quantized.md): the integer sum (quantized_convolution.hpp)
// requantized by a named rule (requantize.hpp), plus dst's zero point, saturated to dst's range or the
// narrower one a fused activation gives; or, for a backend that names no rule, TOSA's INEXACT_ROUND window.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/reference/requantize.hpp"

namespace convcheck::reference {

// M(oc) = src_scale * weights_scale(oc) / dst_scale for each output channel, in double: exact when the
// scales are dyadic and dst_scale is a power of two (exact mode's scales). weights_scales holds one value
// per output channel (wsc=oc) or one for all.
std::vector<double> output_multipliers(const QuantizedDescriptor& q, std::span<const float> weights_scales);

// dst_zero_point is the output channel's (oneDNN's reference, benchdnn conv/ref_conv.cpp: "int dst_zp = has_dst_zp ?
// dst_zps.get_elem(0) : 0; if (dst_zp_mask > 0) dst_zp = dst_zps.get_elem(g * OCG + oc); dst = conv_res *
// dst_scale + dst_zp;"): q.dst_zero_point, or dzp[oc] per channel.
// One output under `rule`: an s32 dst is the accumulator itself unless rounded_s32(); a u8/s8 dst (and a rounded s32)
// is
// requantize_with_zero_point(acc, multiplier, dst_zero_point, rule) clamped to [dst_min, dst_max]. acc must fit in
// int32.
std::int64_t quantized_output(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                              std::int32_t dst_zero_point, Requantization rule);

// The integers TOSA's INEXACT_ROUND allows for one output (inexact_window around acc * multiplier), each end
// saturated as quantized_output saturates; for an s32 dst, acc alone.
IntegerWindow quantized_output_window(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                                      std::int32_t dst_zero_point);

// With an f32 bias (bdt=f32): acc is the integer sum without the bias, `bias` the output channel's f32 bias (added
// after src_scale * weights_scale, before dst_scale). The two f32 rules (multiply_nearest_even_f32_with_bias: the
// zero point added after rounding, or before it for nearest_even_f32_with_zero_point) clamped to [dst_min, dst_max];
// std::nullopt for double and single rounding, which are integer arithmetic and have no f32 bias to add.
std::optional<std::int64_t> quantized_output_f32_bias(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                                                      float bias, std::int32_t dst_zero_point, Requantization rule);
// TOSA's INEXACT_ROUND window around the exact acc * multiplier + bias / dst_scale, saturated as quantized_output.
IntegerWindow quantized_output_window_f32_bias(const QuantizedDescriptor& q, std::int64_t acc, double multiplier, float bias,
                                               std::int32_t dst_zero_point);

// The same with the descriptor's per-tensor dst zero point, q.dst_zero_point.
inline std::int64_t quantized_output(const QuantizedDescriptor& q, std::int64_t acc, double multiplier, Requantization rule) {
    return quantized_output(q, acc, multiplier, q.dst_zero_point, rule);
}
inline IntegerWindow quantized_output_window(const QuantizedDescriptor& q, std::int64_t acc, double multiplier) {
    return quantized_output_window(q, acc, multiplier, q.dst_zero_point);
}
inline std::optional<std::int64_t> quantized_output_f32_bias(const QuantizedDescriptor& q, std::int64_t acc,
                                                             double multiplier, float bias, Requantization rule) {
    return quantized_output_f32_bias(q, acc, multiplier, bias, q.dst_zero_point, rule);
}
inline IntegerWindow quantized_output_window_f32_bias(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                                                      float bias) {
    return quantized_output_window_f32_bias(q, acc, multiplier, bias, q.dst_zero_point);
}

}  // namespace convcheck::reference
