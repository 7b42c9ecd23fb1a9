// The CC accuracy contract's weight term: deltaW(D) >= |fl_u(K_theta(D~)) - K_theta(D)| (header).
#include "convcheck/reference/cc/weight_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::reference::cc {

namespace {

constexpr double kDoubleRoundoff = 0x1.0p-53;

// Rounds UP a bound that was computed in double with at most `ops` roundings on non-negative
// terms: such a computed sum is >= (1 - gamma_ops(2^-53)) times the true one, and
// 1 + (ops + 8) 2^-52 (itself rounded, and the product rounded) more than makes up for it.
double round_up(double bound, std::int64_t ops) { return bound * (1.0 + static_cast<double>(ops + 8) * 0x1.0p-52); }

double leaky_relu(double x, double slope) { return x >= 0.0 ? x : slope * x; }

// max |a y^2 + b y + c| over [lo, hi] (lo <= hi): at an end or at the vertex.
double max_abs_quadratic(double a, double b, double c, double lo, double hi) {
    auto q = [&](double y) { return std::fabs((a * y + b) * y + c); };
    double m = std::max(q(lo), q(hi));
    const double vertex = -b / (2.0 * a);
    if (lo < vertex && vertex < hi) m = std::max(m, q(vertex));
    return m;
}

// One axis of a separable analytic kernel: a bound on |k~(t~) - k(t)| for |t~ - t| <= e, and |k(t)|.
struct AxisBound {
    double value = 0.0, error = 0.0;
};

AxisBound linear_axis(double t, double e, double u, double eta) {
    // k(t) = max(0, 1 - |t|): 1-Lipschitz (0 where the whole interval lies beyond 1), and one
    // rounding of 1 - |t~| (gamma_2: two, should a backend form |t~| or 1 in another way first).
    const double x = std::fabs(t);
    AxisBound b;
    b.value = std::max(0.0, 1.0 - x);
    const double lipschitz = x - e < 1.0 ? 1.0 : 0.0;
    const double rounding = x - e < 1.0 ? gamma(2, u) * (b.value + e) : 0.0;
    b.error = round_up(lipschitz * e + rounding + eta, 4);  // + eta: 1 - |t~| never underflows; kept for uniformity
    return b;
}

AxisBound cubic_axis(double t, double e, double u, double eta) {
    // Keys, a = -0.5:  p(x) = 1.5 x^3 - 2.5 x^2 + 1          on [0, 1]
    //                  q(x) = -0.5 x^3 + 2.5 x^2 - 4 x + 2   on [1, 2], 0 beyond.
    // k is C^1 (p(1) = q(1) = 0, p'(1) = q'(1) = -0.5, q(2) = q'(2) = 0), so a backend that takes
    // the other branch for a perturbed x~ is still within Lipschitz * e of k(x).
    // Rounding: Horner on a degree-3 polynomial, gamma_6(u) sum |c_i| x~^i (Higham, eq. 5.3); the
    // same bound holds for any order with at most 6 roundings on each term's path. Over [0, 2]
    // 0.5x^3 + 2.5x^2 + 4x + 2 >= 1.5x^3 + 2.5x^2 + 1 (the difference -x^3 + 4x + 1 > 0), so
    // q's coefficient sum, at the largest x~, covers both branches.
    const double x = std::fabs(t);
    AxisBound b;
    b.value = analytic_kernel_1d(CcKernel::cubic, 0.0, t);
    const double lo = std::max(0.0, x - e), hi = x + e;
    if (lo >= 2.0) return b;  // the backend's k(x~) is 0, as is k(x)
    double lipschitz = 0.0;   // max |k'| over [lo, hi]: p' = 4.5x^2 - 5x, q' = -1.5x^2 + 5x - 4
    if (lo < 1.0) lipschitz = std::max(lipschitz, max_abs_quadratic(4.5, -5.0, 0.0, lo, std::min(hi, 1.0)));
    if (hi > 1.0) lipschitz = std::max(lipschitz, max_abs_quadratic(-1.5, 5.0, -4.0, std::max(lo, 1.0), std::min(hi, 2.0)));
    const double y = std::min(hi, 2.0);
    const double rounding = gamma(6, u) * (((0.5 * y + 2.5) * y + 4.0) * y + 2.0);
    b.error = round_up(lipschitz * e + rounding + 3.0 * eta, 16);  // three products may underflow
    return b;
}

double gaussian_error(double sigma, double dy, double dx, double ey, double ex, double u, double eta) {
    // K = exp(-a), a = (dy^2 + dx^2) / (2 sigma^2).
    // The argument: the distance errors move dy^2 by at most (2|dy| + ey) ey (and dx^2 alike); its
    // evaluation (dy~^2, dx~^2, their sum, sigma rounded to the backend's type, sigma^2, the
    // division; 2 sigma^2 is exact) takes at most 6 roundings: gamma_6(u) times its largest value.
    // exp: ASSUMED within 1 ulp (relative 2u) -- glibc's expf is correctly rounded in practice;
    // a backend that takes exp(-a_y) exp(-a_x) has two exps and a product: (1+2u)^2(1+u) <= 1 + gamma_5.
    // |exp(-a~)(1+t) - exp(-a)| <= K (e^da - 1) + gamma_5 K e^da, da >= |a~ - a|.
    // Underflow: the squares may lose eta each (2 eta / (2 sigma^2) in da) and exp (and the
    // product) lose at most 1 ulp of the subnormal range, eta, each: 3 eta absolute.
    const double two_sigma2 = 2.0 * sigma * sigma;
    const double a = (dy * dy + dx * dx) / two_sigma2;
    const double ay = std::fabs(dy) + ey, ax = std::fabs(dx) + ex;
    const double moved = ((2.0 * std::fabs(dy) + ey) * ey + (2.0 * std::fabs(dx) + ex) * ex) / two_sigma2;
    const double da = round_up(moved + gamma(6, u) * (ay * ay + ax * ax) / two_sigma2 + 2.0 * eta / two_sigma2, 16);
    const double K = std::exp(-a) * (1.0 + 4.0 * kDoubleRoundoff);        // exp in double: within a few ulps
    const double grow = std::expm1(da) * (1.0 + 4.0 * kDoubleRoundoff);  // e^da - 1, rounded up
    return round_up(K * grow + gamma(5, u) * K * (1.0 + grow) + 3.0 * eta, 8);
}

}  // namespace

double underflow_error(double u) {
    if (u >= 0x1.0p-11) return 0x1.0p-24;   // f16 (and bf16, whose 2^-133 it covers)
    if (u >= 0x1.0p-24) return 0x1.0p-149;  // f32
    return 0x1.0p-1074;                     // f64
}

double distance_error_bound(std::int64_t n, std::int64_t m, double s, std::int64_t in_size, std::int64_t out_size,
                            double u) {
    // g_n = n/s + (in-1)/2 - (out-1)/(2s), D = g_n - m: four terms, three additions. Each term
    // reaches its value with at most 7 roundings (converting n, p, q, in - 1, out - 1 or m to the
    // backend's type, forming s = p/q, 2s (exact), one division), a relative error of at most
    // gamma_7; the three additions add gamma_3 times the sum of the terms' magnitudes; and
    // gamma_7 + gamma_3 + gamma_7 gamma_3 <= gamma_10 (Higham, Lemma 3.3). So k = 10. Any order
    // (the offset (in-1)/2 - (out-1)/(2s) precomputed, n * (1/s), FMA) stays within these counts.
    // An exact (rational) grid rounded once has |D~ - D| <= u |D|, within the same bound.
    const double inv_s = 1.0 / std::fabs(s);
    const double sum = static_cast<double>(n) * inv_s + 0.5 * std::fabs(static_cast<double>(in_size - 1)) +
                       0.5 * std::fabs(static_cast<double>(out_size - 1)) * inv_s + std::fabs(static_cast<double>(m));
    return round_up(gamma(kDistanceRoundings, u) * sum, 10);
}

void internal_net_weight_error(const InternalNet& net, double dy, double dx, double ey, double ex, double u, double eta,
                               std::span<double> out) {
    // h: the layer's input (reference values, double), e: elementwise bounds on |h~ - h|.
    std::vector<double> h{dy, dx}, e{std::fabs(ey), std::fabs(ex)};
    const double slope = net.leaky_relu_slope;
    auto layer = [&](const std::vector<double>& W, const std::vector<double>& b, bool activation) {
        const std::size_t f = h.size(), rows = b.size();
        const double g = gamma(static_cast<std::int64_t>(f) + 1, u);  // f products and f + 1 summands
        std::vector<double> hn(rows), en(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            double z = b[r], carried = 0.0, magnitude = std::fabs(b[r]);
            for (std::size_t c = 0; c < f; ++c) {
                const double w = W[r * f + c];
                z += w * h[c];
                carried += std::fabs(w) * e[c];                   // |W| E_h
                magnitude += std::fabs(w) * (std::fabs(h[c]) + e[c]);  // |W| (|h| + E_h) + |b|
            }
            // |z~ - z| <= |W| E_h + gamma_{f+1}(u) (|W| (|h| + E_h) + |b|) + f eta (each product may underflow)
            const double ez = round_up(carried + g * magnitude + static_cast<double>(f) * eta, 4 * static_cast<std::int64_t>(f) + 4);
            if (activation) {
                // LeakyReLU: max(1, |slope|)-Lipschitz; slope * z~ with slope rounded to the backend's
                // type: gamma_2(u) |slope| |z~| <= gamma_2(u) |slope| (|z| + E_z)
                hn[r] = leaky_relu(z, slope);
                en[r] = round_up(std::max(1.0, std::fabs(slope)) * ez + gamma(2, u) * std::fabs(slope) * (std::fabs(z) + ez) + eta, 6);
            } else {
                hn[r] = z;
                en[r] = ez;
            }
        }
        h = std::move(hn);
        e = std::move(en);
    };
    layer(net.W1, net.b1, true);
    layer(net.W2, net.b2, true);
    layer(net.W3, net.b3, false);
    std::copy(e.begin(), e.end(), out.begin());
}

double analytic_weight_error(CcKernel kind, double parameter, double dy, double dx, double ey, double ex, double u,
                             double eta) {
    if (kind == CcKernel::gaussian) return gaussian_error(parameter, dy, dx, ey, ex, u, eta);
    AxisBound y, x;
    if (kind == CcKernel::linear) {
        y = linear_axis(dy, ey, u, eta);
        x = linear_axis(dx, ex, u, eta);
    } else if (kind == CcKernel::cubic) {
        y = cubic_axis(dy, ey, u, eta);
        x = cubic_axis(dx, ex, u, eta);
    } else {
        throw ConvError("kernel", std::string(to_string(kind)), "is not an analytic kernel (linear, cubic, gaussian)");
    }
    // K~ = fl(k~y k~x): |k~y k~x - ky kx| <= |ky| Ex + |kx| Ey + Ey Ex, and one rounding of the
    // product, u |k~y k~x| <= u (|ky| + Ey)(|kx| + Ex), + eta should it underflow.
    const double product = (std::fabs(y.value) + y.error) * (std::fabs(x.value) + x.error);
    return round_up(std::fabs(y.value) * x.error + std::fabs(x.value) * y.error + y.error * x.error + u * product + eta, 10);
}

void ContinuousKernel::evaluation_error(double dy, double dx, double ey, double ex, double u, double eta,
                                        std::span<double> out) const {
    if (kind_ == CcKernel::internal_net) {
        internal_net_weight_error(net_, dy, dx, ey, ex, u, eta, out);
        return;
    }
    std::fill(out.begin(), out.end(), analytic_weight_error(kind_, parameter_, dy, dx, ey, ex, u, eta));
}

namespace {

// Calls f(oh, ow, mh, mw, dW) for every output (oh, ow) and neighbour (mh, mw) inside the input, in
// (oh, ow, jh, jw) order, with dW = deltaW of every channel pair there (out[cout * Cin + cin]) for a
// backend of unit roundoff u, its distances computed in that precision too.
template <typename F>
void for_each_weight_error(const CcDescriptor& d, const ContinuousKernel& kernel, double u, const F& f) {
    // u_eff = u + 2^-53 also covers the reference's own double evaluation of K (the same bound at
    // u = 2^-53; every bound here is a sum of products of gammas, superadditive in u).
    const double u_eff = u + kDoubleRoundoff, eta = underflow_error(u);
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    // per axis: the window and the distance error of each (output, j)
    AxisWindow windows[2];
    std::vector<double> distance_error[2];
    for (int a = 0; a < 2; ++a) {
        windows[a] = neighbour_window(projected_grid_axis(d, a), d.support[a]);
        const double s = d.scale[a].is_rational() ? d.scale[a].rational().to_double() : d.scale[a].value;
        for (std::int64_t n = 0; n < d.output_size[a]; ++n)
            for (std::int64_t j = 0; j < d.support[a]; ++j)
                distance_error[a].push_back(distance_error_bound(n, windows[a].first[n] + j, s, d.input_size[a],
                                                                 d.output_size[a], u_eff));
    }
    std::vector<double> dW(static_cast<std::size_t>(d.out_channels * d.in_channels));
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t jh = 0; jh < KH; ++jh)
    for (std::int64_t jw = 0; jw < KW; ++jw) {
        const std::int64_t mh = windows[0].first[oh] + jh, mw = windows[1].first[ow] + jw;
        if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;  // zero padding: N is 0 there
        kernel.evaluation_error(windows[0].distance[oh * KH + jh], windows[1].distance[ow * KW + jw],
                                distance_error[0][oh * KH + jh], distance_error[1][ow * KW + jw], u_eff, eta, dW);
        f(oh, ow, mh, mw, dW);
    }
}

}  // namespace

std::vector<double> cc_weight_error(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                                    double u) {
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    std::vector<double> result(static_cast<std::size_t>(N * CO * OH * OW), 0.0);
    for_each_weight_error(d, kernel, u, [&](std::int64_t oh, std::int64_t ow, std::int64_t mh, std::int64_t mw,
                                            const std::vector<double>& dW) {
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t co = 0; co < CO; ++co) {
                double& sum = result[((n * CO + co) * OH + oh) * OW + ow];
                for (std::int64_t ci = 0; ci < CI; ++ci)
                    sum += std::fabs(src[((n * CI + ci) * H + mh) * W + mw]) * dW[co * CI + ci];  // |N| deltaW
            }
    });
    for (double& v : result) v = round_up(v, 2 * CI * d.support[0] * d.support[1]);
    return result;
}

std::vector<double> cc_weight_error_backward(const CcDescriptor& d, std::span<const double> diff_dst,
                                             const ContinuousKernel& kernel, double u) {
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    std::vector<double> result(static_cast<std::size_t>(N * CI * H * W), 0.0);
    std::int64_t most = 0;  // the most terms summed into one element
    std::vector<std::int64_t> hits(static_cast<std::size_t>(H * W), 0);
    for_each_weight_error(d, kernel, u, [&](std::int64_t oh, std::int64_t ow, std::int64_t mh, std::int64_t mw,
                                            const std::vector<double>& dW) {
        most = std::max(most, ++hits[mh * W + mw] * CO);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t ci = 0; ci < CI; ++ci) {
                double& sum = result[((n * CI + ci) * H + mh) * W + mw];
                for (std::int64_t co = 0; co < CO; ++co)
                    sum += std::fabs(diff_dst[((n * CO + co) * OH + oh) * OW + ow]) * dW[co * CI + ci];  // |dY| deltaW
            }
    });
    for (double& v : result) v = round_up(v, 2 * most);
    return result;
}

std::vector<double> cc_weight_error(const CcDescriptor& d, const float* src, const float* theta, double u) {
    validate(d);
    if (src == nullptr) throw ConvError("src", "NULL", "the input buffer is required");
    const ContinuousKernel kernel = ContinuousKernel::for_buffer(d, theta);
    const std::vector<double> src64(src, src + d.src_elements());
    return cc_weight_error(d, src64, kernel, u);
}

}  // namespace convcheck::reference::cc
