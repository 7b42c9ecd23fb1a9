// The integer sum of a quantized convolution (quantized_convolution.hpp): padding holds the zero point (a
// hand case that a zero point applied to padding taps fails), per-channel zero points, the int32 overflow
// rule, and the sum against the float reference on the differences (exact in double for these integers).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
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
