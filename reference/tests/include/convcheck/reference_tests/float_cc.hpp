// An honest f32 CC backend, written independently of the reference for the accuracy-contract tests:
// the grid, the distances, K_theta (Internal-Net or analytic, from the formulas in docs/cc.md) and
// the sum are all computed in float, as a backend would. Only the window (which m are neighbours)
// is taken from the reference, so that a grid point near a window edge cannot flip it.
// `shift_w` and `grid_offset` make deliberately wrong backends (a window one tap off, a grid moved).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::cctest {

struct FloatCcOptions {
    std::int64_t shift_w = 0;   // apply the weight K(g - m) to pixel m + shift_w on the w axis (a wrong tap)
    float grid_offset = 0.0f;   // add this to every grid point (a shifted grid)
};

// g_n = n/s + (in-1)/2 - (out-1)/(2s) in float.
inline float float_grid_point(const CcDescriptor& d, int axis, std::int64_t n) {
    const CcScale& sc = d.scale[axis];
    const float s = sc.is_rational() ? static_cast<float>(sc.numerator) / static_cast<float>(sc.denominator)
                                     : static_cast<float>(sc.value);
    return static_cast<float>(n) / s + static_cast<float>(d.input_size[axis] - 1) / 2.0f -
           static_cast<float>(d.output_size[axis] - 1) / (2.0f * s);
}

inline float float_kernel_1d(CcKernel kind, float t) {
    const float x = std::fabs(t);
    if (kind == CcKernel::linear) return x < 1.0f ? 1.0f - x : 0.0f;
    // Keys, a = -0.5, Horner
    const float a = -0.5f;
    if (x <= 1.0f) return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
    if (x < 2.0f) return ((a * x - 5.0f * a) * x + 8.0f * a) * x - 4.0f * a;
    return 0.0f;
}

// K(dy, dx) for every channel pair (out[cout*Cin + cin]), theta in the ABI order.
inline void float_kernel(const CcDescriptor& d, const std::vector<float>& theta, float dy, float dx,
                         std::vector<float>& out) {
    const std::size_t C = static_cast<std::size_t>(d.in_channels * d.out_channels);
    out.assign(C, 0.0f);
    if (d.kernel == CcKernel::gaussian) {
        const float sigma = static_cast<float>(d.kernel_parameter);
        const float w = std::exp(-(dy * dy + dx * dx) / (2.0f * sigma * sigma));  // expf
        out.assign(C, w);
        return;
    }
    if (d.kernel != CcKernel::internal_net) {
        out.assign(C, float_kernel_1d(d.kernel, dy) * float_kernel_1d(d.kernel, dx));
        return;
    }
    const std::size_t h1 = static_cast<std::size_t>(d.hidden_widths[0]), h2 = static_cast<std::size_t>(d.hidden_widths[1]);
    const float slope = static_cast<float>(d.leaky_relu_slope);
    const float* W1 = theta.data();
    const float* b1 = W1 + h1 * 2;
    const float* W2 = b1 + h1;
    const float* b2 = W2 + h2 * h1;
    const float* W3 = b2 + h2;
    const float* b3 = W3 + C * h2;
    auto layer = [&](const float* W, const float* b, const std::vector<float>& x, std::size_t rows, bool act) {
        std::vector<float> y(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            float z = b[r];
            for (std::size_t c = 0; c < x.size(); ++c) z += W[r * x.size() + c] * x[c];
            y[r] = act && z < 0.0f ? slope * z : z;
        }
        return y;
    };
    const std::vector<float> a1 = layer(W1, b1, {dy, dx}, h1, true);
    const std::vector<float> a2 = layer(W2, b2, a1, h2, true);
    out = layer(W3, b3, a2, C, false);
}

// The whole layer in float: src [N, Cin, H, W], bias [Cout] or empty; dst [N, Cout, H', W'].
inline std::vector<float> float_cc(const CcDescriptor& d, const std::vector<float>& src, const std::vector<float>& theta,
                                   const std::vector<float>& bias, FloatCcOptions options = {}) {
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const reference::cc::AxisWindow wh = reference::cc::neighbour_window(reference::cc::projected_grid_axis(d, 0), KH);
    const reference::cc::AxisWindow ww = reference::cc::neighbour_window(reference::cc::projected_grid_axis(d, 1), KW);
    std::vector<float> dst(static_cast<std::size_t>(N * CO * OH * OW));
    std::vector<float> w;
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        const float gh = float_grid_point(d, 0, oh) + options.grid_offset;
        const float gw = float_grid_point(d, 1, ow) + options.grid_offset;
        for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t co = 0; co < CO; ++co) {
            float sum = d.has_bias ? bias[co] : 0.0f;
            for (std::int64_t ci = 0; ci < CI; ++ci)
            for (std::int64_t jh = 0; jh < KH; ++jh)
            for (std::int64_t jw = 0; jw < KW; ++jw) {
                const std::int64_t mh = wh.first[oh] + jh, mw = ww.first[ow] + jw, read_w = mw + options.shift_w;
                if (mh < 0 || mh >= H || read_w < 0 || read_w >= W) continue;
                float_kernel(d, theta, gh - static_cast<float>(mh), gw - static_cast<float>(mw), w);
                sum += src[((n * CI + ci) * H + mh) * W + read_w] * w[co * CI + ci];
            }
            dst[((n * CO + co) * OH + oh) * OW + ow] = sum;
        }
    }
    return dst;
}

}  // namespace convcheck::cctest
