// The statistical half of bound mode and the stress/precision data: an honest float summation passes
// the statistics on every stress kind, a result truncated toward zero (inside every per-output bound)
// fails them, a vacuous bound is never a silent pass, and the stress and precision data keep the
// properties their kinds promise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/accuracy/precision_fill.hpp"
#include "convcheck/accuracy/stress_fill.hpp"
#include "convcheck/accuracy_tests/same_comparison.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

const Contract kF32{DataType::f32, DataType::f32, false};

ConvDescriptor pointwise() { return parse_descriptor("c=4,o=4,in=32x32,k=1x1"); }

// Each output summed in float, in order, then stored as float: an honest f32 backend; with
// `input_bits`, one that first rounds src and weights to that many significand bits (TF32 11, bf16 8).
std::vector<double> float_summation(const ConvDescriptor& d, const RandomFill& f, int input_bits = 0) {
    auto in = [&](double v) { return float(input_bits ? round_significand(v, input_bits) : v); };
    // per output: the products again, summed in float (pointwise, one group: sum over channels)
    const std::int64_t spatial = d.input_size[0] * d.input_size[1];
    std::vector<double> got(static_cast<std::size_t>(d.out_channels * spatial));
    for (std::int64_t o = 0; o < d.out_channels; ++o)
        for (std::int64_t x = 0; x < spatial; ++x) {
            float sum = 0.0f;
            for (std::int64_t c = 0; c < d.in_channels; ++c)
                sum += in(f.src[c * spatial + x]) * in(f.weights[o * d.in_channels + c]);
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
            EXPECT_EQ(c.statistics.judged_by, "per_output+statistics") << to_string(kind);
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

// A tensor large enough for the statistics to run on their own thread beside the comparison (accuracy.cpp): the
// same truncation fails them there, with the same sums, bit for bit, as judge_statistics gives on its own.
TEST(Statistics, ALargeTensorIsJudgedOnTheStatisticsThreadWithTheSameSums) {
    const ConvDescriptor d = parse_descriptor("c=4,o=4,in=128x160,k=1x1");  // 81920 outputs
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
    EXPECT_NE(c.statistics.failure.find("toward zero"), std::string::npos) << c.statistics.failure;
    const Statistics alone = judge_statistics(kF32, want.dst, want.magnitude, want.terms, got,
                                              error_bounds(kF32, want.dst, want.magnitude, want.terms), true);
    EXPECT_EQ(c.statistics.outputs, alone.outputs);
    EXPECT_EQ(c.statistics.sum, alone.sum);
    EXPECT_EQ(c.statistics.sum_squares, alone.sum_squares);
    EXPECT_EQ(c.statistics.sum_toward_zero, alone.sum_toward_zero);
    EXPECT_EQ(c.statistics.failure, alone.failure);
    EXPECT_EQ(c.statistics.judged_by, "per_output+statistics");
}

// sigma (statistics.hpp) at a point, and at zero, where only eta_out is left: half the smallest subnormal of the
// output type, (2 + u_out) times it with the bias added after a first rounding (the bound's eta term)
TEST(Statistics, TheNoiseScaleIsTheModelsFormulaDownToEta) {
    const double u = std::ldexp(1.0, -24), eta = std::ldexp(1.0, -150);
    EXPECT_DOUBLE_EQ(rounding_noise_scale(kF32, 3.0, 5.0, 7),
                     std::sqrt(2.0 * 7.0 / 3.0 * u * u * 25.0 + u * u * 9.0 / 3.0 + eta * eta));
    EXPECT_EQ(rounding_noise_scale(kF32, 0.0, 0.0, 1), eta);
    Contract after = kF32;
    after.bias_after_output_rounding = true;
    EXPECT_EQ(rounding_noise_scale(after, 0.0, 0.0, 1), (2.0 + u) * eta);
    EXPECT_TRUE(bound_is_vacuous(kF32, 1.0, std::int64_t{1} << 24));  // n u = 1: phi_n >= 1
    EXPECT_FALSE(bound_is_vacuous(kF32, 1.0, 1000));
    EXPECT_TRUE(bound_is_vacuous(kF32, 1e39, 1000));  // not below f32's largest finite value
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
    EXPECT_EQ(c.statistics.judged_by, "per_output");
}

TEST(Statistics, AVacuousBoundIsUncheckedUnlessTheStatisticsRejectZeros) {
    const Contract f16_acc{DataType::f16, DataType::f16, false};
    // n = 2304 > 1/u at every output (no padding): phi_n >= 1; 18 outputs: too few for statistics
    const ConvDescriptor small = parse_descriptor("c=256,o=2,in=5x5,k=3x3,dt=f16");
    const RandomFill f = make_random_fill(small, 1);
    const auto want = reference::convolution_summation(small, f.src, f.weights, f.bias);
    const std::vector<double> zeros(want.dst.size(), 0.0);
    const Comparison c = compare_bound(f16_acc, want.dst, want.magnitude, want.terms, zeros);
    EXPECT_TRUE(c.passed()) << "a vacuous bound admits zeros";
    EXPECT_EQ(c.statistics.judged_by, "unchecked");
    EXPECT_EQ(c.statistics.vacuous_outputs, 18);
    // same n, 1152 outputs, all products positive: the statistics can reject zeros, and do
    const ConvDescriptor big = parse_descriptor("c=256,o=32,in=8x8,k=3x3,dt=f16");
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

// The declared widenings of the bound (docs/accuracy.md, "Declared algorithms and input precision"):
// an honest f32 summation of inputs rounded to TF32 or bf16 passes the bound and the statistics once
// the input precision is declared, and fails without; an error that scales with the tensor's largest
// magnitude passes a declared whole-tensor bound and fails the per-output one; and each bound is as
// derived (the worst single product of a rounded input reaches the input-rounding term).
TEST(DeclaredInputPrecision, AnHonestTf32OrBf16SummationPassesOnlyWhenDeclared) {
    const ConvDescriptor d = pointwise();
    for (const int bits : {11, 8}) {
        Contract declared{DataType::f32, DataType::f32, false};
        declared.input_significand_bits = bits;
        const Contract undeclared = kF32;
        int undeclared_failures = 0;
        for (DataKind kind : kStressKinds)
            for (std::uint64_t seed = 1; seed <= 10; ++seed) {
                const RandomFill f = make_stress_fill(d, undeclared, kind, seed);
                const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
                const auto got = float_summation(d, f, bits);
                const Comparison c = compare_bound(declared, want.dst, want.magnitude, want.terms, got);
                EXPECT_TRUE(c.passed()) << bits << " bits, " << to_string(kind) << " seed " << seed << ": worst "
                                        << c.max_bound_fraction << "x the bound";
                EXPECT_TRUE(c.statistics.passed()) << bits << " bits, " << to_string(kind) << " seed " << seed << ": "
                                                   << c.statistics.failure;
                EXPECT_EQ(c.statistics.judged_by,
                          bits == 11 ? "input_precision:tf32+statistics" : "input_precision:bf16+statistics");
                const Comparison u = compare_bound(undeclared, want.dst, want.magnitude, want.terms, got);
                undeclared_failures += !u.passed() || !u.statistics.passed();
            }
        EXPECT_GT(undeclared_failures, 30) << bits << " bits: the f32 contract did not see the input rounding";
    }
}

TEST(DeclaredInputPrecision, TheInputTermIsReachedByOneProduct) {
    // x = 1 + 2^-11 rounds to 1 in TF32 (a tie, to even), w = 1 + 2^-11 too: x~ w~ = 1 against
    // x w = 1 + 2^-10 + 2^-22: an error of about 2 u_in M, the input term's first order.
    Contract c{DataType::f32, DataType::f32, false};
    c.input_significand_bits = 11;
    const double x = 1.0 + std::ldexp(1.0, -11), exact = x * x;
    const double bound = error_bound(c, exact, exact, 1);
    EXPECT_GE(bound, std::fabs(1.0 - exact));
    EXPECT_LT(bound, 1.01 * std::fabs(1.0 - exact) + unit_roundoff(DataType::f32) * exact + 2 * std::ldexp(1.0, -24));
    // and bf16 inputs of an f32 case are covered by their own u_in = 2^-8, not TF32's
    c.input_significand_bits = 8;
    EXPECT_GT(error_bound(c, 1.0, 1.0, 1), 2 * std::ldexp(1.0, -8));
}

TEST(DeclaredWholeTensorBound, AnErrorOfTheLargestMagnitudePassesOnlyWhenDeclared) {
    const ConvDescriptor d = pointwise();
    const Contract per_output = kF32;
    Contract whole = per_output;
    whole.bound_kind = BoundKind::whole_tensor;
    // wide_range data: M varies over many binades between outputs
    const RandomFill f = make_stress_fill(d, per_output, DataKind::wide_range, 1);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    double max_magnitude = 0.0;
    for (double m : want.magnitude) max_magnitude = std::max(max_magnitude, m);
    std::vector<double> got(want.dst.size());
    for (std::size_t i = 0; i < got.size(); ++i)  // +-2 u M_max, alternating: no bias; inside gamma_4 M_max
        got[i] = double(float(want.dst[i] + (i % 2 ? 2.0 : -2.0) * std::ldexp(max_magnitude, -24)));
    const Comparison p = compare_bound(per_output, want.dst, want.magnitude, want.terms, got);
    EXPECT_FALSE(p.passed());
    EXPECT_GT(p.max_bound_fraction, 1.0);
    const Comparison w = compare_bound(whole, want.dst, want.magnitude, want.terms, got);
    EXPECT_TRUE(w.passed()) << w.max_bound_fraction;
    EXPECT_TRUE(w.statistics.passed()) << w.statistics.failure;
    EXPECT_EQ(w.statistics.judged_by, "whole_tensor+statistics");
    // every output's bound is the largest output's: gamma_{n_max} M_max (+ its own u_out |y*| + eta)
    const auto bounds = error_bounds(whole, want.dst, want.magnitude, want.terms);
    for (std::size_t i = 0; i < bounds.size(); ++i)
        EXPECT_EQ(bounds[i], error_bound(per_output, want.dst[i], max_magnitude, 4));
}

}  // namespace

namespace {

// One plane's term counts of a forward convolution, the pattern every (n, oc) repeats.
std::vector<std::int64_t> first_plane(const ConvDescriptor& d, const std::vector<std::int64_t>& terms) {
    const std::size_t plane = terms.size() / static_cast<std::size_t>(d.batch * d.out_channels);
    return {terms.begin(), terms.begin() + static_cast<std::ptrdiff_t>(plane)};
}

}  // namespace

// TermCounts: one plane's counts, repeated for every (n, oc), judge exactly as the array of every output's counts
// (pads make the counts vary over the plane): the same bounds, fractions, worst output, histogram and statistics,
// per output and whole-tensor; counts that do not repeat a whole number of times over the outputs are refused.
TEST(TermCounts, OnePlanesCountsRepeatedJudgeAsEveryOutputsCounts) {
    const ConvDescriptor d = parse_descriptor("n=2,c=3,o=5,in=40x36,k=3x5,s=1x2,pb=2x1,pe=0x3,bias=1");
    const RandomFill f = make_stress_fill(d, kF32, DataKind::uniform, 3);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    const std::vector<std::int64_t> plane = first_plane(d, want.terms);
    ASSERT_LT(plane.size(), want.terms.size());
    ASSERT_NE(*std::min_element(plane.begin(), plane.end()), *std::max_element(plane.begin(), plane.end()));
    std::vector<double> got(want.dst.size()), off(want.dst.size());
    for (std::size_t i = 0; i < got.size(); ++i) {  // an f32 result; the same with some outputs far off
        got[i] = double(float(want.dst[i]));
        off[i] = i % 997 == 5 ? want.dst[i] + 1.0 : got[i];
    }
    Contract whole = kF32;
    whole.bound_kind = BoundKind::whole_tensor;
    for (const Contract& c : {kF32, whole}) {
        for (const auto* result : {&got, &off})
            expect_same_comparison(compare_bound(c, want.dst, want.magnitude, want.terms, *result),
                                   compare_bound(c, want.dst, want.magnitude, plane, *result), bound_name(c));
        EXPECT_EQ(error_bounds(c, want.dst, want.magnitude, want.terms), error_bounds(c, want.dst, want.magnitude, plane));
    }
    const std::vector<std::int64_t> short_by_one(plane.begin(), plane.end() - 1);
    EXPECT_THROW(compare_bound(kF32, want.dst, want.magnitude, short_by_one, got), std::invalid_argument);
}

namespace {

// compare_bound computes each output's bound as it reads it (and the statistics again, on their thread); the
// values must be error_bounds', which must be error_bound's one output at a time, whatever the contract and
// however the term count changes from one output to the next (a plane's pattern: the border's counts).
TEST(Statistics, TheBoundsComputedAsTheyAreReadAreErrorBoundsBitForBit) {
    Contract whole = kF32, tf32 = kF32, late_bias = kF32;
    whole.bound_kind = BoundKind::whole_tensor;
    tf32.input_significand_bits = 11;
    late_bias.bias_after_output_rounding = true;
    const Contract f16{DataType::f16, DataType::f16}, f64{DataType::f64, DataType::f64, true};
    // one plane's counts (5000 terms: a vacuous bound in f16), repeated; 7 x 10000 outputs: the statistics thread
    const std::vector<std::int64_t> plane{9, 6, 9, 4, 9, 9, 1, 5000};
    const std::size_t outputs = plane.size() * 10000;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> want(outputs), magnitude(outputs), got(outputs);
    std::vector<std::int64_t> per_output(outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
        want[i] = 8.0 * u(rng);
        magnitude[i] = std::fabs(want[i]) + 4.0 * std::fabs(u(rng));
        got[i] = want[i] + 1e-6 * u(rng) * magnitude[i];
        per_output[i] = plane[i % plane.size()] + (i % 3 == 0 ? 1 : 0);
    }
    for (const Contract& c : {kF32, whole, tf32, late_bias, f16, f64})
        for (const TermCounts terms : {TermCounts(plane), TermCounts(per_output)}) {
            const std::vector<double> bounds = error_bounds(c, want, magnitude, terms);
            const BoundScale scale = bound_scale(c, magnitude, terms);
            for (std::size_t i = 0; i < outputs; ++i) {
                const std::int64_t n = terms.counts[i % terms.counts.size()];
                ASSERT_EQ(bounds[i], error_bound(c, want[i], scale.magnitude(magnitude[i]), scale.terms(n))) << i;
            }
            const Comparison computed = compare_bound(c, want, magnitude, terms, got);
            const Comparison given = compare_bound_given(c, want, magnitude, terms, got, bounds);
            EXPECT_EQ(computed.bound_fraction_histogram, given.bound_fraction_histogram);
            EXPECT_EQ(computed.max_bound_fraction, given.max_bound_fraction);
            EXPECT_EQ(computed.worst_index, given.worst_index);
            EXPECT_EQ(computed.worst_bound, given.worst_bound);
            EXPECT_EQ(computed.mismatches, given.mismatches);
            const Statistics alone = judge_statistics(c, want, magnitude, terms, got, bounds, true);
            EXPECT_EQ(computed.statistics.outputs, alone.outputs);
            EXPECT_EQ(computed.statistics.vacuous_outputs, alone.vacuous_outputs);
            EXPECT_EQ(computed.statistics.sum, alone.sum);
            EXPECT_EQ(computed.statistics.sum_squares, alone.sum_squares);
            EXPECT_EQ(computed.statistics.sum_toward_zero, alone.sum_toward_zero);
            EXPECT_EQ(computed.statistics.vacuous_zero_sum_squares, alone.vacuous_zero_sum_squares);
            EXPECT_EQ(computed.statistics.judged_by, alone.judged_by);
            // and sigma term by term: the statistics' sums of z^2, z and z sign(y*) over the outputs, from
            // rounding_noise_scale, one output at a time
            double sum_squares = 0.0, sum = 0.0, sum_toward_zero = 0.0;
            for (std::size_t i = 0; i < outputs; ++i) {
                const std::int64_t n = scale.terms(terms.counts[i % terms.counts.size()]);
                const double z = (got[i] - want[i]) / rounding_noise_scale(c, want[i], scale.magnitude(magnitude[i]), n);
                sum_squares += z * z;
                sum += z;
                sum_toward_zero += z * (want[i] > 0 ? 1.0 : want[i] < 0 ? -1.0 : 0.0);
            }
            EXPECT_EQ(alone.sum_squares, sum_squares);
            EXPECT_EQ(alone.sum, sum);
            EXPECT_EQ(alone.sum_toward_zero, sum_toward_zero);
            EXPECT_GT(computed.statistics.outputs, 0);
            // an f32 result read where it lies: the numbers of the same values widened to double first
            std::vector<float> got32(outputs);
            std::vector<double> widened(outputs);
            for (std::size_t i = 0; i < outputs; ++i) widened[i] = got32[i] = float(got[i]);
            got32[5] = widened[5] = std::numeric_limits<float>::quiet_NaN();
            const Comparison in_place = compare_bound(c, want, magnitude, terms, std::span<const float>(got32));
            const Comparison copied = compare_bound(c, want, magnitude, terms, widened);
            EXPECT_EQ(in_place.bound_fraction_histogram, copied.bound_fraction_histogram);
            EXPECT_EQ(in_place.max_bound_fraction, copied.max_bound_fraction);
            EXPECT_EQ(in_place.max_abs, copied.max_abs);
            EXPECT_EQ(std::isnan(in_place.worst_got), std::isnan(copied.worst_got));
            if (!std::isnan(copied.worst_got)) {
                EXPECT_EQ(in_place.worst_got, copied.worst_got);
            }
            EXPECT_EQ(in_place.mismatches, copied.mismatches);
            EXPECT_EQ(in_place.first_mismatch, copied.first_mismatch);
            EXPECT_GE(in_place.mismatches, 1);  // the NaN
            EXPECT_EQ(in_place.statistics.sum_squares, copied.statistics.sum_squares);
            EXPECT_EQ(in_place.statistics.sum, copied.statistics.sum);
            EXPECT_EQ(in_place.statistics.outputs, copied.statistics.outputs);
        }
}

}  // namespace

// libtorch's bf16 accumulation (docs/backends.md T3) on smoke's c=16 3x3 layer: 145 terms, where gamma_145(2^-8) = 1.31
// made 72 of 128 outputs vacuous and the case unchecked; phi_n = 0.58 keeps a bound there, and zeros fail it.
TEST(Statistics, ABf16AccumulationOfHundredsOfTermsKeepsABoundThatRejectsZeros) {
    const Contract bf16_acc{DataType::bf16, DataType::bf16, false};
    const ConvDescriptor d = parse_descriptor("c=16,o=8,in=8x8,k=3x3,s=2x2,pb=1x1,bias=1,dt=bf16");
    const RandomFill f = make_random_fill(d, 415849882);
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    const Comparison right = compare_bound(bf16_acc, want.dst, want.magnitude, want.terms, want.dst);
    EXPECT_TRUE(right.passed());
    EXPECT_EQ(right.statistics.vacuous_outputs, 0);
    EXPECT_EQ(right.statistics.judged_by, "per_output");
    const Comparison zeros = compare_bound(bf16_acc, want.dst, want.magnitude, want.terms,
                                           std::vector<double>(want.dst.size(), 0.0));
    EXPECT_FALSE(zeros.passed());
    EXPECT_GT(zeros.mismatches, 0);
}
