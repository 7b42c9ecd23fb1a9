// Test helpers for the CC backward reference: dyadic data (so that x +- h is exact and, on dyadic
// layers, every sum is exact), the scalar L = <diff_dst, CC(src)> the gradients are of, and the
// LeakyReLU branches the Internal-Net takes over a layer's distances.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/internal_net_backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"

namespace convcheck::cctest {

// `count` values k * 2^-bits with |value| <= limit, from a seed.
inline std::vector<double> dyadic(std::int64_t count, std::uint64_t seed, int bits, double limit) {
    std::mt19937_64 rng(seed);
    const double steps = std::floor(std::ldexp(limit, bits));
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) {
        const double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
        x = std::ldexp(std::round((2.0 * unit - 1.0) * steps), -bits);
    }
    return v;
}

// An Internal-Net of d with parameters on the 2^-bits grid within +-limit.
inline reference::cc::InternalNet dyadic_net(const CcDescriptor& d, std::uint64_t seed, int bits, double limit) {
    return reference::cc::internal_net_from_theta(d, dyadic(d.theta_elements(), seed, bits, limit));
}

inline reference::cc::ContinuousKernel kernel_with(const CcDescriptor& d, const reference::cc::InternalNet* net) {
    if (net) return reference::cc::ContinuousKernel(*net);
    return reference::cc::ContinuousKernel(d.kernel, d.kernel_parameter, d.in_channels, d.out_channels);
}

// <a, b> in double, in index order.
inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

// The distances (dy, dx) of every (k, o) of d, neighbours outside the input included (the backward
// evaluates the net there too).
inline std::vector<std::pair<double, double>> layer_distances(const CcDescriptor& d) {
    const std::vector<double> zeros(static_cast<std::size_t>(d.src_elements()), 0.0);
    const auto nb = reference::cc::extract_neighbours(d, reference::cc::projected_grid(d), zeros);
    const std::int64_t K = d.neighbours(), P = d.output_size[0] * d.output_size[1];
    std::vector<std::pair<double, double>> D;
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t p = 0; p < P; ++p)
            D.emplace_back(nb.distances[(k * 2 + 0) * P + p], nb.distances[(k * 2 + 1) * P + p]);
    return D;
}

// The LeakyReLU branches (z > 0) of both hidden layers over the layer's distances, and the smallest
// leaky_relu_margin among them.
struct Branches {
    std::vector<bool> positive;
    double margin = INFINITY;
};
inline Branches branches(const reference::cc::InternalNet& net, const std::vector<std::pair<double, double>>& D) {
    Branches b;
    for (const auto& [dy, dx] : D) {
        const auto t = reference::cc::trace_internal_net(net, dy, dx);
        for (double z : t.z1) b.positive.push_back(z > 0.0);
        for (double z : t.z2) b.positive.push_back(z > 0.0);
        b.margin = std::min(b.margin, reference::cc::leaky_relu_margin(net, t));
    }
    return b;
}

}  // namespace convcheck::cctest
