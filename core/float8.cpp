#include "convcheck/core/float8.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace convcheck {

namespace {

// One OFP8 format: `mantissa` fraction bits, exponent `bias`, normal exponents from `emin`; `max_normal` its
// largest finite value; whether the all-ones exponent holds infinities and NaNs (E5M2, IEEE-like) or normal
// values and one NaN (E4M3).
struct Ofp8 {
    int mantissa;
    int exponent_bits;
    int bias;
    int emin;
    double max_normal;
    bool ieee_specials;
    std::uint8_t nan;  // the NaN this code writes (sign bit clear)
    std::uint8_t inf;  // E5M2's infinity (sign bit clear); unused for E4M3
};
// E4M3: bias 7, emin 1 - 7 = -6, max 1.75 * 2^8 = 448, NaN S.1111.111, no infinities.
constexpr Ofp8 kE4M3{3, 4, 7, -6, 448.0, false, 0x7f, 0x00};
// E5M2: bias 15, emin 1 - 15 = -14, max 1.75 * 2^15 = 57344, infinity S.11111.00, NaN S.11111.{01,10,11}.
constexpr Ofp8 kE5M2{2, 5, 15, -14, 57344.0, true, 0x7e, 0x7c};

double decode(std::uint8_t bits, const Ofp8& f) {
    const bool negative = bits & 0x80u;
    const unsigned exp_all_ones = (1u << f.exponent_bits) - 1;
    const unsigned biased = (bits >> f.mantissa) & exp_all_ones;
    const unsigned fraction = bits & ((1u << f.mantissa) - 1);
    double v;
    if (f.ieee_specials && biased == exp_all_ones)
        v = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (!f.ieee_specials && (bits & 0x7fu) == f.nan)
        v = std::numeric_limits<double>::quiet_NaN();
    else if (biased == 0)  // subnormal: 0.fraction * 2^emin
        v = std::ldexp(double(fraction), f.emin - f.mantissa);
    else  // normal: 1.fraction * 2^(biased - bias)
        v = std::ldexp(double(fraction + (1u << f.mantissa)), int(biased) - f.bias - f.mantissa);
    return negative ? -v : v;
}

std::uint8_t encode(double value, const Ofp8& f, Fp8Overflow overflow) {
    const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
    if (std::isnan(value)) return sign | f.nan;
    const double a = std::fabs(value);
    const std::uint8_t max_code = f.ieee_specials ? std::uint8_t(f.inf - 1) : std::uint8_t(f.nan - 1);
    auto overflowed = [&]() -> std::uint8_t {
        if (overflow == Fp8Overflow::saturating) return sign | max_code;
        return sign | (f.ieee_specials ? f.inf : f.nan);
    };
    if (std::isinf(a)) return overflowed();
    if (a == 0.0) return sign;
    // Round to nearest even at the quantum of a's binade (the subnormal quantum below emin), with the exponent
    // range unbounded above: the scaled value is exact in a double, nearbyint rounds ties to even.
    int e;
    std::frexp(a, &e);  // a = m * 2^e, 0.5 <= m < 1: the leading bit weighs 2^(e - 1)
    const int lead = std::max(e - 1, f.emin);
    const int quantum = lead - f.mantissa;
    const double rounded = std::ldexp(std::nearbyint(std::ldexp(a, -quantum)), quantum);
    if (rounded > f.max_normal) return overflowed();
    if (rounded == 0.0) return sign;
    int re;
    std::frexp(rounded, &re);
    const int rlead = re - 1;
    if (rlead < f.emin)  // subnormal: fraction * 2^(emin - mantissa), biased exponent 0
        return sign | std::uint8_t(std::ldexp(rounded, f.mantissa - f.emin));
    const auto fraction = static_cast<unsigned>(std::ldexp(rounded, f.mantissa - rlead)) - (1u << f.mantissa);
    const auto biased = static_cast<unsigned>(rlead + f.bias);
    return sign | std::uint8_t((biased << f.mantissa) | fraction);
}

}  // namespace

double f8_e4m3_to_f64(std::uint8_t bits) { return decode(bits, kE4M3); }
double f8_e5m2_to_f64(std::uint8_t bits) { return decode(bits, kE5M2); }
std::uint8_t f64_to_f8_e4m3(double value, Fp8Overflow overflow) { return encode(value, kE4M3, overflow); }
std::uint8_t f64_to_f8_e5m2(double value, Fp8Overflow overflow) { return encode(value, kE5M2, overflow); }

}  // namespace convcheck
