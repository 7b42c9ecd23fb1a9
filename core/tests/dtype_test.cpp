// Exhaustive checks of the f16 / bf16 conversions over all 65,536 bit patterns of each, plus the
// rounding boundaries of narrowing (every midpoint between neighbours, and its two f32 neighbours).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "convcheck/core/dtype.hpp"

using namespace convcheck;

namespace {

bool is_nan16(std::uint16_t b, int fraction_bits) {
    const unsigned exp_mask = fraction_bits == 10 ? 0x7c00u : 0x7f80u;
    return (b & exp_mask) == exp_mask && (b & ((1u << fraction_bits) - 1)) != 0;
}

// Independent decoding from the IEEE definition (not the code under test).
double decode_f16_by_definition(std::uint16_t b) {
    const int sign = b >> 15, e = (b >> 10) & 0x1f, f = b & 0x3ff;
    double v;
    if (e == 0) v = std::ldexp(f, -24);                              // subnormal: f * 2^-24
    else if (e == 31) v = f ? NAN : INFINITY;
    else v = std::ldexp(1024 + f, e - 25);                           // (1 + f/1024) * 2^(e-15)
    return sign ? -v : v;
}

}  // namespace

TEST(Dtype, F16WideningMatchesTheDefinitionForAllBitPatterns) {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        const float got = f16_to_f32(bits);
        const double want = decode_f16_by_definition(bits);
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << "bits 0x" << std::hex << b;
            ASSERT_EQ(std::signbit(got), bool(b >> 15)) << "bits 0x" << std::hex << b;
        } else {
            ASSERT_EQ(double(got), want) << "bits 0x" << std::hex << b;
            ASSERT_EQ(std::signbit(got), std::signbit(want)) << "negative zero, bits 0x" << std::hex << b;
        }
    }
}

// g++ 12 has _Float16 on x86-64; clang-14 (the sanitizer build's compiler) does not, and skips this check.
TEST(Dtype, F16AgreesWithTheCompilersFloat16ForAllBitPatterns) {
#ifndef __FLT16_MAX__
    GTEST_SKIP() << "this compiler has no _Float16 on this target";
#else
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        const _Float16 h = std::bit_cast<_Float16>(bits);
        const float want = static_cast<float>(h);
        const float got = f16_to_f32(bits);
        if (std::isnan(want)) ASSERT_TRUE(std::isnan(got));
        else ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want)) << std::hex << b;
    }
#endif
}

TEST(Dtype, Bf16WideningIsTheUpperHalfOfF32ForAllBitPatterns) {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const float got = bf16_to_f32(static_cast<std::uint16_t>(b));
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got), b << 16) << std::hex << b;
    }
}

TEST(Dtype, NarrowingRoundTripsEveryValueOfBothTypes) {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        if (is_nan16(bits, 10)) {
            EXPECT_TRUE(is_nan16(f32_to_f16(f16_to_f32(bits)), 10)) << std::hex << b;
        } else {
            ASSERT_EQ(f32_to_f16(f16_to_f32(bits)), bits) << std::hex << b;
            ASSERT_EQ(f64_to_f16(f16_to_f32(bits)), bits) << std::hex << b;
        }
        if (is_nan16(bits, 7)) {
            EXPECT_TRUE(is_nan16(f32_to_bf16(bf16_to_f32(bits)), 7)) << std::hex << b;
        } else {
            ASSERT_EQ(f32_to_bf16(bf16_to_f32(bits)), bits) << std::hex << b;
            ASSERT_EQ(f64_to_bf16(bf16_to_f32(bits)), bits) << std::hex << b;
        }
    }
}

// For every pair of adjacent finite values a < b of the 16-bit type: the midpoint rounds to the
// one with an even last bit, and the f32 values just below / above it round down / up.
template <typename Widen, typename Narrow>
void check_midpoints(Widen widen, Narrow narrow, std::uint16_t largest_finite) {
    for (std::uint16_t sign : {std::uint16_t(0), std::uint16_t(0x8000)}) {
        for (std::uint32_t m = 0; m < largest_finite; ++m) {
            const auto lo = static_cast<std::uint16_t>(m | sign), hi = static_cast<std::uint16_t>((m + 1) | sign);
            const float a = widen(lo), b = widen(hi);
            const float mid = static_cast<float>((double(a) + double(b)) / 2);  // exact in f32 for both types
            ASSERT_EQ(double(mid), (double(a) + double(b)) / 2);
            const std::uint16_t even = (lo & 1) ? hi : lo;
            ASSERT_EQ(narrow(mid), even) << "tie between 0x" << std::hex << lo << " and 0x" << hi;
            ASSERT_EQ(narrow(std::nextafter(mid, 0.0f)), lo) << "below the tie, 0x" << std::hex << lo;
            ASSERT_EQ(narrow(std::nextafter(mid, mid * 2)), hi) << "above the tie, 0x" << std::hex << lo;
        }
    }
}

TEST(Dtype, F16NarrowingRoundsEveryTieToEven) { check_midpoints(f16_to_f32, f32_to_f16, 0x7bff); }
TEST(Dtype, Bf16NarrowingRoundsEveryTieToEven) { check_midpoints(bf16_to_f32, f32_to_bf16, 0x7f7f); }

TEST(Dtype, OverflowGoesToInfinityExactlyAtTheIeeeThreshold) {
    // f16: max 65504; values >= 65520 (the midpoint to the next binade step) round to inf.
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65519.99f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);
    EXPECT_EQ(f32_to_f16(-65520.0f), 0xfc00);
    EXPECT_EQ(f32_to_f16(INFINITY), 0x7c00);
    // bf16: max 0x7f7f = 3.3895314e38; the f32 max rounds to inf.
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
    EXPECT_EQ(f32_to_bf16(-INFINITY), 0xff80);
}

TEST(Dtype, SubnormalsAndNegativeZero) {
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);       // smallest f16 subnormal
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);       // half of it: tie to even (0)
    EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);
    EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
    EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
    EXPECT_EQ(f32_to_bf16(std::ldexp(1.0f, -133)), 0x0001);     // smallest bf16 subnormal
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Dtype, NanStaysNanWithItsSign) {
    EXPECT_TRUE(is_nan16(f32_to_f16(NAN), 10));
    EXPECT_TRUE(is_nan16(f32_to_bf16(NAN), 7));
    EXPECT_EQ(f32_to_f16(-NAN) >> 15, 1);
    EXPECT_EQ(f32_to_bf16(-NAN) >> 15, 1);
    // a signalling NaN whose payload sits only in the low bits must not become infinity
    const float snan = std::bit_cast<float>(0x7f800001u);
    EXPECT_TRUE(is_nan16(f32_to_f16(snan), 10));
    EXPECT_TRUE(is_nan16(f32_to_bf16(snan), 7));
}

TEST(Dtype, DoubleNarrowingRoundsOnceNotTwice) {
    // 1 + 2^-11 + 2^-40 is just above the f16 tie between 1 and 1+2^-10. Through float it would
    // first become exactly the tie (1 + 2^-11) and then round to even (1.0): double rounding.
    const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    EXPECT_EQ(f32_to_f16(static_cast<float>(x)), 0x3c00);   // the double-rounded answer
    EXPECT_EQ(f64_to_f16(x), 0x3c01);                        // the correct one
    EXPECT_EQ(round_to(DataType::f16, x), 1.0 + std::ldexp(1.0, -10));
}
