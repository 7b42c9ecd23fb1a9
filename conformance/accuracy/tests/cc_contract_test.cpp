// The CC accuracy contract (compare_bound_cc): an honest f32 backend that computes its own grid,
// distances and K_theta in float passes it for random layers and seeds; a layer whose weights are
// a small difference of large terms shows that the discrete bound alone does NOT cover such a
// backend; and the bound still catches wrong answers (a window one tap off, a shifted grid, one
// output off by twice its bound).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference_tests/float_cc.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/accuracy/cc_suite_layers.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

const Contract kF32{};  // f32 output, f32 accumulation: u = 2^-24

struct Layer {
    CcDescriptor d;
    std::vector<float> src, theta, bias;
    reference::ConvResult want;
    std::vector<double> weight_error;
};

Layer make_layer(const CcDescriptor& d, std::uint64_t seed, std::vector<float> theta) {
    Layer l{d, {}, std::move(theta), {}, {}, {}};
    for (double v : cctest::uniform(d.src_elements(), seed)) l.src.push_back(static_cast<float>(v));
    if (d.has_bias)
        for (double v : cctest::uniform(d.out_channels, seed + 1)) l.bias.push_back(static_cast<float>(v));
    const float* theta_ptr = l.theta.empty() ? nullptr : l.theta.data();
    l.want = reference::cc::continuous_convolution(d, l.src.data(), theta_ptr, d.has_bias ? l.bias.data() : nullptr);
    l.weight_error = reference::cc::cc_weight_error(d, l.src.data(), theta_ptr, accumulation_roundoff(kF32));
    return l;
}

Layer make_layer(const CcDescriptor& d, std::uint64_t seed) {
    std::vector<float> theta;
    if (d.kernel == CcKernel::internal_net)
        for (double v : reference::cc::initialise_internal_net(d, seed).theta()) theta.push_back(static_cast<float>(v));
    return make_layer(d, seed, std::move(theta));
}

std::vector<double> run_float(const Layer& l, cctest::FloatCcOptions options = {}) {
    const std::vector<float> out = cctest::float_cc(l.d, l.src, l.theta, l.bias, options);
    return std::vector<double>(out.begin(), out.end());
}

Comparison compare_cc(const Layer& l, const std::vector<double>& got) {
    return compare_bound_cc(kF32, l.want.dst, l.want.magnitude, l.want.terms, l.weight_error, got);
}

}  // namespace

RC_GTEST_PROP(CcContract, HonestFloatBackendIsWithinTheBound, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const Layer l = make_layer(d, seed);
    const Comparison c = compare_cc(l, run_float(l));
    RC_ASSERT_FALSE(c.elements == 0);
    if (!c.passed())
        RC_FAIL(std::to_string(c.mismatches) + " outputs exceed the CC bound, worst " +
                std::to_string(c.max_bound_fraction) + "x " + cctest::reproducer(d, seed));
}

TEST(CcContract, HonestFloatBackendPassesEveryCcSuiteLayer) {
    for (const CcSuiteLayer& layer : kCcSuiteLayers)
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
            const Layer l = make_layer(d, seed);
            const Comparison c = compare_cc(l, run_float(l));
            EXPECT_TRUE(c.passed()) << c.mismatches << " outputs, worst " << c.max_bound_fraction << "x "
                                    << cctest::reproducer(d, seed);
        }
}

// theta chosen so that every weight is a small difference of large terms: a1 ~ 1000, a2 ~ 1000,
// w = 1.001 a2 - 1000 ~ 1. An honest f32 backend's weights are then off by ~1000 u each, far more
// than gamma_n(u) sum |N W| allows: the discrete bound fails it, the CC bound does not.
TEST(CcContract, CancellationInsideTheInternalNetNeedsTheWeightTerm) {
    const CcDescriptor d = parse_cc_descriptor("cc:n=1,cin=2,cout=2,in=8x8,scale=2/3,support=3x3,kernel=net,hidden=1x1");
    const std::uint64_t seed = 5;
    const std::int64_t C = d.in_channels * d.out_channels;
    std::vector<float> theta{0.001f, 0.002f, 1000.0f, 1.0f, 0.0f};  // W1[1][2], b1, W2[1][1], b2
    for (std::int64_t c = 0; c < C; ++c) theta.push_back(1.001f + 0.0001f * static_cast<float>(c));  // W3[C][1]
    for (std::int64_t c = 0; c < C; ++c) theta.push_back(-1000.0f);                                 // b3[C]
    ASSERT_EQ(static_cast<std::int64_t>(theta.size()), d.theta_elements());
    const Layer l = make_layer(d, seed, theta);
    const std::vector<double> got = run_float(l);
    const Comparison old_rule = compare_bound(kF32, l.want.dst, l.want.magnitude, l.want.terms, got);
    const Comparison new_rule = compare_cc(l, got);
    EXPECT_FALSE(old_rule.passed()) << "the discrete bound alone should not cover this honest f32 backend (worst "
                                    << old_rule.max_bound_fraction << "x) " << cctest::reproducer(d, seed);
    EXPECT_TRUE(new_rule.passed()) << new_rule.mismatches << " outputs, worst " << new_rule.max_bound_fraction << "x "
                                   << cctest::reproducer(d, seed);
}

// The bound is not so loose that it lets wrong answers through.
TEST(CcContract, CatchesAWindowOneTapOff) {
    for (const CcSuiteLayer& layer : kCcSuiteLayers) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        const Layer l = make_layer(d, 1);
        const Comparison c = compare_cc(l, run_float(l, {.shift_w = 1}));
        EXPECT_FALSE(c.passed()) << "a window one tap off passed " << cctest::reproducer(d, 1);
    }
}

TEST(CcContract, CatchesAShiftedGrid) {
    for (const CcSuiteLayer& layer : kCcSuiteLayers) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        const Layer l = make_layer(d, 1);
        const Comparison c = compare_cc(l, run_float(l, {.grid_offset = 0.25f}));
        EXPECT_FALSE(c.passed()) << "a grid shifted by 1/4 pixel passed " << cctest::reproducer(d, 1);
    }
}

TEST(CcContract, CatchesOneOutputOffByTwiceItsBound) {
    for (const CcSuiteLayer& layer : kCcSuiteLayers) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        const Layer l = make_layer(d, 1);
        std::vector<double> got = run_float(l);
        const std::size_t i = got.size() / 2;
        got[i] = l.want.dst[i] + 2.0 * cc_error_bound(kF32, l.want.dst[i], l.want.magnitude[i], l.want.terms[i],
                                                    l.weight_error[i]);
        const Comparison c = compare_cc(l, got);
        EXPECT_EQ(c.mismatches, 1) << cctest::reproducer(d, 1);
        EXPECT_EQ(c.first_mismatch, static_cast<std::int64_t>(i)) << cctest::reproducer(d, 1);
    }
}

// The gap on a layer of the cc suite itself: an honest f32 Keys cubic (Horner in float, from a
// float grid) exceeds the discrete bound on cubic/upscale for this data, and is within the CC bound.
TEST(CcContract, HonestFloatCubicNeedsTheWeightTermOnTheSuiteLayer) {
    const CcDescriptor d = parse_cc_descriptor("cc:n=1,cin=2,cout=2,in=7x9,scale=3/2,support=4x4,kernel=cubic,bias=1");
    const Layer l = make_layer(d, 1);
    const std::vector<double> got = run_float(l);
    const Comparison old_rule = compare_bound(kF32, l.want.dst, l.want.magnitude, l.want.terms, got);
    EXPECT_FALSE(old_rule.passed()) << "worst " << old_rule.max_bound_fraction << "x " << cctest::reproducer(d, 1);
    EXPECT_TRUE(compare_cc(l, got).passed()) << cctest::reproducer(d, 1);
}
