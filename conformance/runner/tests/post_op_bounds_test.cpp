// The bound carried through a post-op (conv/post_ops.cpp): for each later eltwise algorithm, the spread of values
// within e of v is at least the true one (sampled on the interval, ends included) and not more than 5 % above it
// at points where the op is steepest, so a Lipschitz constant too small or too large fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../conv/operation.hpp"
#include "convcheck/reference/post_ops.hpp"

using namespace convcheck;
using convcheck::runner::detail::eltwise_spread;
using convcheck::runner::detail::lipschitz;
using convcheck::runner::detail::outside_domain;

namespace {

PostOp op_of(const std::string& po) { return parse_post_ops(po)[0]; }

// sup |f(t) - f(v)| over [v - e, v + e], sampled
double true_spread(const PostOp& op, double v, double e) {
    const double fv = reference::eltwise(op, v);
    double s = 0.0;
    for (int i = 0; i <= 4000; ++i) s = std::max(s, std::fabs(reference::eltwise(op, v - e + 2 * e * i / 4000.0) - fv));
    return s;
}

void expect_sound_and_tight(const std::string& po, double v, double e) {
    const PostOp op = op_of(po);
    const double got = eltwise_spread(op, v, e), want = true_spread(op, v, e);
    SCOPED_TRACE(po + " at " + std::to_string(v) + " +- " + std::to_string(e));
    EXPECT_GE(got, want * (1.0 - 1e-12));  // both ways to |f(v +- e) - f(v)| may differ in the last bit
    EXPECT_LE(got, 1.05 * want + 1e-300);
}

}  // namespace

TEST(PostOpBounds, SoftReluLogHardsigmoidAndPowSpreadByTheirImage) {
    for (const char* po : {"soft_relu", "soft_relu:-2", "soft_relu:0.5"})
        for (double v : {-3.0, 0.0, 2.5}) expect_sound_and_tight(po, v, 0.01);
    for (double v : {0.05, 1.0, 40.0}) expect_sound_and_tight("log", v, 0.01);
    for (double v : {1.1, 1.25, 1.45}) expect_sound_and_tight("hardsigmoid:-2:3", v, 0.01);
    expect_sound_and_tight("hardsigmoid:0.2:0.5", 0.0, 0.5);
    for (const char* po : {"pow:1:0.5", "pow:1:1.5", "pow:2:-1", "pow:0.5:0.33"})
        for (double v : {0.05, 1.0, 9.0}) expect_sound_and_tight(po, v, 0.01);
    expect_sound_and_tight("pow:1:2", 0.001, 0.01);  // across 0: the image's low end is f(0)
    expect_sound_and_tight("pow:1:3", -0.5, 0.01);
}

TEST(PostOpBounds, HardswishAbAndMishSpreadByTheirLipschitzConstantOnTheInterval) {
    // hardswish_ab:-2:3: f' = 2 alpha x + beta = -4x + 3 for x in (1, 1.5), steepest (-3) at 1.5; 1 for x < 1
    for (double v : {1.4, 1.1, 0.5}) expect_sound_and_tight("hardswish_ab:-2:3", v, 0.01);
    EXPECT_NEAR(lipschitz(op_of("hardswish_ab:-2:3"), 1.39, 1.41), 2.64, 1e-12);
    EXPECT_EQ(lipschitz(op_of("hardswish_ab:-2:3"), -5.0, 0.5), 1.0);   // x < 1: f = x
    EXPECT_EQ(lipschitz(op_of("hardswish_ab:-2:3"), 2.0, 3.0), 0.0);    // x > 1.5: f = 0
    EXPECT_EQ(lipschitz(op_of("hardswish_ab:0:0.25"), -9.0, 9.0), 0.25);  // alpha 0: f = x clamp(beta, 0, 1)
    for (double v : {-0.5, 1.0, 2.5}) expect_sound_and_tight("hardswish_ab:0.25:0.5", v, 0.01);
    // mish: steepest rising 1.0885 at x = 1.49, steepest falling -0.1125 at x = -2.256
    for (double v : {1.491, -2.256, 0.0, 6.0}) expect_sound_and_tight("mish", v, 0.001);
    EXPECT_LE(lipschitz(op_of("mish"), -100.0, 100.0), 1.0885);
}

TEST(PostOpBounds, AnIntervalPastTheDomainIsNamed) {
    EXPECT_TRUE(outside_domain(op_of("log"), -0.5, 0.5));
    EXPECT_TRUE(outside_domain(op_of("log"), 0.0, 0.5));  // log 0 = -inf
    EXPECT_FALSE(outside_domain(op_of("log"), 1e-9, 0.5));
    EXPECT_TRUE(outside_domain(op_of("pow:1:0.5"), -1e-9, 1.0));
    EXPECT_FALSE(outside_domain(op_of("pow:1:2"), -1.0, 1.0));  // an integer exponent: every x
    EXPECT_TRUE(outside_domain(op_of("pow:2:-1"), -1.0, 1.0));  // 1 / x across 0
    EXPECT_FALSE(outside_domain(op_of("pow:2:-1"), -2.0, -1.0));
    EXPECT_TRUE(std::isinf(eltwise_spread(op_of("log"), 0.001, 0.01)));
}

// Probe mode's expectations through a chain (probe_post_ops): where the NaN reaches, what the declared policy makes of
// it -- NaN where it propagates; else the number, exact at the op that made it and judged by the rounding of the rest
// of the chain; elsewhere the chain's result without the NaN, its bound as given.
TEST(PostOpBounds, AProbeNanFollowsTheDeclaredPolicyThroughTheChain) {
    using convcheck::runner::detail::probe_post_ops;
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=2,k=1,po=clip:-2:6+linear:0.5:1");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    accuracy::Contract c;
    std::vector<double> with_nan{nan, 3.0}, want{0.25, 2.5}, bounds{1e-6, 2e-6};
    probe_post_ops(d, c, {}, with_nan, want, bounds);  // undeclared: the NaN propagates
    EXPECT_TRUE(std::isnan(with_nan[0]));
    EXPECT_EQ(with_nan[1], 2.5);  // not reached: the chain's result without the NaN
    EXPECT_EQ(bounds[1], 2e-6);
    c.post_op_nan.clip = ClipNan::to_lower_bound;
    with_nan = {nan, 3.0};
    probe_post_ops(d, c, {}, with_nan, want, bounds);
    EXPECT_EQ(with_nan[0], 0.0);  // clip -> -2, then 0.5 * -2 + 1
    EXPECT_EQ(want[0], 0.0);
    EXPECT_GT(bounds[0], 0.0);  // linear's roundings of alpha x (|alpha x| = 1) and of the sum, and the one to dst
    EXPECT_LT(bounds[0], 2.0 * std::ldexp(1.0, -24));
    c.post_op_nan.clip = ClipNan::to_upper_bound;
    with_nan = {nan, 3.0};
    probe_post_ops(d, c, {}, with_nan, want, bounds);
    EXPECT_EQ(with_nan[0], 4.0);  // clip -> 6, then 0.5 * 6 + 1
    EXPECT_LT(bounds[0], 4.0 * std::ldexp(1.0, -22));
}

TEST(PostOpBounds, ProbeModeDeclinesTheOpsWhoseNanNoDeclarationNames) {
    using convcheck::runner::detail::post_ops_not_probed;
    EXPECT_EQ(post_ops_not_probed(parse_descriptor("conv:c=1,o=1,in=1,k=1,po=relu+clip:0:6+max:per_oc+tanh")), "");
    EXPECT_NE(post_ops_not_probed(parse_descriptor("conv:c=1,o=1,in=1,k=1,po=hardsigmoid:0.2:0.5")).find("clamps inside"),
              std::string::npos);
    EXPECT_NE(post_ops_not_probed(parse_descriptor("conv:c=1,o=1,in=1,k=1,po=pow:2:0")).find("NaN^0"), std::string::npos);
}
