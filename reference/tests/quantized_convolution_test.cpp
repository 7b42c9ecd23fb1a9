// The integer sum of a quantized convolution (quantized_convolution.hpp): padding holds the zero point (a
// hand case that a zero point applied to padding taps fails), per-channel zero points, the int32 overflow
// rule, and the sum against the float reference on the differences (exact in double for these integers).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::reference;

namespace {

IntegerSums sum(const ConvDescriptor& d, const std::vector<std::int32_t>& src, const std::vector<std::int32_t>& weights,
                const std::vector<std::int32_t>& bias, const std::vector<std::int32_t>& zx,
                const std::vector<std::int32_t>& zw) {
    return integer_convolution_sum(d, {src, weights, bias, zx, zw});
}

}  // namespace

// 1-D, three inputs, a 3-tap kernel of ones, one pad each side, src zero point 5: the padded taps read the
// zero point (difference 0). Reading the padding as the integer 0 would give (0 - 5) at each border: -2 and 0.
TEST(QuantizedConvolution, PaddingHoldsTheZeroPoint) {
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=3,k=3,pb=1,pe=1");
    const IntegerSums r = sum(d, {6, 7, 8}, {1, 1, 1}, {}, {5}, {0});
    EXPECT_EQ(r.acc, (std::vector<std::int64_t>{3, 6, 5}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{2, 3, 2}));
}

// Per output channel weight zero points and per input channel src zero points each subtract their own.
TEST(QuantizedConvolution, PerChannelZeroPointsEachSubtractTheirOwn) {
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=2,in=1,k=1,bias=1");
    // out[o] = bias[o] + sum_c (x[c] - zx[c]) (w[o][c] - zw[o])
    const IntegerSums r = sum(d, {10, 20}, {3, 4, 5, 6}, {100, -100}, {1, 2}, {1, 2});
    EXPECT_EQ(r.acc, (std::vector<std::int64_t>{100 + 9 * 2 + 18 * 3, -100 + 9 * 3 + 18 * 4}));
    EXPECT_EQ(r.positive[1], 9 * 3 + 18 * 4);
    EXPECT_EQ(r.negative[1], 100);
}

TEST(QuantizedConvolution, WrongLengthsAreNamed) {
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=3,in=4,k=3");
    const std::vector<std::int32_t> src(8), weights(18);
    try {
        sum(d, src, weights, {}, {0, 0, 0}, {0});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "src zero points: 3 values, must be one (per tensor) or 2 (per channel)");
    }
    EXPECT_THROW(sum(d, src, std::vector<std::int32_t>(17), {}, {0}, {0}), std::invalid_argument);
    EXPECT_THROW(sum(d, src, weights, {}, {0}, {0, 0}), std::invalid_argument);
}

// Overflow in some order of the additions: the positive terms alone past 2^31 - 1, or the negative ones past
// 2^31; a sum that only passes in magnitude when both signs are counted does not overflow in any order.
TEST(QuantizedConvolution, AnInt32AccumulatorOverflowsExactlyWhenOneSignPassesItsLimit) {
    const ConvDescriptor d = parse_descriptor("conv:c=1,o=1,in=1,k=1,bias=1");
    constexpr std::int32_t top = std::numeric_limits<std::int32_t>::max();
    std::int64_t first = -1;
    EXPECT_TRUE(fits_int32_accumulator(sum(d, {1}, {1}, {top - 1}, {0}, {0})));  // 2^31 - 1: fits
    const IntegerSums over = sum(d, {1}, {1}, {top}, {0}, {0});                   // 2^31: passes
    EXPECT_FALSE(fits_int32_accumulator(over, &first));
    EXPECT_EQ(first, 0);
    // 2^31 - 1 + 2^30 in magnitude, yet every order stays inside int32: each sign alone fits
    EXPECT_TRUE(fits_int32_accumulator(sum(d, {-(1 << 15)}, {1 << 15}, {top}, {0}, {0})));
    EXPECT_TRUE(fits_int32_accumulator(sum(d, {-(1 << 15)}, {1 << 16}, {0}, {0}, {0})));   // -2^31 exactly
    EXPECT_FALSE(fits_int32_accumulator(sum(d, {-(1 << 15)}, {1 << 16}, {-1}, {0}, {0})));  // one below
}

// The integer sum is the reference's sum of the differences (every value below 2^53: exact in double), and its
// two signs add up to the reference's magnitude.
RC_GTEST_PROP(QuantizedConvolution, IsTheSummationOfTheDifferences, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor();
    const bool per_channel = *rc::gen::arbitrary<bool>();
    const auto values = [](std::int64_t n, int lo, int hi) {
        return *rc::gen::container<std::vector<std::int32_t>>(static_cast<std::size_t>(n), rc::gen::inRange(lo, hi + 1));
    };
    const auto src = values(d.src_elements(), 0, 255), weights = values(d.weights_elements(), -128, 127);
    const auto bias = d.has_bias ? values(d.out_channels, -5000, 5000) : std::vector<std::int32_t>{};
    const auto zx = values(per_channel ? d.in_channels : 1, 0, 255), zw = values(per_channel ? d.out_channels : 1, -128, 127);
    const IntegerSums q = sum(d, src, weights, bias, zx, zw);

    std::int64_t pixels = 1;
    for (int a = 0; a < d.rank; ++a) pixels *= d.input_size[a];
    std::vector<double> x(src.size()), w(weights.size()), b(bias.begin(), bias.end());
    for (std::size_t i = 0; i < src.size(); ++i)
        x[i] = src[i] - zx[per_channel ? (i / pixels) % d.in_channels : 0];
    const std::size_t per_output = weights.size() / static_cast<std::size_t>(d.out_channels);
    for (std::size_t i = 0; i < weights.size(); ++i) w[i] = weights[i] - zw[per_channel ? i / per_output : 0];
    const ConvResult f = convolution_summation(d, x, w, b);
    for (std::size_t o = 0; o < q.acc.size(); ++o) {
        RC_ASSERT(static_cast<double>(q.acc[o]) == f.dst[o]);
        RC_ASSERT(static_cast<double>(q.positive[o] + q.negative[o]) == f.magnitude[o]);
        RC_ASSERT(q.terms[o] == f.terms[o]);
    }
}

// An accumulator of s16 pairs (s16_pairs_sum): channels 0 and 1 of a tap, 255 x 127 each, sum 64,770 and saturate
// at 32,767; channel 2 stands alone; the second tap is in the padding and adds nothing; the src zero point's share
// (-zx * w of the in-bounds terms) and the bias are exact. Where no pair saturates, the sum is the definition's.
TEST(QuantizedConvolution, S16PairsSaturateEachPairOfChannels) {
    const ConvDescriptor d = parse_descriptor("conv:c=3,o=1,in=1,k=2,pe=1,bias=1");
    // weights OIX [1][3][2]: tap 0 of channels 0, 1, 2 = 127, 127, 100; tap 1 (padding) = 1
    const std::vector<std::int32_t> src{255, 255, 200}, weights{127, 1, 127, 1, 100, 1}, bias{7};
    const std::vector<std::int64_t> pairs = s16_pairs_sum(d, {src, weights, bias, std::vector<std::int32_t>{3}, std::vector<std::int32_t>{0}});
    EXPECT_EQ(pairs, (std::vector<std::int64_t>{7 + 32767 + 200 * 100 - 3 * (127 + 127 + 100)}));
    EXPECT_EQ(sum(d, src, weights, bias, {3}, {0}).acc, (std::vector<std::int64_t>{7 + (252 * 127) * 2 + 197 * 100}));
    const std::vector<std::int32_t> small{20, 30, 40};
    EXPECT_EQ(s16_pairs_sum(d, {small, weights, bias, std::vector<std::int32_t>{3}, std::vector<std::int32_t>{0}}),
              sum(d, small, weights, bias, {3}, {0}).acc);
    EXPECT_THROW(s16_pairs_sum(d, {src, weights, bias, std::vector<std::int32_t>{3}, std::vector<std::int32_t>{1}}),
                 std::invalid_argument);
}

// On random geometry (groups, strides, pads, dilations) with u8 values below 128 and weights within [-128, 127],
// where no pair can reach s16's limits (2 x 127 x 128 < 32,767), the pairs' sum is the definition's.
RC_GTEST_PROP(QuantizedConvolution, S16PairsEqualTheSumWhereNoPairSaturates, ()) {
    ConvDescriptor d = *testgen::valid_descriptor();
    d.src_strides.clear(), d.weights_strides.clear(), d.dst_strides.clear();
    d.pass = Pass::forward, d.data_format = DataFormat::ncx, d.filter_format = FilterFormat::oix;
    RC_PRE(d.src_elements() * d.out_channels < 200000);
    std::vector<std::int32_t> src(static_cast<std::size_t>(d.src_elements())), weights(static_cast<std::size_t>(d.weights_elements())), bias;
    for (auto& v : src) v = *rc::gen::inRange(0, 128);
    for (auto& v : weights) v = *rc::gen::inRange(-128, 128);
    for (std::int64_t o = 0; d.has_bias && o < d.out_channels; ++o) bias.push_back(*rc::gen::inRange(-1000, 1000));
    const std::vector<std::int32_t> zx{*rc::gen::inRange(0, 256)}, zw{0};
    RC_ASSERT(s16_pairs_sum(d, {src, weights, bias, zx, zw}) == sum(d, src, weights, bias, zx, zw).acc);
}

// The f32 sum of an ONNX QDQ model (qdq_f32_sum): a hand case, exact in f32, is the definition's; on 2304 products
// per output with u8 data about its zero point (the products cancel), it stays within gamma_{n+3}(u) (ssc wsc A + |b|)
// of the exact value on every output (the bound the runner judges acc=f32 by: quantized/general.cpp) and leaves
// gamma_1(u) (ssc wsc A + |b|) on some: an f32 sum that a bound without the n-term would fail.
TEST(QuantizedConvolution, QdqF32SumStaysWithinItsBoundAndNeedsIt) {
    const ConvDescriptor hand = parse_descriptor("conv:c=2,o=1,in=2,k=1,bias=1");
    const std::vector<float> one = qdq_f32_sum(hand, {std::vector<std::int32_t>{5, 6, 7, 8}, std::vector<std::int32_t>{2, -1},
                                                      std::vector<std::int32_t>{}, std::vector<std::int32_t>{4},
                                                      std::vector<std::int32_t>{0}},
                                               0.5f, std::vector<float>{0.25f}, std::vector<float>{3.0f});
    // (5 - 4) * 0.5 * 2 * 0.25 + (7 - 4) * 0.5 * -1 * 0.25 + 3, and (6 - 4) ... + (8 - 4) ... + 3
    EXPECT_EQ(one, (std::vector<float>{0.25f - 0.375f + 3.0f, 0.5f - 0.5f + 3.0f}));

    const ConvDescriptor d = parse_descriptor("conv:c=256,o=4,in=8x8,k=3x3,pb=1x1,pe=1x1,bias=1");
    std::uint64_t state = 1;
    const auto next = [&state](int lo, int hi) {  // splitmix64
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull, z = (z ^ (z >> 27)) * 0x94D049BB133111EBull, z ^= z >> 31;
        return lo + static_cast<int>(z % static_cast<std::uint64_t>(hi - lo + 1));
    };
    std::vector<std::int32_t> src(static_cast<std::size_t>(d.src_elements())), weights(static_cast<std::size_t>(d.weights_elements()));
    for (auto& v : src) v = next(0, 255);
    for (auto& v : weights) v = next(-128, 127);
    const std::vector<float> bias{0.5f, -1.25f, 3.0f, 0.0f};
    const float ssc = 0.02f, wsc = 0.004f;
    const std::vector<std::int32_t> zx{128}, zw{0}, zeros(4, 0);  // the f32 bias is not in the integer sum
    const std::vector<float> f32 = qdq_f32_sum(d, {src, weights, zeros, zx, zw}, ssc, std::vector<float>{wsc}, bias);
    const IntegerSums exact = sum(d, src, weights, zeros, zx, zw);
    const double u = std::ldexp(1.0, -24), n = 256 * 9;
    const auto gamma = [u](double k) { return k * u / (1.0 - k * u); };
    std::size_t beyond_gamma_1 = 0;
    for (std::size_t i = 0; i < f32.size(); ++i) {
        const std::int64_t oc = (static_cast<std::int64_t>(i) / 64) % 4;
        const double b = bias[static_cast<std::size_t>(oc)];
        const double value = double(ssc) * double(wsc) * double(exact.acc[i]) + b;
        const double magnitude = double(ssc) * double(wsc) * double(exact.positive[i] + exact.negative[i]) + std::fabs(b);
        const double error = std::fabs(double(f32[i]) - value);
        EXPECT_LE(error, gamma(n + 3) * magnitude) << "output " << i;
        beyond_gamma_1 += error > gamma(1) * magnitude;
    }
    EXPECT_GT(beyond_gamma_1, 0u) << "the f32 sum never left gamma_1(u) of the exact value: the test shows nothing";
    std::printf("qdq_f32_sum: %zu of %zu outputs beyond gamma_1(u) (ssc wsc A + |b|)\n", beyond_gamma_1, f32.size());
}
