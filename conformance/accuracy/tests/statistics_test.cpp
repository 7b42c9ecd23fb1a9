// The statistical half of bound mode and the stress/precision data: an honest float summation passes
// the statistics on every stress kind, a result truncated toward zero (inside every per-output bound)
// fails them, a vacuous bound is never a silent pass, and the stress and precision data keep the
// properties their kinds promise.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "accuracy.hpp"
#include "convcheck/reference/convolution.hpp"
#include "precision_fill.hpp"
#include "stress_fill.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

const Contract kF32{DataType::f32, DataType::f32, false};

ConvDescriptor pointwise() { return parse_descriptor("c=4,o=4,in=32x32,k=1x1"); }

// Each output summed in float, in order, then stored as float: an honest f32 backend.
std::vector<double> float_summation(const ConvDescriptor& d, const RandomFill& f) {
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    // per output: the products again, summed in float (pointwise, one group: sum over channels)
    std::vector<double> got(want.dst.size());
    const std::int64_t spatial = d.input_size[0] * d.input_size[1];
    for (std::int64_t o = 0; o < d.out_channels; ++o)
        for (std::int64_t x = 0; x < spatial; ++x) {
            float sum = 0.0f;
            for (std::int64_t c = 0; c < d.in_channels; ++c)
                sum += float(f.src[c * spatial + x]) * float(f.weights[o * d.in_channels + c]);
            got[o * spatial + x] = sum;
        }
    return got;
}

TEST(Statistics, AnHonestFloatSummationPassesOnEveryStressKind) {
    const ConvDescriptor d = pointwise();
    for (DataKind kind : kStressKinds)
        for (std::uint64_t seed = 1; seed <= 10; ++seed) {
            const RandomFill f = make_stress_fill(d, kF32, kind, seed);
            const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
            const Comparison c = compare_bound(kF32, want.dst, want.magnitude, want.terms, float_summation(d, f));
            EXPECT_TRUE(c.passed()) << to_string(kind) << " seed " << seed;
            EXPECT_TRUE(c.statistics.passed()) << to_string(kind) << " seed " << seed << ": " << c.statistics.failure;
            EXPECT_EQ(c.statistics.judged_by, "bound+statistics") << to_string(kind);
        }
}

TEST(Statistics, TruncationTowardZeroPassesTheBoundAndFailsTheBiasRule) {
    const ConvDescriptor d = pointwise();
    const RandomFill f = make_stress_fill(d, kF32, DataKind::uniform, 1);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    std::vector<double> got(want.dst.size());
    for (std::size_t i = 0; i < got.size(); ++i) {  // f64 result, significand cut to 24 bits
        const double y = want.dst[i];
        const int e = std::ilogb(y);
        got[i] = y == 0.0 ? 0.0 : std::ldexp(std::trunc(std::ldexp(y, 23 - e)), e - 23);
    }
    const Comparison c = compare_bound(kF32, want.dst, want.magnitude, want.terms, got);
    EXPECT_TRUE(c.passed()) << "the per-output bound should not see it";
    EXPECT_FALSE(c.statistics.passed());
    EXPECT_NE(c.statistics.failure.find("toward zero"), std::string::npos) << c.statistics.failure;
    EXPECT_GT(c.statistics.growth, 1.0);
}

TEST(Statistics, ErrorsOfEitherSignFarAboveRoundingFailTheVarianceRule) {
    // +-3 sigma with random signs: no bias, but a variance of 9 where rounding gives at most 1; each
    // still far inside the per-output bound (n u M >> 3 sigma for these n)
    const ConvDescriptor d = parse_descriptor("c=64,o=4,in=16x16,k=1x1");
    const RandomFill f = make_random_fill(d, 2);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    std::vector<double> got(want.dst.size());
    std::mt19937_64 rng(7);
    for (std::size_t i = 0; i < got.size(); ++i)
        got[i] = want.dst[i] + (rng() % 2 ? 3.0 : -3.0) * rounding_noise_scale(kF32, want.dst[i], want.magnitude[i], want.terms[i]);
    const Comparison c = compare_bound(kF32, want.dst, want.magnitude, want.terms, got);
    EXPECT_TRUE(c.passed());
    EXPECT_NE(c.statistics.failure.find("error variance"), std::string::npos) << c.statistics.failure;
}

TEST(Statistics, FewerOutputsThanTheMinimumAreJudgedByTheBoundAlone) {
    const ConvDescriptor d = parse_descriptor("c=4,o=4,in=8x8,k=1x1");  // 256 outputs
    const RandomFill f = make_random_fill(d, 1);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    const Comparison c = compare_bound(kF32, want.dst, want.magnitude, want.terms, want.dst);
    EXPECT_EQ(c.statistics.judged_by, "bound");
}

TEST(Statistics, AVacuousBoundIsUncheckedUnlessTheStatisticsRejectZeros) {
    const Contract f16_acc{DataType::f16, DataType::f16, false};
    // n = 2304 > 1/u: gamma infinite; 18 outputs: too few for statistics
    const ConvDescriptor small = parse_descriptor("c=256,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1,dt=f16");
    const RandomFill f = make_random_fill(small, 1);
    const auto want = reference::convolution_summation(small, f.src, f.weights, f.bias);
    const std::vector<double> zeros(want.dst.size(), 0.0);
    const Comparison c = compare_bound(f16_acc, want.dst, want.magnitude, want.terms, zeros);
    EXPECT_TRUE(c.passed()) << "an infinite bound admits zeros";
    EXPECT_EQ(c.statistics.judged_by, "unchecked");
    EXPECT_EQ(c.statistics.vacuous_outputs, 18);
    // same n, 1024 outputs, all products positive: the statistics can reject zeros, and do
    const ConvDescriptor big = parse_descriptor("c=256,o=16,in=8x8,k=3x3,pb=1x1,pe=1x1,dt=f16");
    const RandomFill g = make_stress_fill(big, f16_acc, DataKind::large_exponents, 1);
    const auto want_big = reference::convolution_summation(big, g.src, g.weights, g.bias);
    const Comparison z = compare_bound(f16_acc, want_big.dst, want_big.magnitude, want_big.terms,
                                       std::vector<double>(want_big.dst.size(), 0.0));
    EXPECT_EQ(z.statistics.judged_by, "statistics");
    EXPECT_FALSE(z.statistics.passed());
    // and the right answer passes there
    const Comparison right = compare_bound(f16_acc, want_big.dst, want_big.magnitude, want_big.terms, want_big.dst);
    EXPECT_TRUE(right.statistics.passed()) << right.statistics.failure;
}

TEST(StressFill, CancellationGivesExactZerosAndLargeExponentsStayInRange) {
    for (const char* text : {"c=6,o=4,in=9x9,k=3x3,pb=1x1,pe=1x1,bias=1", "c=5,o=3,in=7,k=3,dt=f16"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const Contract c{d.dtype, DataType::f32, false};
        const RandomFill f = make_stress_fill(d, c, DataKind::cancellation, 3);
        // exactly 0 in exact arithmetic; the reference's own double summation leaves at most a few
        // units of 2^-53 M
        const auto zero = reference::convolution_summation(d, f.src, f.weights, f.bias);
        for (std::size_t i = 0; i < zero.dst.size(); ++i)
            EXPECT_LE(std::fabs(zero.dst[i]), std::ldexp(zero.magnitude[i], -48)) << text;
        const RandomFill g = make_stress_fill(d, c, DataKind::large_exponents, 3);
        const auto big = reference::convolution_summation(d, g.src, g.weights, g.bias);
        for (std::size_t i = 0; i < big.dst.size(); ++i) {
            EXPECT_TRUE(std::isfinite(round_to(d.dtype, big.magnitude[i]))) << text;
            EXPECT_EQ(big.dst[i], big.magnitude[i]) << "every product positive: y* = M";
        }
    }
}

TEST(PrecisionFill, EveryResultIsExactAndChangesWhenInputsLoseBits) {
    const ConvDescriptor d = parse_descriptor("c=2,o=4,in=8x8,k=3x3,pb=1x1,pe=1x1");
    const RandomFill f = make_precision_fill(d, 5);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    std::int64_t nonzero = 0;
    for (double y : want.dst) {
        EXPECT_EQ(y, double(float(y))) << "the exact result is an f32 value";
        nonzero += y != 0.0;
    }
    EXPECT_GT(nonzero, 0);
    auto rounded = [](std::vector<double> v) {
        for (double& x : v) x = round_significand(x, 11);
        return v;
    };
    const auto tf32 = reference::convolution_summation(d, rounded(f.src), rounded(f.weights), f.bias);
    for (std::size_t i = 0; i < want.dst.size(); ++i)
        if (want.dst[i] != 0.0) {
            EXPECT_NE(tf32.dst[i], want.dst[i]) << "output " << i << " does not need every bit";
        }
    EXPECT_EQ(round_significand(1.0 + std::ldexp(1.0, -23), 11), 1.0);
    EXPECT_EQ(round_significand(1.5 + std::ldexp(1.0, -11), 11), 1.5);                         // ties to even
    EXPECT_EQ(round_significand(1.5 + 3 * std::ldexp(1.0, -11), 11), 1.5 + std::ldexp(1.0, -9));
}

}  // namespace
