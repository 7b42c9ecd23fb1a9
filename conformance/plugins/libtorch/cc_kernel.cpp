// Block 3 of the torch CC layer (cc_kernel.hpp).
#include "cc_kernel.hpp"

#include <ATen/ops/abs.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>

#include <cstdint>
#include <stdexcept>

namespace convcheck_libtorch::cc {

namespace {

using convcheck::CcKernel;

// The Internal-Net on f32 distance pairs x [P, 2]: [P, Cin * Cout], output cin * Cout + cout.
at::Tensor internal_net(const convcheck::CcDescriptor& d, const at::Tensor& x, const at::Tensor& theta) {
    const std::int64_t h1 = d.hidden_widths[0], h2 = d.hidden_widths[1], c = d.in_channels * d.out_channels;
    std::int64_t offset = 0;
    auto take = [&](std::int64_t count) {
        const at::Tensor t = theta.narrow(0, offset, count);
        offset += count;
        return t;
    };
    // the ABI order: W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout] (a width of 1 keeps its
    // matrices 2-D)
    const at::Tensor W1 = take(h1 * 2).view({h1, 2}), b1 = take(h1), W2 = take(h2 * h1).view({h2, h1}), b2 = take(h2),
                     W3 = take(c * h2).view({c, h2}), b3 = take(c);
    const at::Tensor a1 = at::leaky_relu(at::linear(x, W1, b1), d.leaky_relu_slope);
    const at::Tensor a2 = at::leaky_relu(at::linear(a1, W2, b2), d.leaky_relu_slope);
    // rows cout*Cin + cin of W3 and b3 taken as cin*Cout + cout
    const std::int64_t CO = d.out_channels, CI = d.in_channels;
    return at::linear(a2, W3.view({CO, CI, h2}).transpose(0, 1).reshape({c, h2}), b3.view({CO, CI}).t().reshape({c}));
}

// k(t) of one axis for an analytic kernel, f32 t.
at::Tensor analytic_1d(const convcheck::CcDescriptor& d, const at::Tensor& t) {
    const at::Tensor x = at::abs(t);
    switch (d.kernel) {
        case CcKernel::linear: return at::clamp_min(1.0 - x, 0.0);
        case CcKernel::cubic: {
            // Keys, a = -0.5, Horner: (a+2)x^3 - (a+3)x^2 + 1 on [0, 1]; ax^3 - 5ax^2 + 8ax - 4a on (1, 2)
            const at::Tensor inner = (x * 1.5 - 2.5) * x * x + 1.0;
            const at::Tensor outer = ((x * -0.5 + 2.5) * x - 4.0) * x + 2.0;
            return at::where(x <= 1.0, inner, at::where(x < 2.0, outer, at::zeros_like(x)));
        }
        default: break;
    }
    throw std::logic_error("analytic_1d: not a separable analytic kernel");
}

}  // namespace

at::Tensor kernel_weights(const convcheck::CcDescriptor& d, const at::Tensor& dy, const at::Tensor& dx,
                          const at::Tensor& theta) {
    const at::Tensor y = dy.to(at::kFloat), x = dx.to(at::kFloat);
    const std::int64_t P = y.size(0), CO = d.out_channels, CI = d.in_channels;
    if (d.kernel == CcKernel::internal_net) return internal_net(d, at::stack({y, x}, 1), theta).view({P, CI, CO});
    at::Tensor k;
    if (d.kernel == CcKernel::gaussian) {
        // exp(-(dy^2 + dx^2) / (2 sigma^2)), sigma rounded to f32 and 2 sigma^2 formed in f32
        const float sigma = static_cast<float>(d.kernel_parameter);
        const float denominator = 2.0f * (sigma * sigma);
        k = at::exp(-((y * y + x * x) / denominator));
    } else {
        k = analytic_1d(d, y) * analytic_1d(d, x);
    }
    return k.view({P, 1, 1}).expand({P, CI, CO});
}

}  // namespace convcheck_libtorch::cc
