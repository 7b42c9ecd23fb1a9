// The special fills ask the question each is named after, for any descriptor and seed: every output
// of the ties fill that reads the input is a tie in the output type (even channels rounding toward
// zero, odd ones away), the overflow fill's even channels overflow to +-inf and its odd ones round
// down to +-max, and the subnormal fill's outputs are subnormal; the data depend only on
// (descriptor, contract, fill, seed), and a fill that cannot give one right answer says why.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/accuracy/special_fill.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;
using convcheck::testgen::valid_descriptor;

namespace {

Contract f32_accumulation(DataType out) {
    Contract c;
    c.output_dtype = out;
    return c;
}

// The exact results of d on the fill, and how many read the input (non-zero), per channel parity.
struct Outcome {
    std::vector<double> exact, channel;  // per output (NCX order) and its output channel
};
Outcome run(const ConvDescriptor& d, Fill fill, std::uint64_t seed) {
    const ExactFill f = make_fill(d, f32_accumulation(d.dtype), fill, seed);
    Outcome o;
    o.exact = reference::convolution_summation(d, f.src, f.weights, f.bias).dst;
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    for (std::size_t i = 0; i < o.exact.size(); ++i) o.channel.push_back(double((i / spatial) % d.out_channels));
    return o;
}

double max_finite(DataType dt) { return dt == DataType::f16 ? 65504.0 : std::ldexp(255.0, 120); }

RC_GTEST_PROP(SpecialFill, TiesFillMakesEveryReadOutputATieOfItsChannelsDirection, ()) {
    ConvDescriptor d = *valid_descriptor();
    d.dtype = *rc::gen::element(DataType::f16, DataType::bf16);
    const Outcome o = run(d, Fill::ties, *rc::gen::inRange<std::uint64_t>(0, 1000000));
    const int p = d.dtype == DataType::f16 ? 11 : 8;
    for (std::size_t i = 0; i < o.exact.size(); ++i) {
        const double y = std::fabs(o.exact[i]);
        if (y == 0.0) continue;  // its tap lies in the padding
        RC_ASSERT(y > std::ldexp(1.0, p));
        RC_ASSERT(y < std::ldexp(1.0, p + 1));
        RC_ASSERT(std::fmod(y, 2.0) == 1.0);  // odd: exactly half-way between two f16/bf16 values
        const double rounded = std::fabs(round_to(d.dtype, o.exact[i]));
        RC_ASSERT((rounded < y) == (int(o.channel[i]) % 2 == 0));  // even channels toward zero
    }
}

RC_GTEST_PROP(SpecialFill, OverflowFillOverflowsEvenChannelsAndRoundsOddOnesToMax, ()) {
    ConvDescriptor d = *valid_descriptor();
    d.dtype = *rc::gen::element(DataType::f16, DataType::bf16);
    d.groups = 1, d.in_channels = *rc::gen::inRange<std::int64_t>(2, 5);
    const Outcome o = run(d, Fill::overflow, *rc::gen::inRange<std::uint64_t>(0, 1000000));
    for (std::size_t i = 0; i < o.exact.size(); ++i) {
        if (o.exact[i] == 0.0) continue;
        const double r = round_to(d.dtype, o.exact[i]);
        if (int(o.channel[i]) % 2 == 0) RC_ASSERT(std::isinf(r));
        else {
            RC_ASSERT(std::fabs(o.exact[i]) > max_finite(d.dtype));  // beyond M, yet it rounds to M
            RC_ASSERT(std::fabs(r) == max_finite(d.dtype));
        }
    }
}

RC_GTEST_PROP(SpecialFill, SubnormalFillGivesSubnormalOutputs, ()) {
    ConvDescriptor d = *valid_descriptor();
    d.dtype = *rc::gen::element(DataType::f32, DataType::f16, DataType::bf16);
    const Outcome o = run(d, Fill::subnormal, *rc::gen::inRange<std::uint64_t>(0, 1000000));
    const double min_normal = d.dtype == DataType::f16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
    for (double y : o.exact) RC_ASSERT(std::fabs(y) < min_normal);
}

TEST(SpecialFill, DataDependOnlyOnDescriptorContractFillAndSeed) {
    const ConvDescriptor d = parse_descriptor("c=4,o=4,in=6x7,k=3x3,pb=1x1,pe=1x1,dt=f16");
    for (Fill fill : kAllFills) {
        const auto a = make_fill(d, f32_accumulation(d.dtype), fill, 7), b = make_fill(d, f32_accumulation(d.dtype), fill, 7);
        EXPECT_EQ(a.src, b.src) << to_string(fill);
        EXPECT_EQ(a.weights, b.weights) << to_string(fill);
        EXPECT_NE(a.src, make_fill(d, f32_accumulation(d.dtype), fill, 8).src) << to_string(fill);
    }
}

TEST(SpecialFill, TiesNeedAWiderAccumulationAndSaySo) {
    const ConvDescriptor d = parse_descriptor("c=4,o=4,in=6x7,k=3x3,dt=f16");
    Contract f16_acc = f32_accumulation(DataType::f16);
    f16_acc.accumulation_dtype = DataType::f16;
    EXPECT_NE(fill_not_applicable(Fill::ties, d, f16_acc).find("at least 14 significand bits"), std::string::npos)
        << fill_not_applicable(Fill::ties, d, f16_acc);
    EXPECT_EQ(fill_not_applicable(Fill::ties, d, f32_accumulation(DataType::f16)), "");
    EXPECT_EQ(fill_not_applicable(Fill::overflow, d, f16_acc), "");
    Fill parsed;
    EXPECT_TRUE(parse_fill("subnormal", &parsed));
    EXPECT_EQ(parsed, Fill::subnormal);
    EXPECT_FALSE(parse_fill("Subnormal", &parsed));
}

}  // namespace
