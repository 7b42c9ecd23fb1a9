// The general output of a quantized convolution (quantized_general_output.hpp), literally.
#include "convcheck/reference/quantized_general_output.hpp"

#include <cmath>

#include "convcheck/core/dtype.hpp"

namespace convcheck::reference {

double quantized_real_value(const QuantizedDescriptor& q, const PostOpData& post, std::int64_t ncx, std::int64_t acc,
                            double weights_scale, double f32_bias, std::vector<double>* steps) {
    // x_f32 = scale_x * (x_quant - zp_x) for src and weights: their product summed is src_scale * weights_scale * acc
    // (acc is the integer sum of (x - zx) * (w - zw), exact); the bias in real units after it
    const double conv_res = double(q.src_scale) * weights_scale * double(acc) + f32_bias;
    if (q.conv.post_ops.empty()) {
        if (steps) *steps = {conv_res};
        return conv_res;
    }
    // post_ops(OP(src, weights, ...)), in the order appended
    std::vector<double> after;
    const double v = apply_post_ops(q.conv, post, ncx, conv_res, steps ? &after : nullptr);
    if (steps) {
        *steps = {conv_res};
        steps->insert(steps->end(), after.begin(), after.end());
    }
    return v;
}

double quantized_dst_real(const QuantizedDescriptor& q, double v, std::int32_t dst_zero_point, std::int64_t oc) {
    // "/ scale_dst + zp_dst"
    return v / double(q.dst_scale_of(oc)) + double(dst_zero_point);
}

std::int64_t nearest_even_saturated(const QuantizedDescriptor& q, double x) {
    if (std::isnan(x)) return q.dst_min;  // no post-op the descriptor takes yields NaN from finite inputs
    if (x <= double(q.dst_min)) return q.dst_min;
    if (x >= double(q.dst_max)) return q.dst_max;
    return static_cast<std::int64_t>(std::nearbyint(x));  // the default rounding mode: to nearest, ties to even
}

double quantized_general_output(const QuantizedDescriptor& q, double v, std::int32_t dst_zero_point, std::int64_t oc) {
    const double x = quantized_dst_real(q, v, dst_zero_point, oc);
    if (q.float_dst) return round_to(*q.float_dst, x);
    return double(nearest_even_saturated(q, x));
}

}  // namespace convcheck::reference
