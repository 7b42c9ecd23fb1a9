// The chain rule through block 3 of the CC layer, the Internal-Net K_theta (seed 004, Sec. 3.1 block 3,
// Sec. 3.2 and appendix A.1), for one distance pair D = (dy, dx):
//
//   z1 = W1 D + b1,  a1 = LeakyReLU(z1),  z2 = W2 a1 + b2,  a2 = LeakyReLU(z2),  w = W3 a2 + b3
//
// Sec. 3.2: "The only trainable parameters of CC are theta, the parameters of K_theta. The gradient is
// propagated from the CC output through the weights tensor W to them." Given g = dL/dw (one value per
// channel pair, index cout*Cin + cin), the literal reverse of the three 1x1 convolutions:
//
//   dW3 += g a2^T,  db3 += g;   dz2 = LeakyReLU'(z2) * (W3^T g)
//   dW2 += dz2 a1^T, db2 += dz2; dz1 = LeakyReLU'(z1) * (W2^T dz2)
//   dW1 += dz1 D^T,  db1 += dz1
//
// LeakyReLU'(z) = 1 for z > 0 and slope for z <= 0. At z = 0 the function has a kink (its one-sided
// slopes are slope and 1); the reference takes slope there, PyTorch's choice (leaky_relu_backward:
// z > 0 ? grad : grad * slope), the framework the paper trains in. The distances carry no gradient:
// the grid (Eq. 2) depends only on the scale and the sizes, never on a parameter.
//
// Beside every value the trace keeps its MAGNITUDE, the same evaluation with the absolute value of
// every input and factor (|W|, |b|, |D|, |g|, |LeakyReLU'|): a straight-line program of sums and
// products with at most L roundings on any path from an input to a result is within gamma_L(u) of
// its exact value times that magnitude (Higham, "Accuracy and Stability of Numerical Algorithms",
// Sec. 3.1-3.5), PROVIDED the computed LeakyReLU branches equal the exact ones. leaky_relu_margin()
// says when they do (docs/cc-backward.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck::reference::cc {

// The forward of one distance pair with what the chain rule needs, and the magnitudes.
struct InternalNetTrace {
    double input[2] = {0.0, 0.0};          // D = (dy, dx)
    std::vector<double> z1, a1, z2, a2;    // pre-activations and activations
    std::vector<double> z1_abs, a1_abs, z2_abs, a2_abs;  // magnitudes
};
InternalNetTrace trace_internal_net(const InternalNet& net, double dy, double dx);

// LeakyReLU'(z): 1 for z > 0, slope for z <= 0 (PyTorch's choice at the kink z = 0).
double leaky_relu_derivative(double z, double slope);

// The number of roundings on any path through the forward of the net (a1: 4, a2: h1 + 6, w: h1 + h2 + 8)
// and through backward_internal_net from g to every parameter's gradient (without the sum over
// distance pairs, which the caller counts).
std::int64_t internal_net_forward_roundings(const InternalNet& net);
std::int64_t internal_net_backward_roundings(const InternalNet& net);

// Adds J_theta(D)^T g to diff_theta and |J_theta(D)|^T g_abs to magnitude (both in the ABI theta order:
// W1, b1, W2, b2, W3, b3), for g = dL/dw at the traced distance pair and g_abs its magnitude.
void backward_internal_net(const InternalNet& net, const InternalNetTrace& trace, std::span<const double> g,
                           std::span<const double> g_abs, std::span<double> diff_theta, std::span<double> magnitude);

// How surely the computed LeakyReLU branches are the exact ones at this distance pair: the smallest
// |z~| / E_z over the pre-activations of both hidden layers, E_z a rigorous bound on |z~ - z| for a
// double evaluation (gamma of the roundings times the magnitude). Above 1, every branch (and so every
// LeakyReLU' the backward takes) is the exact one; at or below 1 a pre-activation may lie on the kink.
double leaky_relu_margin(const InternalNet& net, const InternalNetTrace& trace);

}  // namespace convcheck::reference::cc
