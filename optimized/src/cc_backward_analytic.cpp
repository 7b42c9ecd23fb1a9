// The CC backward for the analytic kernels (linear, cubic, Gaussian) and the bias gradient of every
// family (cc_backward_plan.hpp). An analytic kernel gives every channel pair the same weight
// w(tap, o) = k(dy) k(dx) (in double, rounded once to f32, as the forward's chunked method), so
//   diff_src[n, cin, m] = sum over the (tap, o) whose neighbour is m of w(tap, o) T[n, o],
//   T[n, o] = sum_cout diff_dst[n, cout, o],
// the same for every input channel. Orders: T sums Cout in order (f32); each image's plane G sums its
// contributions in (oy, ox, y, x) order (f32) in one task; G is copied to every input channel.
// diff_bias[cout] sums the images in order, each image's pixels in order, in double, rounded once.
#include <tbb/blocked_range.h>

#include <algorithm>

#include "cc_backward_parts.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

void cc_backward_analytic(const CcDescriptor& d, const AxisWindows& height, const AxisWindows& width,
                          const float* diff_dst, float* diff_src, WorkspaceMeter& meter) {
    const i64 Cin = d.in_channels, Cout = d.out_channels, H = d.input_size[0], W = d.input_size[1];
    const i64 OH = d.output_size[0], OW = d.output_size[1], kh = d.support[0], kw = d.support[1];
    std::vector<double> k_axis[2];
    for (double t : height.distance) k_axis[0].push_back(analytic_1d(d.kernel, d.kernel_parameter, t));
    for (double t : width.distance) k_axis[1].push_back(analytic_1d(d.kernel, d.kernel_parameter, t));
    const i64 floats = d.batch * (OH * OW + H * W);
    meter.count_in(floats * 4);
    std::vector<float> buffer(static_cast<std::size_t>(floats), 0.0f);
    float* T = buffer.data();
    float* G = T + d.batch * OH * OW;
    parallel_for_joined(tbb::blocked_range<i64>(0, d.batch * OH), [&](const auto& r) {
        for (i64 row = r.begin(); row < r.end(); ++row) {
            const i64 n = row / OH, oy = row % OH;
            float* t = T + row * OW;
            for (i64 co = 0; co < Cout; ++co) {
                const float* in = diff_dst + ((n * Cout + co) * OH + oy) * OW;
                for (i64 ox = 0; ox < OW; ++ox) t[ox] += in[ox];
            }
        }
    });
    parallel_for_joined(tbb::blocked_range<i64>(0, d.batch, 1), [&](const auto& r) {
        for (i64 n = r.begin(); n < r.end(); ++n)
            for (i64 oy = 0; oy < OH; ++oy) {
                const i64 fy = height.first[oy];
                for (i64 ox = 0; ox < OW; ++ox) {
                    const i64 fx = width.first[ox];
                    const float t = T[(n * OH + oy) * OW + ox];
                    for (i64 y = 0; y < kh; ++y) {
                        if (fy + y < 0 || fy + y >= H) continue;
                        float* g = G + (n * H + fy + y) * W + fx;
                        for (i64 x = 0; x < kw; ++x) {
                            if (fx + x < 0 || fx + x >= W) continue;
                            const float w = static_cast<float>(k_axis[0][oy * kh + y] * k_axis[1][ox * kw + x]);
                            g[x] += w * t;
                        }
                    }
                }
            }
    });
    parallel_for_joined(tbb::blocked_range<i64>(0, d.batch * Cin), [&](const auto& r) {
        for (i64 plane = r.begin(); plane < r.end(); ++plane) {
            const float* g = G + plane / Cin * H * W;
            std::copy(g, g + H * W, diff_src + plane * H * W);
        }
    });
    meter.count_out(floats * 4);
}

void cc_backward_bias(const CcDescriptor& d, const float* diff_dst, float* diff_bias) {
    const i64 Cout = d.out_channels, pixels = d.output_size[0] * d.output_size[1];
    parallel_for_joined(tbb::blocked_range<i64>(0, Cout), [&](const auto& r) {
        for (i64 co = r.begin(); co < r.end(); ++co) {
            // four partial sums (pixel i into sum i % 4, images in order), then ((s0 + s1) + (s2 + s3)):
            // four independent chains instead of one
            double s[4] = {0.0, 0.0, 0.0, 0.0};
            for (i64 n = 0; n < d.batch; ++n) {
                const float* in = diff_dst + (n * Cout + co) * pixels;
                i64 i = 0;
                for (; i + 4 <= pixels; i += 4)
                    for (int k = 0; k < 4; ++k) s[k] += in[i + k];
                for (; i < pixels; ++i) s[i % 4] += in[i];
            }
            diff_bias[co] = static_cast<float>((s[0] + s[1]) + (s[2] + s[3]));
        }
    });
}

}  // namespace convcheck::optimized::detail
