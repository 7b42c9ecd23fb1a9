// TFLite CONV_2D and DEPTHWISE_CONV_2D on float32 tensors, as TFLite's reference kernels compute them
// (tensorflow/lite/kernels/internal/reference/conv.h, depthwise_conv.h; kernel_util.h):
//
//   total += input_value * filter_value;                          (over the window; padding reads nothing)
//   output = ActivationFunctionWithMinMax(total + bias_value, output_activation_min, output_activation_max);
//
// with ActivationFunctionWithMinMax(x, lo, hi) = min(max(x, lo), hi) and CalculateActivationRange's bounds:
// RELU [0, +max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], NONE [lowest, max]. The fused activation is therefore a
// post-op applied after the bias (post_ops.hpp): RELU → relu, RELU6 → clip:0:6, RELU_N1_TO_1 → clip:-1:1.
//
// Text keys: op (CONV_2D, DEPTHWISE_CONV_2D), n c o in k (DEPTHWISE: n c depth_multiplier in k), padding (SAME,
// VALID), stride_h, stride_w, dilation_h_factor, dilation_w_factor, fused_activation_function (NONE, RELU, RELU6,
// RELU_N1_TO_1), bias (0/1). NHWC data; OHWI filter ([1, KH, KW, C * depth_multiplier] for DEPTHWISE).
//
// Refused: TANH and SIGN_BIT (CalculateActivationRange has no branch for them: a float conv given one computes
// [lowest, max], i.e. no activation at all, which is not what the model names), a stride, dilation or kernel
// below 1, an output size below 1 (ComputeOutSize), a rank other than 2.
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::tflite {

DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::tflite
