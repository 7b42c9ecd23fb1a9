// Reading 2 of the CC layer: Eq. 1 of seed 004, summed over every input pixel.
//
//   CC{I}[n] = {I_cont * K_theta}(g_n) = sum_m I[m] K_theta(g_n - m)                     (Eq. 1)
//
// "Eq. 1 shows that for K_theta with finite support, the output ... is a weighted sum of the
//  discrete 'Neighbors' of its projected location g_n": K_theta is zero unless, on each axis,
//  D = g - m lies in (-k/2, k/2] (g - k/2 <= m < g + k/2).
#include <algorithm>
#include <cmath>

#include "convcheck/reference/cc/continuous_convolution.hpp"

namespace convcheck::reference::cc {

namespace {

// D in (-k/2, k/2], exactly.
bool within_support(const Rational& D, std::int64_t k) {
    const Rational half(k, 2);
    return -half < D && D <= half;
}

// D in (-k/2, k/2] for a real scale: a D within the tolerance of an edge counts as on it
// (the same rule as cc_ceil in block 2).
bool within_support(double D, std::int64_t k) {
    const double half = 0.5 * static_cast<double>(k);
    const double tolerance = kCcRealTolerance * std::max(1.0, std::fabs(D));
    if (std::fabs(D - half) <= tolerance) return true;          // on the right edge g - m = k/2: m = g - k/2 is in
    if (std::fabs(D + half) <= tolerance) return false;         // on the left edge g - m = -k/2: m = g + k/2 is out
    return -half < D && D <= half;
}

}  // namespace

ConvResult cc_equation1(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                        std::span<const double> bias) {
    const ProjectedGrid grid = projected_grid(d);
    const GridAxis& gh = grid.axes[0];
    const GridAxis& gw = grid.axes[1];
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    ConvResult r;
    const std::size_t dst_elements = static_cast<std::size_t>(N * CO * OH * OW);
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);
    std::vector<double> w(static_cast<std::size_t>(CO * CI));

    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t co = 0; co < CO; ++co) {
                const std::size_t o = static_cast<std::size_t>(((n * CO + co) * OH + oh) * OW + ow);
                if (d.has_bias) {
                    r.dst[o] = bias[co];
                    r.magnitude[o] = std::fabs(bias[co]);
                    r.terms[o] = 1;
                }
            }
        for (std::int64_t ci = 0; ci < CI; ++ci)
        for (std::int64_t mh = 0; mh < H; ++mh)
        for (std::int64_t mw = 0; mw < W; ++mw) {
            // D = g_n - m, and K_theta(D) = 0 outside the support
            double dy, dx;
            if (gh.exact) {
                const Rational D = gh.exact_points[oh] - Rational(mh);
                if (!within_support(D, d.support[0])) continue;
                dy = D.to_double();
            } else {
                dy = gh.points[oh] - static_cast<double>(mh);
                if (!within_support(dy, d.support[0])) continue;
            }
            if (gw.exact) {
                const Rational D = gw.exact_points[ow] - Rational(mw);
                if (!within_support(D, d.support[1])) continue;
                dx = D.to_double();
            } else {
                dx = gw.points[ow] - static_cast<double>(mw);
                if (!within_support(dx, d.support[1])) continue;
            }
            kernel.evaluate(dy, dx, w);
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t co = 0; co < CO; ++co) {
                    const std::size_t o = static_cast<std::size_t>(((n * CO + co) * OH + oh) * OW + ow);
                    const double product = src[((n * CI + ci) * H + mh) * W + mw] * w[co * CI + ci];
                    r.dst[o] += product;
                    r.magnitude[o] += std::fabs(product);
                    ++r.terms[o];
                }
        }
    }
    return r;
}

}  // namespace convcheck::reference::cc
