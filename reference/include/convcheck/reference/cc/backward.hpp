// The backward pass of the CC layer (seed 004), spec-literal, in double: the gradients of
//
//   L = <diff_dst, I'>,   I' = CC{I; theta, bias}   (diff_dst: an upstream gradient of I''s shape)
//
// with respect to the input I, every Internal-Net parameter theta (kernel=net) and the layer bias,
// as the literal chain rule through the paper's four blocks in reverse (Sec. 3.1, Sec. 3.2):
//
//   block 4, apply: I'[n,co,o] = bias[co] + sum_{ci,k} N[n,ci,k,o] W[co,ci,k,o]   (Eq. 3)
//       dN[n,ci,k,o] = sum_co dY[n,co,o] W[co,ci,k,o]     ("N (x) W": W broadcast over the batch)
//       dW[co,ci,k,o] = sum_n dY[n,co,o] N[n,ci,k,o]      (N broadcast over Cout)
//       dbias[co] = sum_{n,o} dY[n,co,o]
//   block 3, weights W = K_theta{D}: "The gradient is propagated from the CC output through the
//       weights tensor W to them [theta]" -> dtheta = sum_{k,o} J_theta(D[k,o])^T dW[:,:,k,o]
//       (internal_net_backward.hpp). Analytic kernels have no parameters: no dtheta.
//   block 2, neighbours: "Gradients need to also be propagated to previous layers through the CC
//       input. This is done easily through the neighbors extraction since it is just slicing (each
//       neighbour neuron is actually a copy of an input neuron)." -> dI[n,ci,m] = sum of dN[n,ci,k,o]
//       over the (k, o) whose neighbour is the input pixel m; zero-padding neighbours reach no pixel.
//   block 1, the projected grid (Eq. 2): a function of the scale and the sizes only, so no parameter
//       or input receives a gradient through g, nor through the distances D = g - m.
//
// Where the layer is not differentiable (docs/cc-backward.md): LeakyReLU at 0 (the reference takes the
// slope, as PyTorch); the window edges, which move only with the scale, never with src or theta.
//
// Beside each gradient: its magnitude (the same sums of |terms|) and what bounds its rounding,
// so that a check can use a derived bound (backward_error.cpp, cc_backward_error_bound).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_kernel.hpp"

namespace convcheck::reference::cc {

struct CcBackward {
    std::vector<double> diff_src, diff_src_magnitude;  // [N, Cin, H, W]; magnitude sum |dY * W|
    std::vector<std::int64_t> diff_src_terms;          // the products dY * W summed into each
    std::vector<double> diff_theta, diff_theta_magnitude;  // the ABI theta order; empty unless kernel=net
    std::int64_t diff_theta_roundings = 0;             // a bound on the roundings along any path to a dtheta
    std::vector<double> diff_bias, diff_bias_magnitude;    // [Cout]; empty unless d.has_bias
    std::int64_t diff_bias_terms = 0;                  // N * H' * W'
    // kernel=net: the smallest leaky_relu_margin over every distance pair (internal_net_backward.hpp);
    // above 1, every LeakyReLU' taken is the exact one. Infinity for analytic kernels.
    double leaky_relu_margin = std::numeric_limits<double>::infinity();
};

// The gradients on canonical doubles: src [N, Cin, H, W], diff_dst [N, Cout, H', W']. The bias does not
// enter (L is affine in it). Blocks 2-4 run on chunks of output rows as the forward does
// (cc_four_blocks, rows_per_chunk: 0 = the forward's memory rule); every sum over output pixels runs
// row by row, so chunking never changes a bit of the result.
CcBackward cc_backward(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                       std::span<const double> diff_dst, std::int64_t rows_per_chunk = 0);

// The same on the ABI's buffers (as continuous_convolution): src f32 [N][Cin][H][W], theta f32 in the
// ABI order (NULL for analytic kernels), diff_dst f32 [N][Cout][H'][W'], each widened to double exactly.
// Validates d first (throws ConvError).
CcBackward cc_backward(const CcDescriptor& d, const float* src, const float* theta, const float* diff_dst);

// Rigorous per-element bounds on |computed - exact| of cc_backward's gradients, the exact ones being
// those of the layer at the reference's double distances (docs/cc-backward.md, "Rounding"):
//   diff_src:   sum |dY| deltaW(D) + gamma_{T+1} M / (1 - gamma_{T+1})   (deltaW: weight_error.hpp at u = 2^-53)
//   diff_theta: gamma_L M / (1 - gamma_L), L = diff_theta_roundings; valid when leaky_relu_margin > 1
//   diff_bias:  gamma_T M / (1 - gamma_T)
struct CcBackwardBound {
    std::vector<double> diff_src, diff_theta, diff_bias;
};
CcBackwardBound cc_backward_error_bound(const CcDescriptor& d, const ContinuousKernel& kernel,
                                       std::span<const double> diff_dst, const CcBackward& r);

// The same derivation at unit roundoff u; with distances_rounded, the distances are an evaluation's own
// (weight_error.hpp's distance model at u) rather than the reference's. diff_src and diff_bias are then
// bounds for ANY evaluation of their sums at u (any order, FMA or not); diff_theta is the reference's
// (its roundings count and branches): for a backend's theta gradient see cc_backward_backend_error.
CcBackwardBound cc_backward_error_bound(const CcDescriptor& d, const ContinuousKernel& kernel,
                                       std::span<const double> diff_dst, const CcBackward& r, double u,
                                       bool distances_rounded);

// gamma_k(u) M / (1 - gamma_k(u)), rounded up: the bound of a sum of products with at most k roundings
// on any path, of computed magnitude M.
double cc_sum_bound(std::int64_t k, double computed_magnitude, double u);

// The CC backward accuracy contract's term for a backend (backward_backend_error.cpp, docs/cc-backward.md,
// "The runner's contract"): rigorous bounds on |computed - exact| for a backend that evaluates the
// gradients in unit roundoff u, computing the distances itself:
//   diff_src, diff_bias: cc_backward_error_bound at u with the backend's distances (any summation order);
//   diff_theta: P + gamma_L(u) (M + P) / (1 - gamma_L(u)), where P bounds what the backend's distances
//     and any LeakyReLU branch its rounding cannot decide move the gradient (the chain rule's
//     perturbation, per distance pair), and L = diff_theta_roundings + N K H' W' allows the sums over
//     the batch and over the distance pairs to be merged in any order.
// The reference's own error is not included (add cc_backward_error_bound's).
CcBackwardBound cc_backward_backend_error(const CcDescriptor& d, std::span<const double> src,
                                          const ContinuousKernel& kernel, std::span<const double> diff_dst,
                                          const CcBackward& r, double u);

}  // namespace convcheck::reference::cc
