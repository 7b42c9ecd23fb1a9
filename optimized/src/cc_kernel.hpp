// Internal: the CC layer's continuous kernel evaluated over many distance pairs at once: its
// parameters (cc_kernel.cpp), the analytic kernels (cc_kernel.cpp) and the Internal-Net (cc_net.cpp,
// the Eigen unit).
#pragma once

#include <cstdint>
#include <vector>

// Declared, not included: the ISA kernel files include this header and see only plain structs, so
// that a change to the core descriptor headers does not recompile them (core/cc_descriptor.hpp).
namespace convcheck {
enum class CcKernel : int;
struct CcDescriptor;
}  // namespace convcheck

namespace convcheck::optimized::detail {

struct CcKernelParams {
    CcKernel kind{};  // CcKernel::internal_net (0); cc_kernel.cpp checks it
    double parameter = 0.0;                       // gaussian sigma
    std::int64_t in_channels = 1, out_channels = 1, h1 = 16, h2 = 16;
    double slope = 0.01;
    std::vector<double> W1, b1, W2, b2, W3, b3;  // the Internal-Net, theta order, widened from f32
};

// d's kernel; theta (the Internal-Net's d.theta_elements() f32 values in the ABI order) widened to double.
CcKernelParams cc_kernel_params(const CcDescriptor& d, const float* theta);

// The weights for `count` distance pairs (dy, dx) (pairs[2*j], pairs[2*j+1]), in double, as
// out[j * Cin*Cout + cout*Cin + cin] (the Internal-Net's channel cout*Cin + cin). For an analytic
// kernel every channel pair gets k(dy) k(dx). The Internal-Net runs as three Eigen GEMMs over all
// pairs at once (cc_net.cpp, compiled with -mavx2 -mfma: call only when the CPU has both).
// evaluate_kernel calls the one of p.kind.
void evaluate_kernel(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out);
void evaluate_internal_net(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out);
void evaluate_analytic(const CcKernelParams& p, const double* pairs, std::int64_t count, double* out);
// k(t), one axis of an analytic kernel (linear, cubic, Gaussian with sigma): the weight at (dy, dx)
// is analytic_1d(dy) * analytic_1d(dx), in double.
double analytic_1d(CcKernel kind, double sigma, double t);

}  // namespace convcheck::optimized::detail
