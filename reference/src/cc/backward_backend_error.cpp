// The CC backward accuracy contract's term for a backend of unit roundoff u (backward.hpp,
// cc_backward_backend_error; docs/cc-backward.md, "The runner's contract").
//
// diff_src and diff_bias are flat sums of products: cc_backward_error_bound at u with the backend's own
// distances bounds them for any summation order. diff_theta needs more: a backend computes the
// distances D~ (|D~ - D| <= e_D, weight_error.hpp's distance model) and may decide a LeakyReLU branch
// differently where its rounding cannot decide it. With the branches fixed, every theta gradient of one
// distance pair is affine in (D, a1, a2) with coefficients that do not depend on D (dW1 = dz1 D^T,
// dW2 = dz2 a1^T, dW3 = g a2^T; dz1, dz2 depend on D only through the branches), so the chain rule run on
// the perturbations bounds the change (P):
//   a unit is undecided when |z| <= 2 e_z (e_z: z's error bound at u with the distance errors); its
//     activation then moves by at most (max(1,|slope|) + |1 - slope|) 2 e_z, and its derivative by
//     |1 - slope| (slope or 1);
//   a decided unit's activation moves by max(1,|slope|) times the moves of its inputs;
//   P(dW3) += g_abs da2,  P(dW2) += dz2_abs da1 + d(dz2) (a1_abs + da1),  P(db2) += d(dz2),
//   P(dW1) += dz1_abs e_D + d(dz1) (|D| + e_D),  P(db1) += d(dz1),
//   d(dz2) = |1 - slope| da2_abs (undecided), d(dz1) = max(1,|slope|) |W2|^T d(dz2) (+ |1 - slope|
//     (da1_abs + |W2|^T d(dz2)) undecided).
// The rounding of the evaluation itself is gamma_L(u) times the magnitude of what it evaluates, at most
// M + P (the reference's magnitude program plus the perturbations), with L roundings on any path.
#include <algorithm>
#include <cmath>

#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/internal_net_backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::reference::cc {

namespace {

// P for one distance pair: the perturbation of every theta gradient (ABI order) for channel magnitudes
// g_abs (|dW| summed with |dY N|) at distances (dy, dx) with errors (ey, ex).
void perturb_pair(const InternalNet& net, double dy, double dx, double ey, double ex, std::span<const double> g_abs,
                  double u, double eta, std::span<double> P) {
    const std::size_t h1 = static_cast<std::size_t>(net.h1), h2 = static_cast<std::size_t>(net.h2);
    const std::size_t C = g_abs.size();
    const double slope = net.leaky_relu_slope, sb = std::max(1.0, std::fabs(slope)), flip = std::fabs(1.0 - slope);
    const std::size_t oW1 = 0, ob1 = oW1 + 2 * h1, oW2 = ob1 + h1, ob2 = oW2 + h2 * h1, oW3 = ob2 + h2;
    const InternalNetTrace t = trace_internal_net(net, dy, dx);
    const double eD[2] = {ey, ex}, absD[2] = {std::fabs(dy), std::fabs(dx)};
    // forward: each unit's error bound at u (e), whether it is decided, and its activation's move (da)
    std::vector<double> da1(h1), ea1(h1), da2(h2);
    std::vector<bool> undecided1(h1), undecided2(h2);
    for (std::size_t i = 0; i < h1; ++i) {
        const double w0 = std::fabs(net.W1[i * 2]), w1 = std::fabs(net.W1[i * 2 + 1]);
        const double moved = w0 * eD[0] + w1 * eD[1];
        const double e = moved + gamma(3, u) * (w0 * (absD[0] + eD[0]) + w1 * (absD[1] + eD[1]) + std::fabs(net.b1[i])) +
                         2.0 * eta;
        undecided1[i] = std::fabs(t.z1[i]) <= 2.0 * e;
        da1[i] = undecided1[i] ? (sb + flip) * 2.0 * e : sb * moved;
        ea1[i] = undecided1[i] ? da1[i] : sb * e * (1.0 + 2.0 * u) + eta;  // with the rounding, for layer 2's e
    }
    for (std::size_t j = 0; j < h2; ++j) {
        double moved = 0.0, err = 0.0, mag = std::fabs(net.b2[j]);
        for (std::size_t i = 0; i < h1; ++i) {
            const double w = std::fabs(net.W2[j * h1 + i]);
            moved += w * da1[i];
            err += w * ea1[i];
            mag += w * (t.a1_abs[i] + ea1[i]);
        }
        const double e = err + gamma(net.h1 + 1, u) * mag + static_cast<double>(h1) * eta;
        undecided2[j] = std::fabs(t.z2[j]) <= 2.0 * e;
        da2[j] = undecided2[j] ? (sb + flip) * 2.0 * e : sb * moved;
    }
    // reverse: the magnitudes of the chain rule (as backward_internal_net's) and their moves
    std::vector<double> dz2_abs(h2, 0.0), ddz2(h2, 0.0), dz1_abs(h1, 0.0), ddz1(h1, 0.0);
    for (std::size_t j = 0; j < h2; ++j) {
        double da2_abs = 0.0;
        for (std::size_t c = 0; c < C; ++c) {
            da2_abs += std::fabs(net.W3[c * h2 + j]) * g_abs[c];
            P[oW3 + c * h2 + j] += g_abs[c] * da2[j];
        }
        dz2_abs[j] = std::fabs(leaky_relu_derivative(t.z2[j], slope)) * da2_abs;
        if (undecided2[j]) ddz2[j] = flip * da2_abs;
        P[ob2 + j] += ddz2[j];
        for (std::size_t i = 0; i < h1; ++i) P[oW2 + j * h1 + i] += dz2_abs[j] * da1[i] + ddz2[j] * (t.a1_abs[i] + da1[i]);
    }
    for (std::size_t i = 0; i < h1; ++i) {
        double da1_abs = 0.0, dda1 = 0.0;
        for (std::size_t j = 0; j < h2; ++j) {
            da1_abs += std::fabs(net.W2[j * h1 + i]) * dz2_abs[j];
            dda1 += std::fabs(net.W2[j * h1 + i]) * ddz2[j];
        }
        dz1_abs[i] = std::fabs(leaky_relu_derivative(t.z1[i], slope)) * da1_abs;
        ddz1[i] = sb * dda1 + (undecided1[i] ? flip * (da1_abs + dda1) : 0.0);
        P[ob1 + i] += ddz1[i];
        for (std::size_t a = 0; a < 2; ++a) P[oW1 + i * 2 + a] += dz1_abs[i] * eD[a] + ddz1[i] * (absD[a] + eD[a]);
    }
}

}  // namespace

CcBackwardBound cc_backward_backend_error(const CcDescriptor& d, std::span<const double> src,
                                          const ContinuousKernel& kernel, std::span<const double> diff_dst,
                                          const CcBackward& r, double u) {
    CcBackwardBound b = cc_backward_error_bound(d, kernel, diff_dst, r, u, true);
    const InternalNet* net = kernel.internal_net();
    if (!net) return b;
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const AxisWindow windows[2] = {neighbour_window(projected_grid_axis(d, 0), KH),
                                   neighbour_window(projected_grid_axis(d, 1), KW)};
    const double s[2] = {d.scale[0].is_rational() ? d.scale[0].rational().to_double() : d.scale[0].value,
                         d.scale[1].is_rational() ? d.scale[1].rational().to_double() : d.scale[1].value};
    const double eta = underflow_error(u);
    std::vector<double> P(r.diff_theta.size(), 0.0), g_abs(static_cast<std::size_t>(CO * CI));
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow)
    for (std::int64_t jh = 0; jh < KH; ++jh)
    for (std::int64_t jw = 0; jw < KW; ++jw) {
        const std::int64_t mh = windows[0].first[oh] + jh, mw = windows[1].first[ow] + jw;
        if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;  // zero padding: N is 0, g is 0
        std::fill(g_abs.begin(), g_abs.end(), 0.0);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t co = 0; co < CO; ++co)
                for (std::int64_t ci = 0; ci < CI; ++ci)
                    g_abs[static_cast<std::size_t>(co * CI + ci)] +=
                        std::fabs(diff_dst[static_cast<std::size_t>(((n * CO + co) * OH + oh) * OW + ow)]) *
                        std::fabs(src[static_cast<std::size_t>(((n * CI + ci) * H + mh) * W + mw)]);
        perturb_pair(*net, windows[0].distance[static_cast<std::size_t>(oh * KH + jh)],
                     windows[1].distance[static_cast<std::size_t>(ow * KW + jw)],
                     distance_error_bound(oh, mh, s[0], H, OH, u), distance_error_bound(ow, mw, s[1], W, OW, u), g_abs, u,
                     eta, P);
    }
    // the batch and the distance pairs may be summed together, in any order
    const std::int64_t L = r.diff_theta_roundings + N * d.neighbours() * OH * OW;
    for (std::size_t i = 0; i < P.size(); ++i) {
        const double moved = P[i] * (1.0 + 0x1.0p-40);
        b.diff_theta[i] = moved + cc_sum_bound(L, r.diff_theta_magnitude[i] + moved, u) + static_cast<double>(L) * eta;
    }
    return b;
}

}  // namespace convcheck::reference::cc
