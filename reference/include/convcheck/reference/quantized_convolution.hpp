// The integer sum of a quantized convolution (SPEC-NOTES §7; docs/quantized.md): every anchor (TFLite,
// ONNX QLinearConv and ConvInteger, oneDNN, TOSA CONV2D) sums (x - zx) * (w - zw) over the in-bounds taps of
// the forward index set (convolution.hpp), then adds an integer bias. A tap in the padding contributes
// nothing: the padding holds the zero point, whose difference is 0 (a zero point applied to padding taps is
// the bug this reading rules out). Requantization of the sum is requantize.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference {

// The integers of a case, each already in its type's range (u8 [0, 255], s8 [-128, 127], s32 bias):
// src NCX, weights OIX ([O][I/G][k...]), bias [O] or empty.
struct QuantizedInputs {
    std::span<const std::int32_t> src, weights, bias;
    std::span<const std::int32_t> src_zero_points;     // one (per tensor), or one per input channel
    std::span<const std::int32_t> weight_zero_points;  // one (per tensor), or one per output channel
};

// Per output, NCX ([N][O][out...]): the exact sum in int64, and the sums of its positive terms and of its
// negative terms' magnitudes (the bias among them). Every partial sum, in any order of the additions, lies in
// [-negative, positive], and the order that adds the positive terms first reaches `positive` (the negative ones
// first, -negative): an int32 accumulator overflows in some order exactly when positive > 2^31 - 1 or
// negative > 2^31 (fits_int32_accumulator).
struct IntegerSums {
    std::vector<std::int64_t> acc;
    std::vector<std::int64_t> positive, negative;
    std::vector<std::int64_t> terms;  // products summed (+ 1 for the bias)
};

// The definition, one output at a time in NCX order, its bias first, then (ic_g, then k...). Throws
// std::invalid_argument naming the tensor when a span's length is not the descriptor's, or a zero-point list
// is neither one value nor one per channel.
IntegerSums integer_convolution_sum(const ConvDescriptor& d, const QuantizedInputs& in);

// The sum an accumulator of s16 pairs forms (ABI 1.5's CONVCHECK_ACCUMULATOR_S16_PAIRS, quantization.h; x86's
// VPMADDUBSW before VNNI), for u8 src and s8 weights without a weights zero point: per output and in-bounds tap,
// the raw products x * w of the group's input channels 2j and 2j + 1 added in s16 with saturation to
// [-32768, 32767] (an odd last channel alone); then those sums, the bias and -zx * w of every in-bounds term,
// exactly. Where no pair saturates it is integer_convolution_sum's acc. NCX order, as IntegerSums. Throws
// std::invalid_argument for a weights zero point other than 0 or per-channel src zero points.
std::vector<std::int64_t> s16_pairs_sum(const ConvDescriptor& d, const QuantizedInputs& in);

// The sum an ONNX QDQ model computes (DequantizeLinear -> Conv, docs/quantized.md "An f32 accumulation"), in f32
// as the model does: each in-bounds tap dequantized, xf = f32((x - zx) * src_scale) and wf = f32((w - zw) *
// weights_scales[oc]) (one value, or one per output channel), each product f32(xf * wf), and the products summed in
// f32 in an order that keeps the partial sums large, a legitimate order among the many a float Conv may take: the
// positive products first, largest first, then the negative ones, largest magnitude first; then the bias added in
// f32: f32_bias[oc] (an f32 bias) or, for an s32 bias in `in`, f32(bias * f32(src_scale * weights_scales[oc])) (the
// model's DequantizeLinear of it). Per output, NCX order. Throws std::invalid_argument as integer_convolution_sum.
std::vector<float> qdq_f32_sum(const ConvDescriptor& d, const QuantizedInputs& in, float src_scale,
                               std::span<const float> weights_scales, std::span<const float> f32_bias);

// True when no order of any output's additions leaves int32; else `first` (when given) is the first output
// where one does.
bool fits_int32_accumulator(const IntegerSums& sums, std::int64_t* first = nullptr);

}  // namespace convcheck::reference
