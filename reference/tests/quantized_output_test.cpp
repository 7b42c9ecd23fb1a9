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
