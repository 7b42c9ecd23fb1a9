// The OCP 8-bit floating-point formats (core/float8.hpp): every one of the 256 codes of each format decoded and
// encoded back, checked against the spec's table written out independently here (bias, subnormals, the NaN and
// infinity codes, +-0, the largest normal); rounding to nearest even at every midpoint between neighbours; the
// overflow rules (non-saturating: E4M3 NaN, E5M2 infinity; saturating: the largest normal); and the descriptor's
// dt=f8_e4m3 / f8_e5m2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/dtype.hpp"
#include "convcheck/core/float8.hpp"

using namespace convcheck;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The spec's E4M3: S.EEEE.MMM, bias 7; E = 0: subnormal 2^-6 * 0.MMM; S.1111.111 NaN; no infinities.
double spec_e4m3(unsigned code) {
    const double s = (code & 0x80) ? -1.0 : 1.0;
    const unsigned e = (code >> 3) & 0xf, m = code & 0x7;
    if (e == 15 && m == 7) return kNaN;
    if (e == 0) return s * std::pow(2.0, -6) * (m / 8.0);
    return s * std::pow(2.0, int(e) - 7) * (1.0 + m / 8.0);
}

// The spec's E5M2: S.EEEEE.MM, bias 15; E = 0: subnormal 2^-14 * 0.MM; S.11111.00 infinity, S.11111.{01,10,11} NaN.
double spec_e5m2(unsigned code) {
    const double s = (code & 0x80) ? -1.0 : 1.0;
    const unsigned e = (code >> 2) & 0x1f, m = code & 0x3;
    if (e == 31) return m == 0 ? s * kInf : kNaN;
    if (e == 0) return s * std::pow(2.0, -14) * (m / 4.0);
    return s * std::pow(2.0, int(e) - 15) * (1.0 + m / 4.0);
}

struct Format {
    double (*spec)(unsigned);
    double (*decode)(std::uint8_t);
    std::uint8_t (*encode)(double, Fp8Overflow);
    double max_normal, min_subnormal;
    std::uint8_t max_code;  // the positive largest normal
};
const Format kE4M3{spec_e4m3, f8_e4m3_to_f64, f64_to_f8_e4m3, 448.0, std::ldexp(1.0, -9), 0x7e};
const Format kE5M2{spec_e5m2, f8_e5m2_to_f64, f64_to_f8_e5m2, 57344.0, std::ldexp(1.0, -16), 0x7b};

bool is_nan_code(const Format& f, unsigned code) { return std::isnan(f.spec(code)); }

// The positive finite codes in increasing value (the codes of one sign order as their values).
std::vector<unsigned> positive_finite(const Format& f) {
    std::vector<unsigned> codes;
    for (unsigned c = 0; c < 0x80; ++c)
        if (std::isfinite(f.spec(c))) codes.push_back(c);
    return codes;
}

void every_code_both_ways(const Format& f) {
    for (unsigned code = 0; code < 256; ++code) {
        const double want = f.spec(code), got = f.decode(std::uint8_t(code));
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << "code " << code;
            // a NaN encodes to a NaN code with its sign
            const std::uint8_t back = f.encode(std::copysign(kNaN, (code & 0x80) ? -1.0 : 1.0), Fp8Overflow::non_saturating);
            EXPECT_TRUE(is_nan_code(f, back)) << "code " << code;
            EXPECT_EQ(back & 0x80, code & 0x80) << "code " << code;
            continue;
        }
        EXPECT_EQ(got, want) << "code " << code;
        EXPECT_EQ(std::signbit(got), bool(code & 0x80)) << "code " << code << " (the sign of +-0 too)";
        for (Fp8Overflow o : {Fp8Overflow::non_saturating, Fp8Overflow::saturating}) {
            if (std::isfinite(want)) {
                EXPECT_EQ(f.encode(want, o), code) << "value " << want;
            }
        }
        if (std::isinf(want)) {  // E5M2's infinities: non-saturating keeps them (saturating: OverflowNonSaturating...)
            EXPECT_EQ(f.encode(want, Fp8Overflow::non_saturating), code) << "code " << code;
        }
    }
}

void midpoints_round_to_even(const Format& f) {
    const std::vector<unsigned> codes = positive_finite(f);
    for (std::size_t i = 0; i + 1 < codes.size(); ++i) {
        const double lo = f.spec(codes[i]), hi = f.spec(codes[i + 1]);
        const double mid = (lo + hi) / 2;  // exact in a double
        const unsigned even = (codes[i] & 1u) == 0 ? codes[i] : codes[i + 1];
        for (double s : {1.0, -1.0}) {
            const unsigned sign = s < 0 ? 0x80u : 0u;
            EXPECT_EQ(f.encode(s * mid, Fp8Overflow::non_saturating), even | sign) << "tie " << s * mid;
            const double nudge = (hi - lo) / 1024;
            EXPECT_EQ(f.encode(s * (mid - nudge), Fp8Overflow::non_saturating), codes[i] | sign) << s * (mid - nudge);
            EXPECT_EQ(f.encode(s * (mid + nudge), Fp8Overflow::non_saturating), codes[i + 1] | sign) << s * (mid + nudge);
        }
    }
    // below the smallest subnormal: half of it is a tie with 0 (even), a little more rounds up to it
    EXPECT_EQ(f.encode(f.min_subnormal / 2, Fp8Overflow::non_saturating), 0x00);
    EXPECT_EQ(f.encode(-f.min_subnormal / 2, Fp8Overflow::non_saturating), 0x80);
    EXPECT_EQ(f.encode(f.min_subnormal * 0.5000001, Fp8Overflow::non_saturating), 0x01);
}

}  // namespace

TEST(Float8, E4M3EveryCodeBothWays) { every_code_both_ways(kE4M3); }
TEST(Float8, E5M2EveryCodeBothWays) { every_code_both_ways(kE5M2); }
TEST(Float8, E4M3RoundsToNearestEven) { midpoints_round_to_even(kE4M3); }
TEST(Float8, E5M2RoundsToNearestEven) { midpoints_round_to_even(kE5M2); }

TEST(Float8, TheSpecsLandmarks) {
    EXPECT_EQ(f8_e4m3_to_f64(0x7e), 448.0);  // S.1111.110
    EXPECT_TRUE(std::isnan(f8_e4m3_to_f64(0x7f)));
    EXPECT_EQ(f8_e4m3_to_f64(0x08), std::ldexp(1.0, -6));  // min normal S.0001.000
    EXPECT_EQ(f8_e4m3_to_f64(0x01), std::ldexp(1.0, -9));  // min subnormal
    EXPECT_EQ(f8_e5m2_to_f64(0x7b), 57344.0);              // S.11110.11
    EXPECT_EQ(f8_e5m2_to_f64(0x7c), kInf);
    EXPECT_EQ(f8_e5m2_to_f64(0xfc), -kInf);
    EXPECT_EQ(f8_e5m2_to_f64(0x04), std::ldexp(1.0, -14));
    EXPECT_EQ(f8_e5m2_to_f64(0x01), std::ldexp(1.0, -16));
    int e4m3_nans = 0, e5m2_nans = 0;
    for (unsigned c = 0; c < 256; ++c) e4m3_nans += std::isnan(f8_e4m3_to_f64(std::uint8_t(c))), e5m2_nans += std::isnan(f8_e5m2_to_f64(std::uint8_t(c)));
    EXPECT_EQ(e4m3_nans, 2);  // S.1111.111
    EXPECT_EQ(e5m2_nans, 6);  // S.11111.{01,10,11}
}

// Overflow: rounded as if the exponent were unbounded, then past the largest normal. E4M3: 464 is the tie between
// 448 and 480 (which would be S.1111.111) and goes to 448 (even); above it the non-saturating NaN. E5M2: 61440 ties
// 57344 (S.11110.11, odd) and 65536 (1.00 * 2^16, even), goes to 65536 and so overflows: infinity from 61440 on
// (oneDNN: "values in [57344;61184] round to 57344 ... So we overflow above 61184", the largest bf16 below 61440). Saturating: the largest normal. Infinite inputs overflow too.
TEST(Float8, OverflowNonSaturatingAndSaturating) {
    const auto ns = Fp8Overflow::non_saturating, sat = Fp8Overflow::saturating;
    EXPECT_EQ(f64_to_f8_e4m3(464.0, ns), 0x7e);
    EXPECT_EQ(f64_to_f8_e4m3(-464.0, ns), 0xfe);
    EXPECT_EQ(f64_to_f8_e4m3(464.0001, ns), 0x7f);
    EXPECT_EQ(f64_to_f8_e4m3(-1e6, ns), 0xff);
    EXPECT_EQ(f64_to_f8_e4m3(kInf, ns), 0x7f);
    EXPECT_EQ(f64_to_f8_e4m3(-kInf, ns), 0xff);
    EXPECT_EQ(f64_to_f8_e4m3(464.0001, sat), 0x7e);
    EXPECT_EQ(f64_to_f8_e4m3(-kInf, sat), 0xfe);
    EXPECT_EQ(f64_to_f8_e5m2(61439.99, ns), 0x7b);
    EXPECT_EQ(f64_to_f8_e5m2(61440.0, ns), 0x7c);
    EXPECT_EQ(f64_to_f8_e5m2(-61440.0, ns), 0xfc);
    EXPECT_EQ(f64_to_f8_e5m2(-1e9, ns), 0xfc);
    EXPECT_EQ(f64_to_f8_e5m2(kInf, ns), 0x7c);
    EXPECT_EQ(f64_to_f8_e5m2(61440.0, sat), 0x7b);
    EXPECT_EQ(f64_to_f8_e5m2(-kInf, sat), 0xfb);
    // NaN stays NaN in both modes
    EXPECT_EQ(f64_to_f8_e4m3(kNaN, sat) & 0x7f, 0x7f);
    EXPECT_TRUE(std::isnan(f8_e5m2_to_f64(f64_to_f8_e5m2(kNaN, sat))));
}

// The saturating conversion (OCP's saturating mode) around every code of both formats: a code's own value, the next
// double up, the midpoint to the next code up (for the largest normal: to where the next code would be, 480 and 65536,
// the overflow edge) and the next double past it, and three quarters of the way, both signs: each converts as the
// non-saturating conversion does wherever that gives a finite code, and where that overflows the saturating one gives
// the largest normal with the sign kept. An infinity converts to the largest normal, a NaN stays a NaN with its sign.
void saturating_around_every_code(const Format& f, int overflow_points) {
    const auto ns = Fp8Overflow::non_saturating, sat = Fp8Overflow::saturating;
    const std::vector<unsigned> codes = positive_finite(f);
    int overflows = 0;
    for (std::size_t i = 0; i < codes.size(); ++i) {
        const double a = f.spec(codes[i]);
        const double spacing = i + 1 < codes.size() ? f.spec(codes[i + 1]) - a : a - f.spec(codes[i - 1]);
        const double mid = a + spacing / 2;
        for (double m : {a, std::nextafter(a, kInf), mid, std::nextafter(mid, kInf), a + spacing * 0.75})
            for (double s : {1.0, -1.0}) {
                const std::uint8_t sign = s < 0 ? 0x80 : 0x00;
                const std::uint8_t plain = f.encode(s * m, ns), got = f.encode(s * m, sat);
                if (std::isfinite(f.spec(plain))) {
                    EXPECT_EQ(got, plain) << "value " << s * m;
                } else {
                    EXPECT_EQ(got, f.max_code | sign) << "value " << s * m << " (non-saturating: code " << int(plain) << ")";
                    ++overflows;
                }
            }
    }
    EXPECT_EQ(overflows, overflow_points);
    for (unsigned code = 0; code < 256; ++code) {
        const double v = f.spec(code);
        const std::uint8_t sign = (code & 0x80) ? 0x80 : 0x00;
        if (std::isnan(v)) {
            const std::uint8_t got = f.encode(std::copysign(kNaN, sign ? -1.0 : 1.0), sat);
            EXPECT_TRUE(is_nan_code(f, got)) << "code " << code;
            EXPECT_EQ(got & 0x80, sign) << "code " << code;
        } else if (std::isinf(v)) {  // E5M2's infinities
            EXPECT_EQ(f.encode(v, sat), f.max_code | sign) << "code " << code;
        }
    }
    for (double s : {1.0, -1.0}) {
        const std::uint8_t sign = s < 0 ? 0x80 : 0x00;
        EXPECT_EQ(f.encode(s * std::numeric_limits<double>::max(), sat), f.max_code | sign);
        EXPECT_EQ(f.encode(s * kInf, sat), f.max_code | sign);
    }
}

// Past the largest normal's tie, the next double and three quarters of the way, both signs: 4 points; E5M2's tie
// itself overflows too (61440 goes to 2^16, the even one), E4M3's does not (464 goes to 448): 6.
TEST(Float8, E4M3SaturatingAroundEveryCode) { saturating_around_every_code(kE4M3, 4); }
TEST(Float8, E5M2SaturatingAroundEveryCode) { saturating_around_every_code(kE5M2, 6); }

TEST(Float8, TheDtypeFunctions) {
    for (DataType t : {DataType::f8_e4m3, DataType::f8_e5m2}) {
        EXPECT_TRUE(is_fp8(t));
        EXPECT_EQ(size_of(t), 1);
        DataType back;
        ASSERT_TRUE(parse_data_type(to_string(t), &back));
        EXPECT_EQ(back, t);
    }
    EXPECT_FALSE(is_fp8(DataType::bf16));
    EXPECT_EQ(unit_roundoff(DataType::f8_e4m3), 1.0 / 16);
    EXPECT_EQ(unit_roundoff(DataType::f8_e5m2), 1.0 / 8);
    EXPECT_EQ(round_to(DataType::f8_e4m3, 17.0), 16.0);  // tie between 16 and 18: even
    EXPECT_EQ(round_to(DataType::f8_e5m2, 9.0), 8.0);    // tie between 8 and 10: even
    EXPECT_TRUE(std::isnan(round_to(DataType::f8_e4m3, 500.0)));
    EXPECT_EQ(round_to(DataType::f8_e5m2, 1e6), kInf);
    std::uint8_t buffer[2] = {0, 0};
    store_from_double(buffer, DataType::f8_e4m3, 1, -0.5);
    EXPECT_EQ(buffer[1], 0xb0);  // S=1, E=6 (2^-1), M=0
    EXPECT_EQ(load_as_double(buffer, DataType::f8_e4m3, 1), -0.5);
    EXPECT_EQ(buffer[0], 0);
}

TEST(Float8, TheDescriptorNamesThem) {
    const ConvDescriptor d = parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f8_e4m3:f8_e4m3:f32,bdt=f32");
    EXPECT_EQ(d.src_dtype(), DataType::f8_e4m3);
    EXPECT_EQ(d.weights_dtype(), DataType::f8_e4m3);
    EXPECT_EQ(d.dst_dtype(), DataType::f32);
    EXPECT_TRUE(d.has_fp8());
    EXPECT_EQ(dtypes_text(d), "dt=f8_e4m3:f8_e4m3:f32,bdt=f32");
    EXPECT_EQ(parse_descriptor(to_string(d)), d);
    const ConvDescriptor one = parse_descriptor("c=2,o=2,in=3,k=1,dt=f8_e5m2");
    EXPECT_EQ(dtypes_text(one), "dt=f8_e5m2");
    EXPECT_FALSE(one.mixed());
    EXPECT_TRUE(one.has_fp8());
    EXPECT_FALSE(parse_descriptor("c=2,o=2,in=3,k=1,dt=bf16").has_fp8());
    EXPECT_THROW(parse_descriptor("c=2,o=2,in=3,k=1,dt=f8_e3m4"), ConvError);
}
