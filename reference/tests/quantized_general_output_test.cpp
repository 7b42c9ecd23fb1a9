// The general output of a quantized convolution (quantized_general_output.hpp), against values worked by hand from
// oneDNN's definition
//   v = post_ops(src_scale * weights_scale(oc) * acc + bias(oc)),   dst = convert(v / dst_scale + dst_zero_point)
// (convert: a float dst's rounding; an integer dst's nearest integer, ties to even, saturated).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "convcheck/reference/quantized_general_output.hpp"

using namespace convcheck;
using namespace convcheck::reference;

namespace {

QuantizedDescriptor descriptor(const char* text) { return parse_quantized_descriptor(text); }

// v for output 0 (channel 0), its post-op data `post`
double real(const QuantizedDescriptor& q, std::int64_t acc, double bias = 0.0, const PostOpData& post = {}) {
    return quantized_real_value(q, post, 0, acc, double(q.weights_scale), bias);
}

}  // namespace

// u8:s8:f32: 0.5 * 0.25 * 10 + 1.5 = 2.75; / dsc 2 = 1.375, exact in f32. bf16 keeps 8 significant bits:
// 1 + 2^-8 is halfway between 1 and 1 + 2^-7 and goes to the even one, 1.
TEST(QuantizedGeneralOutput, FloatDstIsTheScaledSumPlusBiasOverTheDstScaleInItsType) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,bias=1,dt=u8:s8:f32,bdt=f32,ssc=0.5,wsc=0.25,dsc=2");
    EXPECT_EQ(real(q, 10, 1.5), 2.75);
    EXPECT_EQ(quantized_general_output(q, 2.75), 1.375);
    const auto b = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:bf16");
    EXPECT_EQ(quantized_general_output(b, 1.0 + 0x1p-8), 1.0);
    EXPECT_EQ(quantized_general_output(b, 1.0 + 3 * 0x1p-8), 1.0 + 0x1p-6);  // 1 + 2^-7 is odd: up to 1 + 2^-6
    EXPECT_EQ(quantized_general_output(b, -3.0), -3.0);
}

// A rounded s32 dst (scales other than 1): 0.5 * 7 = 3.5 -> 4 and 0.5 * 5 = 2.5 -> 2 (ties to even); 1000 * 3e6 =
// 3e9 saturates to 2^31 - 1 and 1000 * -3e6 to -2^31: never wrapped.
TEST(QuantizedGeneralOutput, RoundedS32IsNearestEvenAndSaturatedAtBothEnds) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:s32,ssc=0.5");
    ASSERT_TRUE(q.rounded_s32());
    EXPECT_EQ(quantized_general_output(q, real(q, 7)), 4.0);
    EXPECT_EQ(quantized_general_output(q, real(q, 5)), 2.0);
    EXPECT_EQ(quantized_general_output(q, real(q, -5)), -2.0);
    const auto big = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:s32,ssc=1000");
    EXPECT_EQ(real(big, 3000000), 3e9);
    EXPECT_EQ(quantized_general_output(big, real(big, 3000000)), 2147483647.0);
    EXPECT_EQ(quantized_general_output(big, real(big, -3000000)), -2147483648.0);
    EXPECT_EQ(nearest_even_saturated(big, 2147483646.5), 2147483646);  // a tie just inside: even
    EXPECT_EQ(nearest_even_saturated(big, 2147483647.5), 2147483647);  // just outside: saturated
    // the accumulator itself (every scale 1, no zero point, no f32 bias, no post-ops) is the special case
    const auto plain = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:s32");
    EXPECT_FALSE(plain.rounded_s32());
    EXPECT_EQ(quantized_general_output(plain, real(plain, -123456)), -123456.0);
}

// relu then sum on a u8 dst, with a dst scale and zero point: ssc * wsc = 0.25, dsc 0.5, dzp 10, sum scale 0.5 and
// zero point 4 over the prior dst integer 20 (the sum reads dst as stored: 0.5 * (20 - 4) = 8).
//   acc -20: -5 -> relu 0 -> + 8 = 8 -> 8 / 0.5 + 10 = 26
//   acc  12:  3 -> relu 3 -> + 8 = 11 -> 22 + 10 = 32
//   acc 400: 100 -> 108 -> 216 + 10 = 226;  acc 600: 150 -> 158 -> 326 saturates to 255
// The zero point added before the post-ops would give relu(-5 / 0.5 + 10) + 8 / 0.5 = 16 for acc -20; the post-ops
// after the dst scale relu(-10) + 8 + 10 = 18.
TEST(QuantizedGeneralOutput, ReluThenSumOnAU8DstBeforeTheDstScaleAndZeroPoint) {
    const auto q = descriptor("qconv:c=1,o=1,in=3,k=1,dt=u8:s8:u8,ssc=0.5,wsc=0.5,dsc=0.5,dzp=10,po=relu+sum:0.5:4");
    PostOpData post;
    post.operands.resize(2);
    post.prior_dst = {20.0};
    std::vector<double> steps;
    EXPECT_EQ(quantized_real_value(q, post, 0, -20, 0.5, 0.0, &steps), 8.0);
    EXPECT_EQ(steps, (std::vector<double>{-5.0, 0.0, 8.0}));
    EXPECT_EQ(quantized_general_output(q, real(q, -20, 0.0, post)), 26.0);
    EXPECT_EQ(quantized_general_output(q, real(q, 12, 0.0, post)), 32.0);
    EXPECT_EQ(quantized_general_output(q, real(q, 400, 0.0, post)), 226.0);
    EXPECT_EQ(quantized_general_output(q, real(q, 600, 0.0, post)), 255.0);
    EXPECT_EQ(quantized_general_output(q, -1000.0), 0.0);  // saturated at the low end too
}

// A tie after the dst scale, then the zero point: 1.25 / 0.5 = 2.5. Without a zero point it goes to the even 2; with
// dzp 1, oneDNN adds the zero point before rounding: 3.5 -> 4 (rounding first, then adding, would give 3).
// -1.25 / 0.5 = -2.5 -> -2; + 1: -1.5 -> -2.
TEST(QuantizedGeneralOutput, ATieAfterTheDstScaleRoundsToEvenAfterTheZeroPoint) {
    const auto none = descriptor("qconv:c=1,o=1,in=3,k=1,dt=s8:s8:s8,dsc=0.5");
    EXPECT_EQ(quantized_dst_real(none, 1.25), 2.5);
    EXPECT_EQ(quantized_general_output(none, 1.25), 2.0);
    EXPECT_EQ(quantized_general_output(none, -1.25), -2.0);
    const auto one = descriptor("qconv:c=1,o=1,in=3,k=1,dt=s8:s8:s8,dsc=0.5,dzp=1");
    EXPECT_EQ(quantized_dst_real(one, 1.25), 3.5);
    EXPECT_EQ(quantized_general_output(one, 1.25), 4.0);
    EXPECT_EQ(quantized_general_output(one, -1.25), -2.0);
}
