// Central finite differences of the CC forward reference against the CC backward reference, under a
// derived bound (docs/cc-backward.md, "Finite differences"): along one coordinate p_i of (src, theta,
// bias), L = <diff_dst, CC> is AFFINE on [p_i - h, p_i + h] as long as no LeakyReLU pre-activation
// changes sign there (CC is linear in src and in bias; each theta entry enters its layer linearly and
// LeakyReLU is linear on each side of 0). So the central difference has NO truncation error, and
//   |FD~ - g~| <= (R(p + h e_i) + R(p - h e_i)) / (2h) + 2u |FD~| + B_g
// where R bounds the forward's rounding of L (the CC accuracy contract at u = 2^-53) and B_g the
// backward's (cc_backward_error_bound). Data are dyadic, so p_i +- h is exact and the step exactly 2h.
// Used by backward_finite_difference_test.cpp and, on the cc suite's layers, by
// conformance/accuracy/tests/cc_suite_backward_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "convcheck/reference_tests/backward_fixtures.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace convcheck::cctest::fd {

using namespace convcheck::reference::cc;


constexpr double u = 0x1.0p-53;
constexpr double kThetaStep = 0x1.0p-12;  // theta: small, so that few steps cross a LeakyReLU kink
constexpr double kLinearStep = 1.0;      // src and bias: L is affine in them everywhere

// L = <dY, CC(src)> as computed in double, and R >= |L~ - L|: per output the contract's
// B_o = E_o (1 + gamma) + gamma_{T+1} (M_o + E_o) / (1 - gamma_{T+1}), E_o the weight term at u = 2^-53
// (cc_weight_error with u = 0: the reference's own double evaluation of K), then the dot product's own
// rounding, gamma_{P+1} sum |dY y~|. The whole bound is rounded up by 1 + 2^-40.
struct Objective {
    double value = 0.0, error = 0.0;
};
inline Objective objective(const CcDescriptor& d, const std::vector<double>& src, const ContinuousKernel& kernel,
                    const std::vector<double>& bias, const std::vector<double>& dY) {
    const ConvResult y = cc_four_blocks(d, src, kernel, bias);
    const std::vector<double> E = cc_weight_error(d, src, kernel, 0.0);
    Objective L;
    double magnitude = 0.0;
    for (std::size_t o = 0; o < y.dst.size(); ++o) {
        L.value += dY[o] * y.dst[o];
        magnitude += std::fabs(dY[o] * y.dst[o]);
        const double g = gamma(y.terms[o] + 1, u);
        L.error += std::fabs(dY[o]) * (E[o] * (1.0 + g) + g * (y.magnitude[o] + E[o]) / (1.0 - g));
    }
    L.error += gamma(static_cast<std::int64_t>(y.dst.size()) + 1, u) * magnitude;
    L.error *= 1.0 + 0x1.0p-40;
    return L;
}

enum class Part { src, theta, bias };
inline const char* name(Part p) { return p == Part::src ? "diff_src" : p == Part::theta ? "diff_theta" : "diff_bias"; }

struct Layer {
    CcDescriptor d;
    std::vector<double> src, theta, bias, dY;
    std::uint64_t seed = 0;
    std::string repro() const { return cctest::reproducer(d, seed); }
    ContinuousKernel kernel(const std::vector<double>& t) const { return ContinuousKernel::for_descriptor(d, t); }
};

inline Layer layer(const CcDescriptor& d, std::uint64_t seed) {
    Layer l{d, cctest::dyadic(d.src_elements(), seed, 20, 1.0), {}, {}, cctest::dyadic(d.dst_elements(), seed + 3, 20, 1.0), seed};
    if (d.kernel == CcKernel::internal_net) l.theta = cctest::dyadic(d.theta_elements(), seed + 1, 20, 1.0);
    l.bias = d.has_bias ? cctest::dyadic(d.out_channels, seed + 2, 20, 1.0) : std::vector<double>{};
    return l;
}

struct Tally {
    std::int64_t checked = 0, on_a_kink = 0;
};

// One coordinate: FD of the forward against the backward's gradient g~ with bound B_g.
inline void check_coordinate(const Layer& l, Part part, std::size_t i, double g, double bound_g, Tally& tally) {
    const double h = part == Part::theta ? kThetaStep : kLinearStep;
    Layer plus = l, minus = l;
    std::vector<double>& p = part == Part::src ? plus.src : part == Part::theta ? plus.theta : plus.bias;
    std::vector<double>& m = part == Part::src ? minus.src : part == Part::theta ? minus.theta : minus.bias;
    p[i] += h;  // exact: dyadic data
    m[i] -= h;
    if (part == Part::theta) {
        // affine on the interval only if no pre-activation changes sign: the same decided branches at
        // both ends (each pre-activation is affine in one theta entry while the branches before it hold)
        const auto D = cctest::layer_distances(l.d);
        const auto at_plus = cctest::branches(internal_net_from_theta(l.d, plus.theta), D);
        const auto at_minus = cctest::branches(internal_net_from_theta(l.d, minus.theta), D);
        if (at_plus.margin <= 1.0 || at_minus.margin <= 1.0 || at_plus.positive != at_minus.positive) {
            ++tally.on_a_kink;
            return;
        }
    }
    const Objective Lp = objective(l.d, plus.src, plus.kernel(plus.theta), plus.bias, l.dY);
    const Objective Lm = objective(l.d, minus.src, minus.kernel(minus.theta), minus.bias, l.dY);
    const double fd = (Lp.value - Lm.value) / (2.0 * h);
    const double bound = ((Lp.error + Lm.error) / (2.0 * h) + 2.0 * u * std::fabs(fd) + bound_g) * (1.0 + 0x1.0p-40);
    ++tally.checked;
    ASSERT_LE(std::fabs(fd - g), bound) << name(part) << "[" << i << "]: finite difference " << fd << ", backward " << g
                                        << ", bound " << bound << " (forward " << Lp.error << ", " << Lm.error
                                        << ", backward " << bound_g << "); " << l.repro();
}

// Checks the chosen coordinates (all when `all`, else up to `sample` of src and theta, chosen by rng).
inline Tally check_layer(const Layer& l, bool all, std::mt19937_64& rng, std::size_t sample = 12) {
    const ContinuousKernel kernel = l.kernel(l.theta);
    const CcBackward r = cc_backward(l.d, l.src, kernel, l.dY);
    const CcBackwardBound b = cc_backward_error_bound(l.d, kernel, l.dY, r);
    Tally tally;
    auto pick = [&](std::size_t count) {
        std::vector<std::size_t> at(count);
        for (std::size_t i = 0; i < count; ++i) at[i] = i;
        if (!all && count > sample) {
            std::shuffle(at.begin(), at.end(), rng);
            at.resize(sample);
        }
        return at;
    };
    for (std::size_t i : pick(r.diff_src.size())) {
        check_coordinate(l, Part::src, i, r.diff_src[i], b.diff_src[i], tally);
        if (::testing::Test::HasFatalFailure()) return tally;
    }
    for (std::size_t i = 0; i < r.diff_bias.size(); ++i) {
        check_coordinate(l, Part::bias, i, r.diff_bias[i], b.diff_bias[i], tally);
        if (::testing::Test::HasFatalFailure()) return tally;
    }
    if (l.d.kernel != CcKernel::internal_net) {
        EXPECT_TRUE(r.diff_theta.empty()) << l.repro();
        return tally;
    }
    EXPECT_EQ(static_cast<std::int64_t>(r.diff_theta.size()), l.d.theta_elements()) << l.repro();
    if (r.leaky_relu_margin <= 1.0) {  // a branch at theta itself is undecided: B_g does not hold
        tally.on_a_kink += static_cast<std::int64_t>(r.diff_theta.size());
        return tally;
    }
    for (std::size_t i : pick(r.diff_theta.size())) {
        check_coordinate(l, Part::theta, i, r.diff_theta[i], b.diff_theta[i], tally);
        if (::testing::Test::HasFatalFailure()) return tally;
    }
    return tally;
}

}  // namespace convcheck::cctest::fd
