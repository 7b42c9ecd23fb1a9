// The CC layer's continuous kernel: its parameters from the descriptor and theta, and the analytic
// kernels (linear, cubic, Gaussian); the Internal-Net is in cc_net.cpp (the Eigen unit).
#include <algorithm>
#include <cmath>

#include "cc_kernel.hpp"

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::optimized::detail {

// CcKernelParams::kind{} (cc_kernel.hpp) is the Internal-Net.
static_assert(CcKernel{} == CcKernel::internal_net);

using i64 = std::int64_t;

CcKernelParams cc_kernel_params(const CcDescriptor& d, const float* theta) {
    CcKernelParams p;
    p.kind = d.kernel;
    p.parameter = d.kernel_parameter;
    p.in_channels = d.in_channels;
    p.out_channels = d.out_channels;
    p.h1 = d.hidden_widths[0];
    p.h2 = d.hidden_widths[1];
    p.slope = d.leaky_relu_slope;
    if (d.kernel != CcKernel::internal_net) return p;
    const i64 c = d.in_channels * d.out_channels;
    const float* at = theta;
    const auto take = [&](std::vector<double>& v, i64 n) {
        v.assign(at, at + n);
        at += n;
    };
    take(p.W1, p.h1 * 2);
    take(p.b1, p.h1);
    take(p.W2, p.h2 * p.h1);
    take(p.b2, p.h2);
    take(p.W3, c * p.h2);
    take(p.b3, c);
    return p;
}

// k(t) of the analytic kernels (continuous_kernel.hpp of the reference states the same formulas).
double analytic_1d(CcKernel kind, double sigma, double t) {
    const double x = std::fabs(t);
    switch (kind) {
    case CcKernel::linear: return std::max(0.0, 1.0 - x);
    case CcKernel::cubic: {
        constexpr double a = -0.5;  // Keys (1981)
        if (x <= 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
        if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
        return 0.0;
    }
    case CcKernel::gaussian: return std::exp(-(t * t) / (2.0 * sigma * sigma));
    case CcKernel::internal_net: break;
    }
    return 0.0;
}

void evaluate_analytic(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out) {
    const i64 c = p.in_channels * p.out_channels;
    for (i64 j = 0; j < count; ++j) {
        const double w = analytic_1d(p.kind, p.parameter, pairs[2 * j]) * analytic_1d(p.kind, p.parameter, pairs[2 * j + 1]);
        std::fill(out + j * c, out + (j + 1) * c, w);
    }
}

void evaluate_kernel(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out) {
    if (p.kind == CcKernel::internal_net)
        evaluate_internal_net(p, pairs, count, out);
    else
        evaluate_analytic(p, pairs, count, out);
}

}  // namespace convcheck::optimized::detail
