// Rigorous bounds on the rounding of the CC backward reference (backward.hpp, docs/cc-backward.md).
#include <cmath>

#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::reference::cc {

namespace {

constexpr double kDoubleRoundoff = 0x1.0p-53;

}  // namespace

double cc_sum_bound(std::int64_t k, double computed_magnitude, double u) {
    // gamma_k M~ / (1 - gamma_k): M~, the computed magnitude (k roundings on non-negative terms), is at
    // least (1 - gamma_k) times the exact one. The result is rounded up by 1 + 16 * 2^-52 for the few
    // roundings of this expression.
    if (k <= 0) return 0.0;
    const double g = gamma(k, u);
    return g * computed_magnitude / (1.0 - g) * (1.0 + 16.0 * 0x1.0p-52);
}

CcBackwardBound cc_backward_error_bound(const CcDescriptor& d, const ContinuousKernel& kernel,
                                       std::span<const double> diff_dst, const CcBackward& r) {
    return cc_backward_error_bound(d, kernel, diff_dst, r, kDoubleRoundoff, false);
}

CcBackwardBound cc_backward_error_bound(const CcDescriptor& d, const ContinuousKernel& kernel,
                                       std::span<const double> diff_dst, const CcBackward& r, double u,
                                       bool distances_rounded) {
    CcBackwardBound b;
    auto sum_bound = [u](std::int64_t k, double m) { return cc_sum_bound(k, m, u); };
    // diff_src = sum dY W~ over (co, k, o): the weights' own error deltaW (the forward's contract at
    // unit roundoff u; with exact distances for the reference, whose distances are the same in the
    // forward, the backward and any check; with weight_error.hpp's distance model for a backend that
    // computes them) times |dY|, plus the sums' rounding.
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const AxisWindow windows[2] = {neighbour_window(projected_grid_axis(d, 0), KH),
                                   neighbour_window(projected_grid_axis(d, 1), KW)};
    std::vector<double> weight_term(r.diff_src.size(), 0.0), dW(static_cast<std::size_t>(CO * CI));
    const double eta = underflow_error(u);
    const double s[2] = {d.scale[0].is_rational() ? d.scale[0].rational().to_double() : d.scale[0].value,
                         d.scale[1].is_rational() ? d.scale[1].rational().to_double() : d.scale[1].value};
    auto distance_error = [&](int a, std::int64_t n, std::int64_t m) {
        return distances_rounded ? distance_error_bound(n, m, s[a], d.input_size[a], d.output_size[a], u) : 0.0;
    };
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t jh = 0; jh < KH; ++jh)
    for (std::int64_t jw = 0; jw < KW; ++jw) {
        const std::int64_t mh = windows[0].first[oh] + jh, mw = windows[1].first[ow] + jw;
        if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;
        kernel.evaluation_error(windows[0].distance[oh * KH + jh], windows[1].distance[ow * KW + jw],
                                distance_error(0, oh, mh), distance_error(1, ow, mw), u, eta, dW);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t ci = 0; ci < CI; ++ci) {
                double& e = weight_term[((n * CI + ci) * H + mh) * W + mw];
                for (std::int64_t co = 0; co < CO; ++co)
                    e += std::fabs(diff_dst[((n * CO + co) * OH + oh) * OW + ow]) * dW[co * CI + ci];
            }
    }
    b.diff_src.resize(r.diff_src.size());
    for (std::size_t i = 0; i < r.diff_src.size(); ++i) {
        // the weight term is a sum of non-negative terms: rounded up like the magnitude
        const std::int64_t t = r.diff_src_terms[i];
        b.diff_src[i] = weight_term[i] * (1.0 + gamma(t + 1, u)) * (1.0 + 16.0 * 0x1.0p-52) +
                        sum_bound(t + 1, r.diff_src_magnitude[i] + weight_term[i]) + (t ? static_cast<double>(t) * eta : 0.0);
    }
    b.diff_theta.resize(r.diff_theta.size());
    for (std::size_t i = 0; i < r.diff_theta.size(); ++i)
        b.diff_theta[i] = sum_bound(r.diff_theta_roundings, r.diff_theta_magnitude[i]) +
                          static_cast<double>(r.diff_theta_roundings) * eta;
    b.diff_bias.resize(r.diff_bias.size());
    for (std::size_t i = 0; i < r.diff_bias.size(); ++i) b.diff_bias[i] = sum_bound(r.diff_bias_terms, r.diff_bias_magnitude[i]);
    return b;
}

}  // namespace convcheck::reference::cc
