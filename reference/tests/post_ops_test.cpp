// The reference's post-ops (post_ops.hpp): each eltwise algorithm at points whose value oneDNN's formula
// gives, the chain applied in order after the bias, a sum reading the prior dst, and an operand read per
// output channel (not per group) and, when full, from dst's own data format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/post_ops.hpp"

using namespace convcheck;
using namespace convcheck::reference;

namespace {

double apply(const std::string& po, double x) {
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=1,k=1,po=" + po);
    return eltwise(d.post_ops[0], x);
}

}  // namespace

TEST(ReferencePostOps, EltwiseAlgorithmsFollowTheirDefinitions) {
    EXPECT_EQ(apply("relu", -2.0), 0.0);
    EXPECT_EQ(apply("relu:0.25", -2.0), -0.5);
    EXPECT_EQ(apply("clip:-1:6", 7.0), 6.0);
    EXPECT_EQ(apply("clip:-1:6", -7.0), -1.0);
    EXPECT_EQ(apply("linear:2:1", 3.0), 7.0);
    EXPECT_EQ(apply("round", 2.5), 2.0);  // ties to even
    EXPECT_EQ(apply("round", -3.5), -4.0);
    EXPECT_EQ(apply("logistic", 0.0), 0.5);
    EXPECT_NEAR(apply("tanh", 1.0), 0.7615941559557649, 1e-15);
    EXPECT_NEAR(apply("swish", 1.0), 0.7310585786300049, 1e-15);
    EXPECT_NEAR(apply("swish:2", 1.0), 0.8807970779778823, 1e-15);
    EXPECT_NEAR(apply("hardswish", 1.0), 2.0 / 3.0, 1e-15);
    EXPECT_EQ(apply("hardswish", -4.0), 0.0);
    EXPECT_NEAR(apply("gelu_erf", 1.0), 0.8413447460685429, 1e-15);
    EXPECT_NEAR(apply("gelu_tanh", 1.0), 0.8411919906082768, 1e-15);
    EXPECT_NEAR(apply("elu", -1.0), -0.6321205588285577, 1e-15);
    EXPECT_EQ(apply("elu:0.5", 3.0), 3.0);
    EXPECT_NEAR(apply("exp", 1.0), 2.718281828459045, 1e-15);
    EXPECT_EQ(apply("square", -3.0), 9.0);
    EXPECT_EQ(apply("abs", -3.0), 3.0);
    EXPECT_EQ(apply("sqrt", 9.0), 3.0);
}

TEST(ReferencePostOps, TheChainRunsInOrderAfterTheBias) {
    // 1x1 convolution of one input channel: dst = src * w + bias, then relu, then + operand(oc)
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=2,in=1,k=1,bias=1,po=relu+add:per_oc");
    const std::vector<double> src{1.0}, weights{-3.0, 2.0}, bias{1.0, 1.0};
    auto r = convolution_summation(d, src, weights, bias);
    PostOpData data;
    data.operands = {{}, {10.0, 20.0}};
    apply_post_ops(d, data, r.dst);
    EXPECT_EQ(r.dst[0], 10.0);  // relu(-3 + 1) + 10: the bias first, then relu, then the operand
    EXPECT_EQ(r.dst[1], 23.0);  // relu(2 + 1) + 20
    const ConvDescriptor swapped = parse_descriptor("conv:c=1,o=2,in=1,k=1,bias=1,po=add:per_oc+relu");
    auto s = convolution_summation(swapped, src, weights, bias);
    data.operands = {{-10.0, -20.0}, {}};
    apply_post_ops(swapped, data, s.dst);
    EXPECT_EQ(s.dst[0], 0.0);  // relu(-2 - 10)
    EXPECT_EQ(s.dst[1], 0.0);  // relu(3 - 20)
}

TEST(ReferencePostOps, SumReadsThePriorDstWithItsScaleAndZeroPoint) {
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=2,k=1,po=sum:0.5:2");
    PostOpData data;
    data.operands = {{}};
    data.prior_dst = {6.0, -2.0};
    std::vector<double> dst{1.0, 1.0};
    apply_post_ops(d, data, dst);
    EXPECT_EQ(dst[0], 3.0);   // 1 + 0.5 * (6 - 2)
    EXPECT_EQ(dst[1], -1.0);  // 1 + 0.5 * (-2 - 2)
}

TEST(ReferencePostOps, PerChannelOperandsAreIndexedByOutputChannelAcrossGroups) {
    // two groups of two output channels: channel 3 reads operand[3], not its group's index 1
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=4,g=2,in=1,k=1,po=mul:per_oc");
    PostOpData data;
    data.operands = {{1.0, 2.0, 3.0, 4.0}};
    std::vector<double> dst{1.0, 1.0, 1.0, 1.0};
    apply_post_ops(d, data, dst);
    EXPECT_EQ(dst, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
}

TEST(ReferencePostOps, AFullOperandIsLaidOutInDstsDataFormat) {
    // n=1, o=2, 1x2 output, NXC: buffer [x0c0, x0c1, x1c0, x1c1]; canonical NCX [c0x0, c0x1, c1x0, c1x1]
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=2,in=1x2,k=1,data=nxc,po=add:full");
    const float buffer[] = {1.0f, 2.0f, 3.0f, 4.0f};
    const auto canonical = operand_to_canonical(d, d.post_ops[0], buffer);
    EXPECT_EQ(canonical, (std::vector<double>{1.0, 3.0, 2.0, 4.0}));
    float back[4] = {};
    canonical_to_operand(d, d.post_ops[0], canonical, back);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(back[i], buffer[i]);
}

// Current oneDNN's later eltwise algorithms (dev_guide_eltwise's forward formulas), at worked points.
TEST(ReferencePostOps, LaterEltwiseAlgorithmsFollowTheirDefinitions) {
    // soft_relu: d = (1 / alpha) log_e(1 + e^(alpha s))
    EXPECT_NEAR(apply("soft_relu", 0.0), 0.6931471805599453, 1e-15);  // alpha 1: log 2
    EXPECT_NEAR(apply("soft_relu:-2", 1.0), -0.06346400552148625, 1e-16);
    EXPECT_NEAR(apply("soft_relu:0.5", 2.0), 2.6265233750364456, 1e-15);
    EXPECT_EQ(apply("soft_relu", 1000.0), 1000.0);  // past exp's range: s itself
    // log: d = log_e s
    EXPECT_EQ(apply("log", 1.0), 0.0);
    EXPECT_TRUE(std::isnan(apply("log", -1.0)));
    EXPECT_EQ(apply("log", 0.0), -std::numeric_limits<double>::infinity());
    // hardsigmoid: d = max(0, min(1, alpha s + beta))
    EXPECT_EQ(apply("hardsigmoid:-2:3", 1.25), 0.5);
    EXPECT_EQ(apply("hardsigmoid:-2:3", 1.0), 1.0);
    EXPECT_EQ(apply("hardsigmoid:-2:3", 2.0), 0.0);
    // hardswish_ab (current oneDNN's hardswish): d = s max(0, min(1, alpha s + beta)); hardswish is 2.6's fixed form
    EXPECT_EQ(apply("hardswish_ab:-2:3", 1.25), 0.625);
    EXPECT_EQ(apply("hardswish_ab:-2:3", 0.5), 0.5);
    EXPECT_EQ(apply("hardswish_ab:-2:3", 2.0), -0.0);
    EXPECT_EQ(apply("hardswish_ab:0.25:0.5", 1.0), 0.75);
    EXPECT_NEAR(apply("hardswish", 1.0), 2.0 / 3.0, 1e-15);  // x min(max(x + 3, 0), 6) / 6: alpha 1/6, beta 1/2 exactly
    // mish: d = s tanh(log_e(1 + e^s))
    EXPECT_NEAR(apply("mish", 1.0), 0.8650983882673103, 1e-15);
    EXPECT_NEAR(apply("mish", -2.0), -0.2525014826957089, 1e-15);
    // pow: d = alpha s^beta
    EXPECT_EQ(apply("pow:1:0.5", 9.0), 3.0);
    EXPECT_EQ(apply("pow:2:-1", 4.0), 0.5);
    EXPECT_EQ(apply("pow:1:1.5", 4.0), 8.0);
    EXPECT_EQ(apply("pow:3:2", -2.0), 12.0);
    EXPECT_TRUE(std::isnan(apply("pow:0.5:0.33", -1.0)));
}

TEST(ReferencePostOps, PreluWeighsTheNegativeValuesPerOutputChannelAcrossGroups) {
    // dev_guide_prelu: dst = src if src > 0, src * weights otherwise; channel 3 reads weights[3], not its group's 1
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=4,g=2,in=1,k=1,po=prelu:per_oc");
    PostOpData data;
    data.operands = {{0.5, 2.0, 3.0, 4.0}};
    std::vector<double> dst{-1.0, 2.0, -1.0, -2.0};
    apply_post_ops(d, data, dst);
    EXPECT_EQ(dst, (std::vector<double>{-0.5, 2.0, -3.0, -8.0}));
    EXPECT_EQ(prelu(0.0, 5.0), 0.0);
}

TEST(ReferencePostOps, OperandsOfEveryTypeAreReadExactly) {
    const float f32[] = {1.5f};
    const std::int8_t s8[] = {-128, 127, -3};
    const std::uint8_t u8[] = {255, 0};
    const std::int32_t s32[] = {-2147483647 - 1, 7};
    const std::uint16_t bf16[] = {0x3fc0};  // 1.5
    const std::uint16_t f16[] = {0xbe00};   // -1.5
    EXPECT_EQ(load_operand(f32, OperandType::f32, 0), 1.5);
    EXPECT_EQ(load_operand(s8, OperandType::s8, 0), -128.0);
    EXPECT_EQ(load_operand(s8, OperandType::s8, 2), -3.0);
    EXPECT_EQ(load_operand(u8, OperandType::u8, 0), 255.0);
    EXPECT_EQ(load_operand(s32, OperandType::s32, 0), -2147483648.0);
    EXPECT_EQ(load_operand(bf16, OperandType::bf16, 0), 1.5);
    EXPECT_EQ(load_operand(f16, OperandType::f16, 0), -1.5);
    // a per_oc s8 operand through the buffer and back
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=3,in=1,k=1,po=mul:per_oc:s8");
    std::int8_t buffer[3] = {};
    canonical_to_operand(d, d.post_ops[0], std::vector<double>{-4.0, 0.0, 4.0}, buffer);
    EXPECT_EQ(buffer[0], -4);
    EXPECT_EQ(buffer[2], 4);
    EXPECT_EQ(operand_to_canonical(d, d.post_ops[0], buffer), (std::vector<double>{-4.0, 0.0, 4.0}));
}

// The NaN policies (core/post_op_nan.hpp), one function each: on a number each is the definition; on a NaN the
// policy's own result. -0 and +0: relu of a negative value is alpha x (-0 for alpha 0: the literal formula), and
// clip at alpha 0 of -0 is max(0, -0), +0 as std::max returns its first argument on a tie.
TEST(ReferencePostOps, EachNanPolicyIsComputedAsItsStandardSays) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(clip_propagate(nan, -1, 6)));
    EXPECT_EQ(clip_to_lower_bound(nan, -1, 6), -1.0);
    EXPECT_EQ(clip_to_upper_bound(nan, -1, 6), 6.0);
    for (auto f : {clip_propagate, clip_to_lower_bound, clip_to_upper_bound}) {
        EXPECT_EQ(f(7.0, -1, 6), 6.0);
        EXPECT_EQ(f(-7.0, -1, 6), -1.0);
        EXPECT_EQ(f(2.5, -1, 6), 2.5);
    }
    EXPECT_TRUE(std::isnan(relu_propagate(nan, 0.0)));
    EXPECT_TRUE(std::isnan(relu_propagate(nan, 0.25)));
    EXPECT_EQ(relu_to_zero(nan, 0.0), 0.0);
    EXPECT_EQ(relu_to_zero(-2.0, 0.25), -0.5);
    EXPECT_TRUE(std::isnan(relu_to_zero(nan, 0.25)));  // a slope: the formula's NaN
    EXPECT_TRUE(std::signbit(relu_propagate(-2.0, 0.0)));  // 0 * -2 = -0
    EXPECT_FALSE(std::signbit(clip_propagate(-0.0, 0.0, 6.0)));
    EXPECT_TRUE(std::isnan(maximum(nan, 1.0)) && std::isnan(minimum(nan, 1.0)));
    EXPECT_EQ(maximum_number(nan, 1.0), 1.0);
    EXPECT_EQ(minimum_number(nan, -1.0), -1.0);
    EXPECT_EQ(maximum(2.0, 1.0), 2.0);
    EXPECT_EQ(minimum_number(2.0, 1.0), 1.0);
    // through eltwise and binary, by the policy given; by default every NaN propagates
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=1,k=1,po=clip:-1:6+relu");
    EXPECT_TRUE(std::isnan(eltwise(d.post_ops[0], nan)));
    EXPECT_EQ(eltwise(d.post_ops[0], nan, {ClipNan::to_upper_bound}), 6.0);
    EXPECT_EQ(eltwise(d.post_ops[1], nan, {ClipNan::propagate, ReluNan::to_zero}), 0.0);
    EXPECT_TRUE(std::isnan(binary(BinaryAlgorithm::max, nan, 1.0)));
    EXPECT_EQ(binary(BinaryAlgorithm::min, nan, 1.0, {ClipNan::propagate, ReluNan::propagate, MinMaxNan::propagate,
                                                      MinMaxNan::number}), 1.0);
    std::vector<double> steps;
    EXPECT_EQ(apply_post_ops(d, {}, 0, nan, &steps, {ClipNan::to_lower_bound}), 0.0);  // clip -> -1, relu -> 0
    EXPECT_EQ(steps, (std::vector<double>{-1.0, 0.0}));
}

// The sign of relu's zero (core/post_op_nan.hpp, ReluZero): the formula's alpha x is -0 for a negative x with
// alpha 0 (minus_zero, the default); MAXPS(x, 0) gives +0 (plus_zero). A slope's result and a positive x are the
// formula's under either.
TEST(ReferencePostOps, ReluZeroSignIsTheDeclaredOne) {
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=1,k=1,po=relu+relu:0.5");
    PostOpNanPolicy plus;
    plus.relu_zero = ReluZero::plus_zero;
    EXPECT_TRUE(std::signbit(eltwise(d.post_ops[0], -3.0)));
    EXPECT_TRUE(std::signbit(eltwise(d.post_ops[0], -0.0)));
    EXPECT_FALSE(std::signbit(eltwise(d.post_ops[0], -3.0, plus)));
    EXPECT_FALSE(std::signbit(eltwise(d.post_ops[0], -0.0, plus)));
    EXPECT_EQ(eltwise(d.post_ops[0], 2.5, plus), 2.5);
    EXPECT_EQ(eltwise(d.post_ops[1], -3.0, plus), -1.5);
    EXPECT_TRUE(std::signbit(eltwise(d.post_ops[1], -0.0, plus)));  // 0.5 * -0: a slope keeps the formula
    PostOpNanPolicy to_zero_plus = plus;
    to_zero_plus.relu = ReluNan::to_zero;
    EXPECT_EQ(eltwise(d.post_ops[0], std::numeric_limits<double>::quiet_NaN(), to_zero_plus), 0.0);
    ReluZero parsed = ReluZero::minus_zero;
    EXPECT_TRUE(parse_relu_zero("plus_zero", &parsed) && parsed == ReluZero::plus_zero);
    EXPECT_FALSE(parse_relu_zero("positive", &parsed));
}
