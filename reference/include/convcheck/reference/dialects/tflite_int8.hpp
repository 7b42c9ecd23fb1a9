// TFLite CONV_2D and DEPTHWISE_CONV_2D, int8, as TFLite's reference kernels compute them
// (tensorflow/lite/kernels/internal/reference/integer_ops/conv.h, depthwise_conv.h; kernel_util.cc):
//
//   acc += filter_val * (input_val + input_offset);        input_offset = -input_zero_point
//   acc += bias_data[out_channel];
//   acc = MultiplyByQuantizedMultiplier(acc, output_multiplier[out_channel], output_shift[out_channel]);
//   acc += output_offset;  acc = max(acc, output_activation_min);  acc = min(acc, output_activation_max);
//
// with PopulateConvolutionQuantizationParams's multiplier per output channel,
//   effective_output_scale = static_cast<double>(input_scale) * filter_scale / static_cast<double>(output_scale)
// (QuantizeMultiplier), and CalculateActivationRangeQuantized's bounds: RELU [max(qmin, zp + round(0/s)), qmax],
// RELU6 [.., min(qmax, zp + round(6/s))], RELU_N1_TO_1 [max(qmin, zp + round(-1/s)), min(qmax, zp + round(1/s))],
// NONE [qmin, qmax] (Quantize: TfLiteRound(f / scale), f32 division, ties away from zero).
//
// The rule: MultiplyByQuantizedMultiplier is gemmlowp's double rounding (double_rounding), or single rounding
// when TFLite is built with TFLITE_SINGLE_ROUNDING (single_rounding).
//
// Text keys: op (CONV_2D, DEPTHWISE_CONV_2D), n c o in k (DEPTHWISE: n c depth_multiplier in k), padding
// (SAME, VALID), stride_h, stride_w, dilation_h_factor, dilation_w_factor, fused_activation_function (NONE,
// RELU, RELU6, RELU_N1_TO_1), input_scale, input_zero_point, filter_scale (one, or one per output channel:
// a:b:...), filter_zero_point (one or one per output channel), output_scale, output_zero_point, bias (0/1),
// TFLITE_SINGLE_ROUNDING (0/1: the build).
//
// Refused: another activation (TANH, SIGN_BIT: CalculateActivationRangeQuantized has no branch for them), a
// filter zero point other than 0 (int8 weights are symmetric; the kernel never subtracts one), a scale list
// that is neither one value nor one per output channel (TF_LITE_ENSURE_EQ(context,
// affine_quantization->scale->size, num_channels)), zero points outside int8, a non-positive scale, an output
// size below 1.
#pragma once

#include "convcheck/reference/dialects/quantized.hpp"

namespace convcheck::reference::dialects::tflite {

QuantizedResult read_int8(const AttributeSet& attributes);

// TFLite's Quantize(scale, zero_point, f): zero_point + TfLiteRound(f / scale), f / scale in f32; nullopt where
// the rounded value leaves int32 (TF_LITE_ENSURE(context, no_integer_overflow_from_quantization)).
std::optional<std::int64_t> quantize(float scale, std::int32_t zero_point, float f);

}  // namespace convcheck::reference::dialects::tflite
