// Requantization (requantize.hpp): each rule on the worked values that separate them (SPEC-NOTES §7), the
// gemmlowp primitives on their edge cases, and each rule against an independent reading in exact integer
// arithmetic (__int128) on random accumulators and scales.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "convcheck/reference/requantize.hpp"

using namespace convcheck::reference;

namespace {

__extension__ typedef __int128 i128;  // exact products of two int32 and a power of two

// floor(a / b) for b > 0
i128 floor_div(i128 a, i128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The exact value x * multiplier * 2^(shift - 31) = x * multiplier / 2^t with t = 31 - shift, as a fraction.
struct Exact {
    i128 numerator, denominator;
};
Exact exact(std::int32_t x, QuantizedMultiplier m) {
    const int t = 31 - m.shift;
    return t >= 0 ? Exact{i128{x} * m.multiplier, i128{1} << t} : Exact{i128{x} * m.multiplier * (i128{1} << -t), 1};
}
// Ties toward +inf: floor(v + 1/2).
i128 half_up(Exact v) { return floor_div(2 * v.numerator + v.denominator, 2 * v.denominator); }
// Ties away from zero.
i128 half_away(Exact v) {
    return v.numerator >= 0 ? half_up(v) : -half_up({-v.numerator, v.denominator});
}

// The rules read as two and one roundings of the exact value: double rounding rounds x * multiplier / 2^31 with
// ties toward +inf, then divides by 2^(-shift) with ties away from zero; single rounding rounds once, ties up.
i128 double_rounding_exactly(std::int32_t x, QuantizedMultiplier m) {
    const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
    const i128 first = half_up({i128{x} * (i128{1} << left) * m.multiplier, i128{1} << 31});
    return half_away({first, i128{1} << right});
}
i128 single_rounding_exactly(std::int32_t x, QuantizedMultiplier m) { return half_up(exact(x, m)); }

}  // namespace

// SPEC-NOTES §7, worked values: (acc, real scale) -> double rounding, single rounding, nearest even.
TEST(Requantize, TheWorkedValuesSeparateTheThreeRules) {
    struct Row {
        std::int32_t acc;
        double scale;
        std::int64_t double_rounding, single_rounding, nearest_even;
    };
    const Row rows[] = {
        {5, 0.5, 3, 3, 2},        // 2.5: both up-rules give 3, nearest even 2
        {-7, 0.5, -3, -3, -4},    // -3.5: the up-rules toward +inf, nearest even -4
        {-10, 0.25, -3, -2, -2},  // -2.5: double rounding away from zero in its second step
        {-12, 0.125, -2, -1, -2}, // -1.5: single rounding up, the other two -2
        {11, 0.125, 2, 1, 1},     // 1.375, no tie: double rounding is wrong off ties too
    };
    for (const Row& r : rows) {
        EXPECT_EQ(requantize(r.acc, r.scale, Requantization::double_rounding), r.double_rounding) << r.acc << " " << r.scale;
        EXPECT_EQ(requantize(r.acc, r.scale, Requantization::single_rounding), r.single_rounding) << r.acc << " " << r.scale;
        EXPECT_EQ(requantize(r.acc, r.scale, Requantization::nearest_even_f32), r.nearest_even) << r.acc << " " << r.scale;
    }
}

TEST(Requantize, QuantizeMultiplierIsTfLites) {
    EXPECT_EQ(quantize_multiplier(0.5).multiplier, 1 << 30);
    EXPECT_EQ(quantize_multiplier(0.5).shift, 0);
    EXPECT_EQ(quantize_multiplier(0.125).shift, -2);
    EXPECT_EQ(quantize_multiplier(1.0).multiplier, 1 << 30);
    EXPECT_EQ(quantize_multiplier(1.0).shift, 1);
    // q just below 1 rounds to 2^31: halved, the exponent raised
    const QuantizedMultiplier m = quantize_multiplier(std::nextafter(1.0, 0.0));
    EXPECT_EQ(m.multiplier, 1 << 30);
    EXPECT_EQ(m.shift, 1);
    EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
    EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -40)).multiplier, 0);  // below 2^-32: the real 0
    EXPECT_THROW(quantize_multiplier(-0.5), std::invalid_argument);
    EXPECT_THROW(quantize_multiplier(std::nan("")), std::invalid_argument);
    EXPECT_THROW(quantize_multiplier(std::ldexp(1.0, 31)), std::invalid_argument);
}

TEST(Requantize, GemmlowpPrimitivesOnTheirEdges) {
    constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
    EXPECT_EQ(saturating_rounding_doubling_high_mul(lowest, lowest), std::numeric_limits<std::int32_t>::max());
    EXPECT_EQ(saturating_rounding_doubling_high_mul(3, 1 << 30), 2);    // 1.5: ties toward +inf
    EXPECT_EQ(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);  // -1.5: toward +inf too
    EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);                         // 2.5: away from zero
    EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);
    EXPECT_EQ(rounding_divide_by_pot(6, 2), 2);                         // 1.5
    EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);
    EXPECT_EQ(rounding_divide_by_pot(-7, 2), -2);                       // -1.75
    EXPECT_EQ(rounding_divide_by_pot(lowest, 31), -1);
    EXPECT_THROW(rounding_divide_by_pot(1, 32), std::invalid_argument);
}

// The rules against their reading in exact arithmetic, on every accumulator and multiplier a convolution can
// give (TFLite's multipliers: [2^30, 2^31), shift in [-31, 0] for scales below 1).
RC_GTEST_PROP(Requantize, DoubleAndSingleRoundingAreTheirExactReadings, ()) {
    const auto x = *rc::gen::arbitrary<std::int32_t>();
    const QuantizedMultiplier m{*rc::gen::inRange<std::int32_t>(1 << 30, std::numeric_limits<std::int32_t>::max()),
                                *rc::gen::inRange(-31, 1)};
    RC_ASSERT(i128{multiply_double_rounding(x, m)} == double_rounding_exactly(x, m));
    RC_ASSERT(i128{multiply_single_rounding(x, m)} == single_rounding_exactly(x, m));
}

// Ties, where the rules part: x * multiplier an odd multiple of half the divisor.
RC_GTEST_PROP(Requantize, OnTiesSingleRoundingGoesUpAndDoubleAwayFromZero, ()) {
    const int right = *rc::gen::inRange(1, 20);
    const auto k = *rc::gen::inRange<std::int32_t>(-(1 << 10), 1 << 10);
    const std::int32_t x = (2 * k + 1) << (right - 1);  // x / 2^right = k + 1/2
    const QuantizedMultiplier m{1 << 30, 1 - right};     // real scale 2^-right
    RC_ASSERT(multiply_single_rounding(x, m) == k + 1);
    // double rounding: at right shift 1 the tie is the first step's (toward +inf); past it the second's (away from 0)
    RC_ASSERT(multiply_double_rounding(x, m) == (right == 1 || k >= 0 ? k + 1 : k));
    RC_ASSERT(multiply_nearest_even_f32(x, std::ldexp(1.0f, -right)) == (k % 2 == 0 ? k : k + 1));
}

// TOSA's apply_scale_32 is TFLite's arithmetic with shift_tosa = 31 - shift_tflite: without double_round the
// single rounding, with it the double rounding.
RC_GTEST_PROP(Requantize, TosaApplyScaleIsTfLitesArithmetic, ()) {
    const QuantizedMultiplier m{*rc::gen::inRange<std::int32_t>(1 << 30, std::numeric_limits<std::int32_t>::max()),
                                *rc::gen::inRange(-31, 1)};
    const int shift = 31 - m.shift;
    // TOSA REQUIREs -2^(shift-1) <= value < 2^(shift-1): at shift 31 half of int32
    const auto x = shift == 31 ? *rc::gen::inRange<std::int32_t>(-(1 << 30), 1 << 30) : *rc::gen::arbitrary<std::int32_t>();
    RC_ASSERT(tosa_apply_scale_32(x, m.multiplier, shift, false) == multiply_single_rounding(x, m));
    RC_ASSERT(tosa_apply_scale_32(x, m.multiplier, shift, true) == multiply_double_rounding(x, m));
}

TEST(Requantize, TosaRequiresAreRefused) {
    EXPECT_THROW(tosa_apply_scale_32(1, -1, 31, false), std::invalid_argument);
    EXPECT_THROW(tosa_apply_scale_32(1, 1 << 30, 1, false), std::invalid_argument);
    EXPECT_THROW(tosa_apply_scale_32(1, 1 << 30, 63, false), std::invalid_argument);
    EXPECT_THROW(tosa_apply_scale_32(2, 1 << 30, 2, false), std::invalid_argument);  // value >= 2^(shift-1)
}

// Nearest even in f32 rounds the accumulator to f32 first: above 2^24 that is a rounding of its own.
TEST(Requantize, NearestEvenF32RoundsTheAccumulatorToF32First) {
    const std::int32_t x = (1 << 24) + 1;  // f32(x) = 2^24
    EXPECT_EQ(multiply_nearest_even_f32(x, 1.0f), 1 << 24);
    EXPECT_EQ(multiply_nearest_even_f32(x, 0.5f), 1 << 23);  // the exact 2^23 + 0.5 would round to 2^23 anyway
    EXPECT_EQ(multiply_nearest_even_f32(3 * (1 << 24) + 2, 0.25f), (3 << 22));  // f32(x) = 3*2^24 exactly + 2 lost
}

TEST(Requantize, InexactWindowAndSaturation) {
    const IntegerWindow w = inexact_window(2.5, 10);
    EXPECT_EQ(w.lowest, 12);  // 12.5 - e, e just above 0.5
    EXPECT_EQ(w.highest, 13);
    const IntegerWindow exact = inexact_window(3.0, 0);
    EXPECT_EQ(exact.lowest, 3);
    EXPECT_EQ(exact.highest, 3);
    EXPECT_EQ(saturate(300, 10, 0, 255), 255);
    EXPECT_EQ(saturate(-140, 0, -128, 127), -128);
    EXPECT_EQ(saturate(5, -3, -128, 127), 2);
}
