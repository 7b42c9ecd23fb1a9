// The continuous kernel K(dy, dx) of a CC layer: the learned Internal-Net K_theta, or an analytic
// stand-in so that CC can be checked against known resizers (the paper trains CC to imitate
// bicubic and Gaussian resizing, Sec. 6, and cites Keys' cubic convolution [7]).
//
// Analytic kernels are separable, K(dy, dx) = k(dy) k(dx), with
//   linear:   k(t) = max(0, 1 - |t|)                                   (support 2)
//   cubic:    Keys (1981) with a = -0.5:                               (support 4)
//             (a+2)|t|^3 - (a+3)|t|^2 + 1          for |t| <= 1
//             a|t|^3 - 5a|t|^2 + 8a|t| - 4a        for 1 < |t| < 2,   0 otherwise
//   gaussian: k(t) = exp(-t^2 / (2 sigma^2)), so K = exp(-(dy^2 + dx^2) / (2 sigma^2))  (the ABI's)
// Channel rule for analytic kernels: the same weight K(dy, dx) for every (cout, cin) pair.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck::reference::cc {

// k(t) of one axis for an analytic kernel (parameter: gaussian sigma).
double analytic_kernel_1d(CcKernel kind, double parameter, double t);

class ContinuousKernel {
public:
    // The Internal-Net.
    explicit ContinuousKernel(InternalNet net);
    // An analytic kernel for a Cin -> Cout layer.
    ContinuousKernel(CcKernel kind, double parameter, std::int64_t in_channels, std::int64_t out_channels);
    // The kernel d describes: for kernel=net, the Internal-Net with parameters theta (ABI order,
    // d.theta_elements() values); for an analytic kernel theta must be empty.
    static ContinuousKernel for_descriptor(const CcDescriptor& d, std::span<const double> theta);
    // The same from the ABI's f32 theta buffer (d.theta_elements() values, widened exactly; ignored for an
    // analytic kernel). Throws ConvError when kernel=net and theta is NULL.
    static ContinuousKernel for_buffer(const CcDescriptor& d, const float* theta);

    std::int64_t in_channels() const { return in_channels_; }
    std::int64_t out_channels() const { return out_channels_; }
    CcKernel kind() const { return kind_; }
    // The Internal-Net, or nullptr for an analytic kernel (the backward needs its parameters).
    const InternalNet* internal_net() const { return kind_ == CcKernel::internal_net ? &net_ : nullptr; }
    // K(dy, dx) for every channel pair: out[cout * Cin + cin], Cout * Cin values.
    void evaluate(double dy, double dx, std::span<double> out) const;
    // deltaW for every channel pair (out[cout * Cin + cin]): a bound on |fl_u(K(dy~, dx~)) - K(dy, dx)|
    // for a backend of unit roundoff u (underflow error eta) whose distances are within (ey, ex) of (dy, dx).
    // Defined in weight_error.cpp (the CC accuracy contract, weight_error.hpp).
    void evaluation_error(double dy, double dx, double ey, double ex, double u, double eta, std::span<double> out) const;

private:
    CcKernel kind_;
    double parameter_ = 0.0;
    std::int64_t in_channels_ = 1, out_channels_ = 1;
    InternalNet net_;
};

}  // namespace convcheck::reference::cc
