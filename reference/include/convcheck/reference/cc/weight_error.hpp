// The CC accuracy contract's weight term (docs/cc.md, "CC accuracy contract"): a rigorous bound on
// the error a backend makes when it computes the weights W[n, m] = K_theta(g_n - m) itself, in its
// own precision, from a grid it computes itself.
//
// A backend working in unit roundoff u (its accumulation type's) computes a distance D~ and then
// fl_u(K_theta(D~)). For every weight the reference bounds
//
//     deltaW(D) >= |fl_u(K_theta(D~)) - K_theta(D)|
//
// in three steps, each documented beside its code in weight_error.cpp:
//  1. the distance: g_n = n/s + (in-1)/2 - (out-1)/(2s) and D = g_n - m, evaluated in precision u,
//        |D~ - D| <= gamma_10(u) * (|n/s| + |(in-1)/2| + |(out-1)/(2s)| + |m|)        (k = 10, below)
//     A backend that computes the grid exactly (rationally) and rounds D once has |D~ - D| <= u|D|,
//     which the same bound covers.
//  2. the Internal-Net, layer by layer (elementwise, in double): for z = W h + b with fan-in f,
//        |z~ - z| <= |W| E_h + gamma_{f+1}(u) (|W| (|h| + E_h) + |b|)
//     LeakyReLU is max(1, |slope|)-Lipschitz, plus the rounding of slope (a double in the ABI) and
//     of slope * z~: gamma_2(u) |slope| (|z| + E_z).
//  3. an analytic kernel: the evaluation error of the documented formula, plus its Lipschitz
//     constant over [D - dD, D + dD] times the distance error (docs/cc.md gives each).
// Every bound is computed in double and rounded up (so that double rounding cannot make it smaller).
// The functions below take the unit roundoff to bound with; cc_weight_error passes u_eff = u + 2^-53,
// so its bound also covers the reference's own double evaluation of K_theta (the same bound at
// u = 2^-53, and the bounds are superadditive in u).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/rounding_error.hpp"
#include "convcheck/reference/cc/continuous_kernel.hpp"
#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck::reference::cc {

// gamma_k(u) = k u / (1 - k u), convcheck::gamma (convcheck/core/rounding_error.hpp): every CC bound of the
// reference (this header's, backward.hpp's, internal_net_backward.hpp's) uses that one.

// Underflow: an operation whose result is subnormal has an absolute error up to eta, the smallest
// subnormal of the backend's type (the standard model fl(x) = x(1 + delta) + eta; an exp within
// 1 ulp likewise). underflow_error(u) is that eta for the type of unit roundoff u (f16's 2^-24 for
// u >= 2^-11, bf16 included; f32's 2^-149; f64's 2^-1074). Every bound below adds eta per
// operation that can underflow.
double underflow_error(double u);

// The number of roundings the distance model allows (step 1).
inline constexpr std::int64_t kDistanceRoundings = 10;

// |D~ - D| for output n and neighbour m on one axis with scale s (step 1), at unit roundoff u.
double distance_error_bound(std::int64_t n, std::int64_t m, double s, std::int64_t in_size, std::int64_t out_size,
                            double u);

// |fl_u(K_theta(D~)) - K_theta(D)| for every channel pair of the Internal-Net (out[cout*Cin + cin]),
// at distance (dy, dx) with distance errors (ey, ex) (step 2).
void internal_net_weight_error(const InternalNet& net, double dy, double dx, double ey, double ex, double u, double eta,
                               std::span<double> out);

// The same for an analytic kernel K(dy, dx) = k(dy) k(dx) (gaussian: exp(-(dy^2 + dx^2)/(2 sigma^2)))
// (step 3); one value, the same for every channel pair.
double analytic_weight_error(CcKernel kind, double parameter, double dy, double dx, double ey, double ex, double u,
                             double eta);

// Per output [N, Cout, H', W']: weight_error = sum over the neighbours inside the input and the
// input channels of |N| * deltaW, for src [N, Cin, H, W] (canonical doubles) and a backend of unit
// roundoff u. The accuracy contract adds it to the discrete bound (conformance/accuracy).
// Computed only when asked: the reference's ConvResult does not carry it.
std::vector<double> cc_weight_error(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                                    double u);

// The same on the ABI's f32 buffers (as continuous_convolution): theta NULL for analytic kernels.
std::vector<double> cc_weight_error(const CcDescriptor& d, const float* src, const float* theta, double u);

// The backward pass's weight term, the same bound on the input gradient diff_src = sum dY W~: per element
// [N, Cin, H, W], the sum over the outputs o and taps whose neighbour it is, and the output channels, of
// |dY| * deltaW, for diff_dst [N, Cout, H', W'] (canonical doubles) and a backend of unit roundoff u.
std::vector<double> cc_weight_error_backward(const CcDescriptor& d, std::span<const double> diff_dst,
                                             const ContinuousKernel& kernel, double u);

}  // namespace convcheck::reference::cc
