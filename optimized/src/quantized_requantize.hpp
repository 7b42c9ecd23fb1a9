// How the optimized quantized plan turns an exact s32 accumulator into its output (quantized_plan.hpp): the four
// rules of ABI 1.5's convcheck_requantization, written here apart from the reference's (reference/requantize.hpp),
// which the tests check them against. Used by the int16 path and, for the two integer rules and NCX outputs, by
// the VNNI path (quantized_vnni.hpp), whose f32 rules are also vectorised in quantized_vnni_avx512.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/optimized/quantized_plan.hpp"

namespace convcheck::optimized::detail {

// M as a Q31 multiplier in [2^30, 2^31) and a shift: M = multiplier * 2^(shift - 31).
struct Q31 {
    std::int32_t multiplier = 0;
    int shift = 0;
};
inline Q31 q31_of(double m) {
    Q31 r;
    const double fraction = std::frexp(m, &r.shift);  // m = fraction * 2^shift, fraction in [0.5, 1)
    auto q = static_cast<std::int64_t>(std::round(std::ldexp(fraction, 31)));
    if (q == (std::int64_t{1} << 31)) q /= 2, ++r.shift;
    r.multiplier = static_cast<std::int32_t>(q);
    return r;
}

// gemmlowp: the high half of 2 * acc' * multiplier, ties toward +inf (acc' = acc * 2^max(shift, 0)), then a right
// shift by max(-shift, 0), ties away from zero
inline std::int64_t round_double(std::int32_t acc, Q31 m) {
    using i64 = std::int64_t;
    const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
    if (right > 31) return 0;
    const i64 x = static_cast<i64>(static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) << left));
    if (x == std::numeric_limits<std::int32_t>::min() && m.multiplier == std::numeric_limits<std::int32_t>::min())
        return std::numeric_limits<std::int32_t>::max();
    const i64 product = x * m.multiplier;
    const i64 nudge = product >= 0 ? (i64{1} << 30) : 1 - (i64{1} << 30);
    const i64 high = (product + nudge) / (i64{1} << 31);  // C++ division truncates toward zero
    if (right == 0) return high;
    const i64 mask = (i64{1} << right) - 1, remainder = high & mask, threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + (remainder > threshold ? 1 : 0);
}

// one 64-bit product and one shift, ties up
inline std::int64_t round_single(std::int32_t acc, Q31 m) {
    const int right = 31 - m.shift;
    if (right > 62) return 0;
    return (std::int64_t{acc} * m.multiplier + (std::int64_t{1} << (right - 1))) >> right;  // arithmetic: floor
}

// The rule, the per-channel multipliers M(oc) = src_scale * weights_scale(oc) / dst_scale, the dst zero point and
// range. s32 outputs are the accumulator itself.
struct Requantizer {
    QuantizedRounding rounding = QuantizedRounding::nearest_even_f32_with_zero_point;
    IntegerType dst = IntegerType::u8;
    std::int32_t dst_zero_point = 0;
    std::vector<std::int32_t> dst_zero_points;  // per output channel (dzp=a:b:...), or empty: dst_zero_point
    std::int64_t dst_min = 0, dst_max = 0;
    std::vector<float> multiplier_f32;
    std::vector<Q31> multiplier_q31;

    Requantizer() = default;
    Requantizer(const QuantizedDescriptor& q, const std::vector<double>& multipliers, QuantizedRounding r)
        : rounding(r), dst(q.dst), dst_zero_point(q.dst_zero_point), dst_zero_points(q.dst_zero_points),
          dst_min(q.dst_min), dst_max(q.dst_max) {
        for (double m : multipliers) {
            multiplier_f32.push_back(static_cast<float>(m));
            multiplier_q31.push_back(q31_of(m));
        }
    }

    std::int64_t operator()(std::int32_t acc, std::int64_t oc) const {
        if (dst == IntegerType::s32) return acc;
        const auto at = static_cast<std::size_t>(oc);
        const std::int32_t zp = dst_zero_points.empty() ? dst_zero_point : dst_zero_points[at];
        std::int64_t r = 0;
        switch (rounding) {
            case QuantizedRounding::double_rounding: r = round_double(acc, multiplier_q31[at]); break;
            case QuantizedRounding::single_rounding: r = round_single(acc, multiplier_q31[at]); break;
            case QuantizedRounding::nearest_even_f32:
                r = static_cast<std::int64_t>(std::nearbyint(static_cast<float>(acc) * multiplier_f32[at]));
                break;
            case QuantizedRounding::nearest_even_f32_with_zero_point: {
                const float product = static_cast<float>(acc) * multiplier_f32[at];
                const float sum = product + static_cast<float>(zp);  // in f32, as oneDNN and ONNX add it
                return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::nearbyint(sum)), dst_min, dst_max);
            }
        }
        return std::clamp<std::int64_t>(r + zp, dst_min, dst_max);
    }
};

}  // namespace convcheck::optimized::detail
