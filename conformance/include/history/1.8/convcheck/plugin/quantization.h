/* convcheck plugin ABI, part of plugin.h (include that): 1.5, quantized (integer) convolution (1.7: per-channel
 * src and dst zero points; 1.8: per-output-channel weights zero points). A discrete
 * convolution (convcheck/plugin/conv.h, forward pass) whose tensors are integers: src U8 or S8, weights U8 or
 * S8, bias S32, dst U8, S8 or S32 (the descriptor's per-tensor dtypes), and whose descriptor's extension
 * chain holds one convcheck_quantization saying what the integers mean. The runner sends a quantized case
 * only to a plugin built against 1.5 or later that claims each of its tensors' dtypes in
 * plugin_info.dtypes; every such case carries this extension, and no float case does.
 *
 * What the plugin computes (docs/quantized.md; the rules are the anchors' own, SPEC-NOTES §7):
 *   acc(n, oc, y) = bias(oc) + sum over ic_g, k of (src(n, c, x) - src_zero_point) * (w(oc, ic_g, k) - weights_zero_point)
 * over the taps of the forward index set whose input position x lies inside the input: a tap in the padding
 * contributes nothing (the padding holds the zero point). The sum is exact in s32 (the runner sends no case
 * where any order of the additions could leave s32). The bias (S32, has_bias) has the scale
 * src_scale * weights_scales[oc] and zero point 0.
 *   An F32 bias (bias_dtype CONVCHECK_F32, a U8 or S8 dst; sent only to a plugin of 1.6 or later that claims
 *   CONVCHECK_F32 in plugin_info.dtypes): acc has no bias, and the bias, in real units, is added after the src and
 *   weights scales, before the dst scale (oneDNN's int8 bias):
 *     dst = min(max(R(src_scale * weights_scales[oc] * acc + bias[oc]) / dst_scale, ...)), R one of the f32 rules:
 *     f32(acc) * f32(M(oc)) + f32(bias[oc] / dst_scale) in f32, then (NEAREST_EVEN_F32_WITH_ZERO_POINT) the zero
 *     point in f32 and the nearest integer with ties to even, or (NEAREST_EVEN_F32) the nearest integer, then the
 *     zero point. DOUBLE_ROUNDING, SINGLE_ROUNDING and UNNAMED are judged by TOSA's INEXACT_ROUND window around the
 *     exact value. A plugin that does not add a bias this way declines the case at query ("a quantized bias is s32").
 *   dst S32: dst = acc (ONNX ConvInteger); the dst fields below are 1, 0, INT32_MIN and INT32_MAX.
 *   dst U8, S8: dst = min(max(R(acc * M(oc), dst_zero_point), dst_min), dst_max) with the multiplier
 *     M(oc) = src_scale * weights_scales[oc] / dst_scale, and R the requantization rule the plugin declares
 *     (plugin_info.requantization), which adds the zero point after rounding or, for
 *     NEAREST_EVEN_F32_WITH_ZERO_POINT, before. How the plugin forms M(oc) (in f32, f64, a Q31 multiplier and shift) is
 *     its own: the exact-mode cases choose scales whose M(oc) every such form holds exactly, so that the
 *     rule alone decides the result; bound-mode cases may not, and are judged by TOSA's INEXACT_ROUND window.
 * The general output (1.7; sent only to a plugin of 1.7 or later, which claims the dst's dtype and any post-op
 * kinds in plugin_info; plugin_quantized.hpp's add_quantized(kQuantizedGeneralOutput) lets one take it), oneDNN's int8
 * definition ("the destination quantization parameters are applied after the post-ops as follows:
 * dst[:] = post_ops(OP(src[:], weights[:], ...)) / scale_dst + zp_dst"):
 *     v   = post_ops(src_scale * weights_scales[oc] * acc + bias[oc])      (bias: an F32 bias, else 0; acc holds
 *                                                                            an S32 one)
 *     dst = convert(v / dst_scale + dst_zero_point)
 *   with convert the rounding to an F32, BF16 or F16 dst (dst_dtype; dst_zero_point is then usually 0), or the
 *   nearest integer with ties to even saturated to [dst_min, dst_max] for U8, S8 and an S32 dst that is rounded:
 *   one with a scale other than 1, a dst zero point, an F32 bias or post-ops (otherwise S32 is the accumulator,
 *   the same value). The post-ops (convcheck/plugin/post_ops.h) ride on the chain beside this extension; a SUM
 *   reads dst's prior content as stored (an integer dst's integers). A float dst or post-ops hold no rule bit for
 *   bit in f32 arithmetic: the runner judges them in bound mode, whatever rule the plugin declares; a rounded S32
 *   dst without post-ops is judged as an F32 bias is, above (docs/quantized.md, "General output: float dst,
 *   rounded s32, post-ops").
 */
#ifndef CONVCHECK_PLUGIN_QUANTIZATION_H
#define CONVCHECK_PLUGIN_QUANTIZATION_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The requantization rule a plugin follows (plugin_info.requantization): R(x) for the exact real x = acc * M.
 *   DOUBLE_ROUNDING  gemmlowp's, TFLite's default MultiplyByQuantizedMultiplier, TOSA RESCALE double_round:
 *                    M as a Q31 multiplier and a shift (TFLite's QuantizeMultiplier), the high half of the
 *                    doubled product rounded with ties toward +inf, then a right shift rounded with ties away
 *                    from zero;
 *   SINGLE_ROUNDING  TFLite with TFLITE_SINGLE_ROUNDING, TOSA RESCALE without double_round, XNNPACK rndnu:
 *                    one 64-bit product and one right shift, ties toward +inf;
 *   NEAREST_EVEN_F32 XNNPACK fp32: f32(acc) * f32(M) in f32, the nearest integer with ties to even, then
 *                    + dst_zero_point;
 *   NEAREST_EVEN_F32_WITH_ZERO_POINT  oneDNN's, ONNX's reference QLinearConv: f32(acc) * f32(M) + dst_zero_point in
 *                    f32, then the nearest integer with ties to even (with an odd zero point every tie differs
 *                    from NEAREST_EVEN_F32's: 2.5 + 1 is 4 here, 3 there);
 *   UNNAMED          none named: any integer in TOSA's INEXACT_ROUND window around the exact value. */
typedef enum {
    CONVCHECK_REQUANTIZATION_UNNAMED = 0,
    CONVCHECK_REQUANTIZATION_DOUBLE_ROUNDING = 1,
    CONVCHECK_REQUANTIZATION_SINGLE_ROUNDING = 2,
    CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32 = 3,
    CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32_WITH_ZERO_POINT = 4
} convcheck_requantization;

/* What a plugin's integer sums accumulate in (plugin_info.integer_accumulator). S16_PAIRS: adjacent products
 * are first added in a saturating s16 (x86 VPMADDUBSW before VNNI), which is exact only while every pair's sum
 * fits in s16; a plugin that does so says so, and is judged by it. For u8 src and s8 weights without a weights
 * zero point and with one src zero point (1.7: not per channel), the runner's expected accumulator is then: per output and in-bounds tap, the raw products x * w of
 * the group's input channels 2j and 2j + 1 added and saturated to [-32768, 32767] (an odd last channel alone),
 * plus the bias and -src_zero_point * w of every in-bounds term, exactly (reference: s16_pairs_sum). Other type
 * mixes are held to the exact sum. */
typedef enum { CONVCHECK_ACCUMULATOR_S32 = 0, CONVCHECK_ACCUMULATOR_S16_PAIRS = 1 } convcheck_integer_accumulator;

/* The quantization of one case: tag CONVCHECK_EXTENSION_QUANTIZATION. Runner-owned, read-only, valid as
 * the descriptor that holds it (weights_scales too). A plugin that cannot honour a field declines the case
 * at query, naming it (per-channel scales, a weights zero point it does not take). */
typedef struct {
    convcheck_extension header; /* struct_size, tag, next */
    float src_scale;            /* > 0, finite */
    int32_t src_zero_point;     /* in src's range (U8 [0, 255], S8 [-128, 127]); 1.8: any int32 where the case has
                                 * oneDNN's s32 zero points (every zero point below likewise; plugins on
                                 * plugin_support.hpp decline it unless they take kQuantizedS32ZeroPoints) */
    /* 1 (per tensor) or out_channels (per output channel, weights_scales[oc]); each > 0, finite */
    int64_t weights_scale_count;
    const float* weights_scales;
    int32_t weights_zero_point; /* in the weights' range; per tensor (1.8: or per output channel, below) */
    float dst_scale;            /* > 0, finite; 1 for an S32 dst */
    int32_t dst_zero_point;     /* in dst's range; 0 for an S32 dst */
    /* The output's range after the zero point: dst's whole range, or narrower (a fused ReLU, ReLU6 or clamp,
     * already quantized: TFLite's fused activations); dst_min <= dst_max, both in dst's range. */
    int32_t dst_min, dst_max;
    /* 1.7: zero points per channel (oneDNN's src and dst zero points of mask 1 << 1). src_zero_point_count is 1
     * (or not covered by struct_size): src_zero_point is every input channel's; or in_channels: input channel c's
     * is src_zero_points[c] (each in src's range) and src_zero_point is 0, unused. dst_zero_point_count likewise: 1,
     * or out_channels (dst_zero_points[oc], each in dst's range; dst U8 or S8). The runner sends a count above 1
     * only to a plugin of 1.7 or later; plugins on plugin_support.hpp decline it unless they call
     * add_quantized<prepare>(kQuantizedChannelZeroPoints). Wherever the formulas above read src_zero_point (dst_zero_point), read
     * input channel c's (output channel oc's). */
    int64_t src_zero_point_count;
    const int32_t* src_zero_points;
    int64_t dst_zero_point_count;
    const int32_t* dst_zero_points;
    /* 1.8: weights zero points per output channel (ONNX QLinearConv's and ConvInteger's w_zero_point of shape [M]:
     * "per output channel"). weights_zero_point_count is 1 (or not covered by struct_size): weights_zero_point is
     * every output channel's; or out_channels: output channel oc's is weights_zero_points[oc] (each in the weights'
     * range) and weights_zero_point is 0, unused. The runner sends a count above 1 only to a plugin of 1.8 or later;
     * plugins on plugin_support.hpp decline it unless they call add_quantized<prepare>(kQuantizedWeightsZeroPoints).
     * Wherever the formulas above read weights_zero_point, read output channel oc's. */
    int64_t weights_zero_point_count;
    const int32_t* weights_zero_points;
} convcheck_quantization;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_QUANTIZATION_H */
