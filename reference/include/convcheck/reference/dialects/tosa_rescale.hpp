// TOSA CONV2D / DEPTHWISE_CONV2D with i8 input and weights and an i32 accumulator, followed by RESCALE to i8
// (arm/tosa-specification: pseudocode/operators/CONV2D.tosac, DEPTHWISE_CONV2D.tosac, RESCALE.tosac,
// library/scale_helpers.tosac):
//
//   CONV2D:  acc = bias[oc] + sum (value - input_zp) * (weight - weight_zp)       (i32)
//   RESCALE: value = acc - input_zp;  c = per_channel ? index[rank(input) - 1] : 0;
//            result = scale32 ? apply_scale_32(value, multiplier[c], shift[c], rounding_mode == DOUBLE_ROUND)
//                             : apply_scale_16(value, multiplier[c], shift[c]);
//            out = apply_clip_s(result + output_zp, minimum_s<i8>, maximum_s<i8>)
//
// TOSA gives no scales, only the integers multiplier and shift: the descriptor carries M = multiplier * 2^-shift
// exactly, as ssc * wsc / dsc (dsc = 1; per tensor, M's odd part split into ssc and wsc; per channel, ssc = 1 and
// wsc(oc) = M(oc)), refused where f32 scales cannot hold it. The rule: tosa_rescale_rule.hpp.
//
// Text keys: the tosa dialect's (op CONV2D / DEPTHWISE_CONV2D, n c o / multiplier, in k, pad, stride,
// dilation, out, bias), CONV2D's input_zp and weight_zp (i8), and RESCALE's, prefixed "rescale.": multiplier,
// shift (one, or one per output channel with per_channel), scale32 (default true), rounding_mode (SINGLE_ROUND,
// DOUBLE_ROUND, INEXACT_ROUND; v1.0) or double_round (true/false; v0.x), per_channel (default false), input_zp,
// output_zp, input_unsigned, output_unsigned.
#pragma once

#include "convcheck/reference/dialects/quantized.hpp"

namespace convcheck::reference::dialects::tosa {

QuantizedResult read_rescale(const AttributeSet& attributes);

}  // namespace convcheck::reference::dialects::tosa
