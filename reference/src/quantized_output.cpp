// A quantized convolution's outputs from its sums (quantized_output.hpp).
#include "convcheck/reference/quantized_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace convcheck::reference {

std::vector<double> output_multipliers(const QuantizedDescriptor& q, std::span<const float> weights_scales) {
    const std::int64_t channels = q.conv.out_channels;
    if (weights_scales.size() != 1 && static_cast<std::int64_t>(weights_scales.size()) != channels)
        throw std::invalid_argument("weights scales: " + std::to_string(weights_scales.size()) +
                                    " values, neither one nor one per output channel (" + std::to_string(channels) +
                                    ")");
    std::vector<double> m;
    for (std::int64_t oc = 0; oc < channels; ++oc)
        m.push_back(double(q.src_scale) * double(weights_scales[weights_scales.size() == 1 ? 0 : oc]) /
                    double(q.dst_scale));
    return m;
}

namespace {

std::int32_t as_int32(std::int64_t acc) {
    if (acc < INT32_MIN || acc > INT32_MAX)
        throw std::invalid_argument("accumulator " + std::to_string(acc) + " leaves int32: not a case to requantize");
    return static_cast<std::int32_t>(acc);
}

// A real value of magnitude 2^40 or more saturates under every rule (no f32 rounding brings it back inside s32's
// range): dst_max or dst_min by its sign. Keeps each rule's integer arithmetic inside int64 for a rounded s32 dst.
bool beyond_every_range(double real) { return std::fabs(real) >= 0x1p40; }

}  // namespace

std::int64_t quantized_output(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                              std::int32_t dst_zero_point, Requantization rule) {
    const std::int32_t x = as_int32(acc);
    if (q.dst == IntegerType::s32 && !q.rounded_s32()) return x;  // the accumulator itself (ONNX ConvInteger)
    if (beyond_every_range(double(x) * multiplier)) return double(x) * multiplier > 0 ? q.dst_max : q.dst_min;
    return saturate(requantize_with_zero_point(x, multiplier, dst_zero_point, rule), 0,
                    static_cast<std::int32_t>(q.dst_min), static_cast<std::int32_t>(q.dst_max));
}

IntegerWindow quantized_output_window(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                                      std::int32_t dst_zero_point) {
    const std::int32_t x = as_int32(acc);
    if (q.dst == IntegerType::s32 && !q.rounded_s32()) return {x, x};
    const IntegerWindow w = inexact_window(double(x) * multiplier, dst_zero_point);
    // the window is around r + zero_point already: saturate each end as the output is
    const auto clamp = [&](std::int64_t v) { return std::min(std::max(v, q.dst_min), q.dst_max); };
    return {clamp(w.lowest), clamp(w.highest)};
}

std::optional<std::int64_t> quantized_output_f32_bias(const QuantizedDescriptor& q, std::int64_t acc, double multiplier,
                                                      float bias, std::int32_t dst_zero_point, Requantization rule) {
    const std::int32_t x = as_int32(acc);
    const float scale = static_cast<float>(multiplier), over = static_cast<float>(double(bias) / double(q.dst_scale));
    if (beyond_every_range(double(x) * multiplier + double(over)))
        return double(x) * multiplier + double(over) > 0 ? q.dst_max : q.dst_min;
    std::int64_t r = 0;
    if (rule == Requantization::nearest_even_f32)
        r = multiply_nearest_even_f32_with_bias(x, scale, over) + dst_zero_point;
    else if (rule == Requantization::nearest_even_f32_with_zero_point)
        r = multiply_nearest_even_f32_with_bias_and_zero_point(x, scale, over, dst_zero_point);
    else
        return std::nullopt;
    return saturate(r, 0, static_cast<std::int32_t>(q.dst_min), static_cast<std::int32_t>(q.dst_max));
}

IntegerWindow quantized_output_window_f32_bias(const QuantizedDescriptor& q, std::int64_t acc, double multiplier, float bias,
                                               std::int32_t dst_zero_point) {
    const std::int32_t x = as_int32(acc);
    // exact in double for the runner's dyadic scales and biases
    const IntegerWindow w = inexact_window(double(x) * multiplier + double(bias) / double(q.dst_scale), dst_zero_point);
    const auto clamp = [&](std::int64_t v) { return std::min(std::max(v, q.dst_min), q.dst_max); };
    return {clamp(w.lowest), clamp(w.highest)};
}

}  // namespace convcheck::reference
