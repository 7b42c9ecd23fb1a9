// A quantized convolution's outputs from its sums (quantized_output.hpp): the multiplier per output channel,
// each rule's output with dst's zero point and range, an s32 dst, and TOSA's window saturated the same way.
#include <gtest/gtest.h>

#include "convcheck/reference/quantized_output.hpp"

using namespace convcheck;
using namespace convcheck::reference;

namespace {

QuantizedDescriptor descriptor(const char* text) { return parse_quantized_descriptor(text); }

}  // namespace

TEST(QuantizedOutput, MultiplierIsSrcTimesWeightsOverDstPerChannel) {
    const auto q = descriptor("qconv:c=1,o=2,in=3,k=1,ssc=0.5,wsc=oc,dsc=4");
    const float scales[] = {0.25f, 0.375f};
    EXPECT_EQ(output_multipliers(q, scales), (std::vector<double>{0.5 * 0.25 / 4, 0.5 * 0.375 / 4}));
    const float one[] = {0.25f};
    EXPECT_EQ(output_multipliers(q, one), (std::vector<double>{0.5 * 0.25 / 4, 0.5 * 0.25 / 4}));
    const float three[] = {1, 2, 3};
    EXPECT_THROW(output_multipliers(q, three), std::invalid_argument);
}

// -10 x 1/4 = -2.5: double rounding -3, single rounding and nearest even -2; then + dzp 5 and the range.
TEST(QuantizedOutput, EachRuleThenTheZeroPointThenTheRange) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,dt=s8:s8:s8,dzp=5,lo=-100,hi=4");
    EXPECT_EQ(quantized_output(q, -10, 0.25, Requantization::double_rounding), 2);
    EXPECT_EQ(quantized_output(q, -10, 0.25, Requantization::single_rounding), 3);
    EXPECT_EQ(quantized_output(q, -10, 0.25, Requantization::nearest_even_f32), 3);
    EXPECT_EQ(quantized_output(q, 100, 0.25, Requantization::nearest_even_f32), 4);        // 25 + 5 clamped to hi
    EXPECT_EQ(quantized_output(q, -1000, 0.25, Requantization::nearest_even_f32), -100);   // to lo
    const auto integer = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:s32");
    EXPECT_EQ(quantized_output(integer, -123456, 0.25, Requantization::double_rounding), -123456);
    EXPECT_THROW(quantized_output(integer, std::int64_t{1} << 31, 1.0, Requantization::double_rounding),
                 std::invalid_argument);
}

TEST(QuantizedOutput, WindowHoldsBothIntegersOfATieAndIsSaturated) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:u8,dzp=10");
    const IntegerWindow tie = quantized_output_window(q, 5, 0.5);  // 2.5 + 10
    EXPECT_EQ(tie.lowest, 12);
    EXPECT_EQ(tie.highest, 13);
    const IntegerWindow off = quantized_output_window(q, 11, 0.125);  // 1.375 + 10: 11 only
    EXPECT_EQ(off.lowest, 11);
    EXPECT_EQ(off.highest, 11);
    const IntegerWindow high = quantized_output_window(q, 1000, 1.0);  // 1010: saturated to 255
    EXPECT_EQ(high.lowest, 255);
    EXPECT_EQ(high.highest, 255);
}

// The two f32 rules part at a tie with an odd zero point: XNNPACK rounds, then adds it (2.5 -> 2, + 1 = 3);
// oneDNN and ONNX add it in f32, then round (3.5 -> 4). With an even zero point they agree.
TEST(QuantizedOutput, TheZeroPointBeforeOrAfterRoundingPartsTheFloatRules) {
    const auto odd = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:u8,dzp=1");
    EXPECT_EQ(quantized_output(odd, 5, 0.5, Requantization::nearest_even_f32), 3);
    EXPECT_EQ(quantized_output(odd, 5, 0.5, Requantization::nearest_even_f32_with_zero_point), 4);
    EXPECT_EQ(multiply_nearest_even_f32_with_zero_point(-7, 0.5f, -1), -4);  // -4.5 to even
    EXPECT_EQ(requantize_with_zero_point(-7, 0.5, -1, Requantization::nearest_even_f32), -5);  // -4, then -1
    const auto even = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:u8,dzp=2");
    EXPECT_EQ(quantized_output(even, 5, 0.5, Requantization::nearest_even_f32),
              quantized_output(even, 5, 0.5, Requantization::nearest_even_f32_with_zero_point));
}

// An f32 bias is added after the scales, before dst's: ssc 0.5, dsc 2, acc 4, bias 1: (0.5 * 4 + 1) / 2 = 1.5, a tie
// (to 2 under both f32 rules); the bias taken into the accumulator instead, (4 + 1) * 0.25 = 1.25, gives 1. With dzp 1
// the f32 rules part at the tie: 1.5 rounds to 2, then 3; 1.5 + 1 = 2.5 rounds to 2. Integer rules: none.
TEST(QuantizedOutput, F32BiasIsAddedAfterTheScalesAndBeforeDstScale) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,bias=1,bdt=f32,dt=u8:s8:s8,ssc=0.5,dsc=2");
    const double m = 0.5 / 2;
    EXPECT_EQ(quantized_output_f32_bias(q, 4, m, 1.0f, Requantization::nearest_even_f32_with_zero_point), 2);
    EXPECT_EQ(quantized_output_f32_bias(q, 4, m, 1.0f, Requantization::nearest_even_f32), 2);
    EXPECT_EQ(quantized_output_f32_bias(q, 4, m, 0.5f, Requantization::nearest_even_f32), 1);  // 1.25
    EXPECT_EQ(quantized_output_f32_bias(q, 4, m, 1.0f, Requantization::double_rounding), std::nullopt);
    EXPECT_EQ(quantized_output_f32_bias(q, 4, m, 1.0f, Requantization::single_rounding), std::nullopt);
    const auto zp = descriptor("qconv:c=1,o=1,in=3,k=1,bias=1,bdt=f32,dt=u8:s8:s8,ssc=0.5,dsc=2,dzp=1");
    EXPECT_EQ(quantized_output_f32_bias(zp, 4, m, 1.0f, Requantization::nearest_even_f32), 3);
    EXPECT_EQ(quantized_output_f32_bias(zp, 4, m, 1.0f, Requantization::nearest_even_f32_with_zero_point), 2);
    // -2^24 - 1 is no f32: f32(acc) rounds first (to even, -2^24), as oneDNN converts the accumulator
    const auto big = descriptor("qconv:c=1,o=1,in=3,k=1,bias=1,bdt=f32,dt=s8:s8:s8");
    EXPECT_EQ(quantized_output_f32_bias(big, -(1 << 24) - 1, 1.0, 16777216.0f + 100.0f, Requantization::nearest_even_f32),
              100);  // -2^24 + 2^24 + 100, not 99
    // the window around the exact 1.5 + dzp 1: 2 and 3
    const IntegerWindow w = quantized_output_window_f32_bias(zp, 4, m, 1.0f);
    EXPECT_EQ(w.lowest, 2);
    EXPECT_EQ(w.highest, 3);
}
