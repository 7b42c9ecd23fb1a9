#include "convcheck/reference/cc/continuous_kernel.hpp"

#include <algorithm>
#include <cmath>

namespace convcheck::reference::cc {

double analytic_kernel_1d(CcKernel kind, double parameter, double t) {
    const double x = std::fabs(t);
    switch (kind) {
        case CcKernel::linear: return std::max(0.0, 1.0 - x);
        case CcKernel::cubic: {
            constexpr double a = -0.5;  // Keys (1981)
            if (x <= 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
            if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
            return 0.0;
        }
        case CcKernel::gaussian: return std::exp(-(t * t) / (2.0 * parameter * parameter));
        case CcKernel::internal_net: break;
    }
    throw ConvError("kernel", std::string(to_string(kind)), "is not an analytic kernel (linear, cubic, gaussian)");
}

ContinuousKernel::ContinuousKernel(InternalNet net)
    : kind_(CcKernel::internal_net), in_channels_(net.in_channels), out_channels_(net.out_channels), net_(std::move(net)) {}

ContinuousKernel::ContinuousKernel(CcKernel kind, double parameter, std::int64_t in_channels, std::int64_t out_channels)
    : kind_(kind), parameter_(parameter), in_channels_(in_channels), out_channels_(out_channels) {
    (void)analytic_kernel_1d(kind, parameter, 0.0);  // rejects internal_net here
}

ContinuousKernel ContinuousKernel::for_descriptor(const CcDescriptor& d, std::span<const double> theta) {
    if (d.kernel == CcKernel::internal_net) return ContinuousKernel(internal_net_from_theta(d, theta));
    if (!theta.empty())
        throw ConvError("theta", std::to_string(theta.size()) + " values",
                        "must be empty for the analytic kernel " + std::string(to_string(d.kernel)));
    return ContinuousKernel(d.kernel, d.kernel_parameter, d.in_channels, d.out_channels);
}

ContinuousKernel ContinuousKernel::for_buffer(const CcDescriptor& d, const float* theta) {
    if (d.kernel != CcKernel::internal_net) return for_descriptor(d, {});
    if (theta == nullptr) throw ConvError("theta", "NULL", "kernel=net needs the Internal-Net parameters");
    const std::vector<double> theta64(theta, theta + d.theta_elements());  // f32 -> double: exact
    return for_descriptor(d, theta64);
}

void ContinuousKernel::evaluate(double dy, double dx, std::span<double> out) const {
    if (kind_ == CcKernel::internal_net) {
        net_.evaluate(dy, dx, out);
        return;
    }
    // separable: K(dy, dx) = k(dy) k(dx), the same for every (cout, cin)
    const double w = analytic_kernel_1d(kind_, parameter_, dy) * analytic_kernel_1d(kind_, parameter_, dx);
    std::fill(out.begin(), out.end(), w);
}

}  // namespace convcheck::reference::cc
