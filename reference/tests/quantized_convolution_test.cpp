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
