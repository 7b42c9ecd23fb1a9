// Requantization, each rule from its anchor (requantize.hpp; SPEC-NOTES §7). Integer arithmetic in int64
// where the anchors use it; the f32 rule in f32, every rounding written out rather than left to the
// floating-point environment's rounding mode.
#include "convcheck/reference/requantize.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace convcheck::reference {

namespace {

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::int32_t to_int32(std::int64_t v, const char* what) {
    if (v < kInt32Min || v > kInt32Max)
        throw std::invalid_argument(std::string(what) + ": result " + std::to_string(v) + " does not fit in int32");
    return static_cast<std::int32_t>(v);
}

// The nearest integer to a finite double, ties to the even one (exact: floor and the difference are exact).
double nearest_even(double v) {
    const double below = std::floor(v), fraction = v - below;
    if (fraction > 0.5) return below + 1.0;
    if (fraction < 0.5) return below;
    return std::fmod(below, 2.0) == 0.0 ? below : below + 1.0;
}

}  // namespace

const char* to_string(Requantization rule) {
    switch (rule) {
        case Requantization::double_rounding: return "double_rounding";
        case Requantization::single_rounding: return "single_rounding";
        case Requantization::nearest_even_f32: return "nearest_even_f32";
        case Requantization::nearest_even_f32_with_zero_point: return "nearest_even_f32_with_zero_point";
    }
    return "unknown";
}

QuantizedMultiplier quantize_multiplier(double real) {
    if (!std::isfinite(real) || real < 0.0)
        throw std::invalid_argument("requantization scale = " + std::to_string(real) + ": must be finite and >= 0");
    if (real == 0.0) return {};
    int shift = 0;
    const double q = std::frexp(real, &shift);  // real = q * 2^shift, q in [0.5, 1)
    // q * 2^31 rounded half away from zero (TfLiteRound: std::round)
    auto q_fixed = static_cast<std::int64_t>(std::round(q * 2147483648.0));
    if (q_fixed == (std::int64_t{1} << 31)) {  // q rounded up to 1: the same value as 2^30 * 2^(shift + 1)
        q_fixed /= 2;
        ++shift;
    }
    if (shift < -31) return {};  // below 2^-32: the real 0
    if (shift > 30)
        throw std::invalid_argument("requantization scale = " + std::to_string(real) +
                                    ": at least 2^30, no int32 accumulator times it fits");
    return {static_cast<std::int32_t>(q_fixed), shift};
}

std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) {
    if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
    const std::int64_t ab = std::int64_t{a} * std::int64_t{b};
    const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : (1 - (std::int64_t{1} << 30));
    return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));  // C++ division truncates toward 0
}

std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
    if (exponent < 0 || exponent > 31)
        throw std::invalid_argument("rounding_divide_by_pot: exponent " + std::to_string(exponent) + " outside [0, 31]");
    const std::int64_t mask = (std::int64_t{1} << exponent) - 1;
    const std::int64_t remainder = std::int64_t{x} & mask;
    const std::int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return static_cast<std::int32_t>((std::int64_t{x} >> exponent) + (remainder > threshold ? 1 : 0));
}

std::int32_t multiply_double_rounding(std::int32_t x, QuantizedMultiplier m) {
    const int left_shift = m.shift > 0 ? m.shift : 0, right_shift = m.shift > 0 ? 0 : -m.shift;
    // x * 2^left_shift in int32: TFLite does not check it; an input that overflows is refused here
    const std::int32_t shifted = to_int32(std::int64_t{x} * (std::int64_t{1} << left_shift), "double rounding's left shift");
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, m.multiplier), right_shift);
}

std::int32_t multiply_single_rounding(std::int32_t x, QuantizedMultiplier m) {
    if (m.multiplier < 0 || m.shift < -31 || m.shift > 30)
        throw std::invalid_argument("single rounding: multiplier " + std::to_string(m.multiplier) + ", shift " +
                                    std::to_string(m.shift) + " outside multiplier >= 0, shift in [-31, 30]");
    const int total_shift = 31 - m.shift;
    const std::int64_t round = std::int64_t{1} << (total_shift - 1);
    // x * multiplier fits in int64 (|x|, multiplier < 2^31); adding round may not only at x = INT32_MIN with the
    // largest multiplier and shift -31, where the sum stays above INT64_MIN
    const std::int64_t result = (std::int64_t{x} * m.multiplier + round) >> total_shift;  // arithmetic: floor
    return to_int32(result, "single rounding");
}

std::int32_t tosa_apply_scale_32(std::int32_t value, std::int32_t multiplier, int shift, bool double_round) {
    if (multiplier < 0) throw std::invalid_argument("apply_scale_32: REQUIRE(multiplier >= 0)");
    if (shift < 2 || shift > 62) throw std::invalid_argument("apply_scale_32: REQUIRE(2 <= shift <= 62)");
    const std::int64_t half = std::int64_t{1} << (shift - 1);
    if (std::int64_t{value} < -half || std::int64_t{value} >= half)
        throw std::invalid_argument("apply_scale_32: REQUIRE(-2^(shift-1) <= value < 2^(shift-1))");
    std::int64_t round = half;
    if (double_round && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
    // |value|, multiplier < 2^31: the product is below 2^62 in magnitude and round at most 2^61 + 2^30, so the
    // sum fits in int64
    const std::int64_t result = (std::int64_t{value} * multiplier + round) >> shift;
    return to_int32(result, "apply_scale_32");
}

std::int64_t multiply_nearest_even_f32(std::int32_t x, float scale) {
    const float acc = static_cast<float>(x);  // int32 -> f32: nearest even (exact below 2^24 in magnitude)
    // the f32 product: the double product of two f32 values is exact (24 + 24 significand bits), rounded once
    const float product = static_cast<float>(static_cast<double>(acc) * static_cast<double>(scale));
    if (!std::isfinite(product)) throw std::invalid_argument("nearest even f32: the scaled accumulator is not finite");
    return static_cast<std::int64_t>(nearest_even(static_cast<double>(product)));
}

std::int64_t multiply_nearest_even_f32_with_zero_point(std::int32_t x, float scale, std::int32_t zero_point) {
    const float acc = static_cast<float>(x);
    const float product = static_cast<float>(static_cast<double>(acc) * static_cast<double>(scale));
    // the zero point in f32 (exact: |zero point| <= 255), added in f32: the double sum of two f32 values rounded once
    const float sum = static_cast<float>(static_cast<double>(product) + static_cast<double>(static_cast<float>(zero_point)));
    if (!std::isfinite(sum)) throw std::invalid_argument("nearest even f32: the scaled accumulator is not finite");
    return static_cast<std::int64_t>(nearest_even(static_cast<double>(sum)));
}

namespace {

// f32(x) * scale in f32, plus the bias in f32 (each a double operation on f32 values rounded once to f32, which
// gives the f32 operation's result: double holds more than twice f32's significand)
float scaled_plus_bias(std::int32_t x, float scale, float bias) {
    const float acc = static_cast<float>(x);
    const float product = static_cast<float>(static_cast<double>(acc) * static_cast<double>(scale));
    return static_cast<float>(static_cast<double>(product) + static_cast<double>(bias));
}

}  // namespace

std::int64_t multiply_nearest_even_f32_with_bias(std::int32_t x, float scale, float bias_over_dst_scale) {
    const float sum = scaled_plus_bias(x, scale, bias_over_dst_scale);
    if (!std::isfinite(sum)) throw std::invalid_argument("nearest even f32: the scaled accumulator plus bias is not finite");
    return static_cast<std::int64_t>(nearest_even(static_cast<double>(sum)));
}

std::int64_t multiply_nearest_even_f32_with_bias_and_zero_point(std::int32_t x, float scale, float bias_over_dst_scale,
                                                                std::int32_t zero_point) {
    const float biased = scaled_plus_bias(x, scale, bias_over_dst_scale);
    const float sum = static_cast<float>(static_cast<double>(biased) + static_cast<double>(static_cast<float>(zero_point)));
    if (!std::isfinite(sum)) throw std::invalid_argument("nearest even f32: the scaled accumulator plus bias is not finite");
    return static_cast<std::int64_t>(nearest_even(static_cast<double>(sum)));
}

std::int64_t requantize(std::int32_t x, double real_scale, Requantization rule) {
    switch (rule) {
        case Requantization::double_rounding: return multiply_double_rounding(x, quantize_multiplier(real_scale));
        case Requantization::single_rounding: return multiply_single_rounding(x, quantize_multiplier(real_scale));
        case Requantization::nearest_even_f32:
        case Requantization::nearest_even_f32_with_zero_point:
            return multiply_nearest_even_f32(x, static_cast<float>(real_scale));
    }
    throw std::invalid_argument("requantize: unknown rule");
}

std::int64_t requantize_with_zero_point(std::int32_t x, double real_scale, std::int32_t zero_point, Requantization rule) {
    if (rule == Requantization::nearest_even_f32_with_zero_point)
        return multiply_nearest_even_f32_with_zero_point(x, static_cast<float>(real_scale), zero_point);
    return requantize(x, real_scale, rule) + zero_point;
}

IntegerWindow inexact_window(double exact, std::int32_t zero_point) {
    const double e = 0.5 + (3.0 * std::fabs(exact) + std::fabs(exact + zero_point)) * std::ldexp(1.0, -24);
    return {static_cast<std::int64_t>(std::ceil(exact - e + zero_point)),
            static_cast<std::int64_t>(std::floor(exact + e + zero_point))};
}

std::int32_t saturate(std::int64_t r, std::int32_t zero_point, std::int32_t lowest, std::int32_t highest) {
    const std::int64_t v = r + zero_point;
    return static_cast<std::int32_t>(v < lowest ? lowest : v > highest ? highest : v);
}

}  // namespace convcheck::reference
