// Requantization: an int32 accumulator times a real scale, rounded to an integer, as each anchor writes it
// (SPEC-NOTES §7; docs/quantized.md). Three arithmetics with three tie rules, written literally, each from
// its own anchor, bit-exact, the last in two orders of adding the output's zero point:
//   - double rounding (gemmlowp; TFLite's default MultiplyByQuantizedMultiplier; TOSA RESCALE with
//     double_round): a Q31 multiplier, the high half of the doubled product rounded with ties toward +inf,
//     then a right shift rounded with ties away from zero;
//   - single rounding (TFLite built with TFLITE_SINGLE_ROUNDING; TOSA RESCALE without double_round;
//     XNNPACK's rndnu): one 64-bit product and one right shift, ties toward +inf;
//   - nearest even in f32: the accumulator converted to f32, multiplied by an f32 scale in f32, rounded to the
//     nearest integer with ties to even, then the zero point added (XNNPACK's fp32: lrintf, then + zp); or the
//     zero point added to the f32 product first and the sum rounded (oneDNN: zp_dst + dst, then the saturating
//     conversion; ONNX's reference QLinearConv: R += y_zero_point, clip, round). With an odd zero point the two
//     part at every tie: 2.5 then + 1 is 3, 2.5 + 1 = 3.5 rounds to 4.
// TOSA's INEXACT_ROUND names no rule: any integer in a window around the exact value (inexact_window).
#pragma once

#include <cstdint>

namespace convcheck::reference {

// The rule a backend declares it follows.
enum class Requantization { double_rounding, single_rounding, nearest_even_f32, nearest_even_f32_with_zero_point };
inline constexpr Requantization kRequantizations[] = {Requantization::double_rounding, Requantization::single_rounding,
                                                      Requantization::nearest_even_f32,
                                                      Requantization::nearest_even_f32_with_zero_point};
// "double_rounding", "single_rounding", "nearest_even_f32", "nearest_even_f32_with_zero_point"
const char* to_string(Requantization rule);

// A real multiplier as TFLite's QuantizeMultiplier writes it: real = multiplier * 2^(shift - 31), the
// multiplier in [2^30, 2^31) (Q31 of a value in [0.5, 1)), or 0 for a real of 0.
struct QuantizedMultiplier {
    std::int32_t multiplier = 0;
    int shift = 0;
};
// TFLite QuantizeMultiplier(real): frexp's fraction q and exponent, q * 2^31 rounded half away from zero,
// 2^31 (q rounded up to 1) halved with the exponent raised by one, and a shift below -31 read as the real 0.
// `real` must be finite and >= 0 (a clear std::invalid_argument otherwise); a shift past 30 (real >= 2^30)
// is refused too, since no int32 accumulator times such a multiplier fits.
QuantizedMultiplier quantize_multiplier(double real);

// gemmlowp SaturatingRoundingDoublingHighMul(a, b): the high 32 bits of 2ab, rounded: (ab + nudge) / 2^31
// truncated toward zero, nudge 2^30 when ab >= 0, else 1 - 2^30 (the two give ties toward +inf); the one
// product that does not fit, INT32_MIN * INT32_MIN, saturates to INT32_MAX.
std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b);
// gemmlowp RoundingDivideByPOT(x, exponent): x / 2^exponent rounded with ties away from zero
// (x >> exponent, plus one when the remainder x & (2^exponent - 1) exceeds half, a negative x's half counting
// one more). exponent in [0, 31].
std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent);

// TFLite MultiplyByQuantizedMultiplier(x, multiplier, shift), default build (double rounding): x shifted
// left by max(shift, 0) in int32, the doubling high multiply, then the rounding divide by 2^max(-shift, 0).
std::int32_t multiply_double_rounding(std::int32_t x, QuantizedMultiplier m);
// The same with TFLITE_SINGLE_ROUNDING: (x * multiplier + 2^(30 - shift)) >> (31 - shift) in int64
// (an arithmetic shift: floor), shift in [-31, 30].
std::int32_t multiply_single_rounding(std::int32_t x, QuantizedMultiplier m);

// TOSA apply_scale_32(value, multiplier, shift, double_round): (value * multiplier + round) >> shift in int64
// with round = 2^(shift - 1), and, with double_round and shift > 31, round +/- 2^30 by the sign of value.
// The specification REQUIREs multiplier >= 0, 2 <= shift <= 62 and -2^(shift-1) <= value < 2^(shift-1);
// a call outside them is std::invalid_argument (a TOSA REQUIRE: unpredictable, never computed here).
std::int32_t tosa_apply_scale_32(std::int32_t value, std::int32_t multiplier, int shift, bool double_round);

// oneDNN's and ONNX's arithmetic: f32(x) (nearest even), times `scale` rounded to f32 (nearest even), then
// the nearest integer with ties to even, in int64 (no saturation yet: the caller adds the zero point and
// clamps). The f32 product must be finite.
std::int64_t multiply_nearest_even_f32(std::int32_t x, float scale);

// oneDNN's and ONNX's order: f32(x) * f32(scale) in f32, plus f32(zero_point) in f32, then the nearest integer
// with ties to even (the zero point included in the result; no saturation yet).
std::int64_t multiply_nearest_even_f32_with_zero_point(std::int32_t x, float scale, std::int32_t zero_point);

// An f32 bias added after the scales (qconv's bdt=f32; oneDNN's int8 bias): oneDNN computes
// (f32(x) * src_scale * weights_scale + bias) / dst_scale + zero_point in f32 and rounds to even. Written as
// f32(x) * f32(M) in f32, plus f32(bias / dst_scale) in f32, then (the _with_zero_point form) plus the zero point in
// f32, then the nearest integer with ties to even. With dst_scale a power of two (exact mode's) each step is
// oneDNN's own scaled by it, so the two round alike. `bias_over_dst_scale` is the caller's f32(bias / dst_scale).
// Only the two f32 rules are defined for an f32 bias: double and single rounding are integer arithmetic
// (quantized_output_f32_bias judges them by TOSA's window).
std::int64_t multiply_nearest_even_f32_with_bias(std::int32_t x, float scale, float bias_over_dst_scale);
std::int64_t multiply_nearest_even_f32_with_bias_and_zero_point(std::int32_t x, float scale, float bias_over_dst_scale,
                                                                std::int32_t zero_point);

// The declared rule applied: double and single rounding take the multiplier TFLite's QuantizeMultiplier makes
// of `real_scale`; both nearest even f32 rules take f32(real_scale). Before the zero point, which is where the two
// f32 rules agree (requantize_with_zero_point tells them apart).
std::int64_t requantize(std::int32_t x, double real_scale, Requantization rule);
// The same with the output's zero point: requantize(...) + zero_point, except for
// nearest_even_f32_with_zero_point, which adds it before rounding. No saturation.
std::int64_t requantize_with_zero_point(std::int32_t x, double real_scale, std::int32_t zero_point, Requantization rule);

// TOSA INEXACT_ROUND: for the exact real result `exact` (accumulator times scale, before the zero point),
// the integers a backend may give before clamping, [ceil(exact - e + zero_point), floor(exact + e +
// zero_point)], e = 0.5 + (3 |exact| + |exact + zero_point|) 2^-24.
struct IntegerWindow {
    std::int64_t lowest = 0, highest = 0;
};
IntegerWindow inexact_window(double exact, std::int32_t zero_point);

// The integers `lowest`..`highest` of an output type (u8 [0, 255], s8 [-128, 127], or a fused activation's
// narrower bounds): r + zero_point saturated into them.
std::int32_t saturate(std::int64_t r, std::int32_t zero_point, std::int32_t lowest, std::int32_t highest);

}  // namespace convcheck::reference
