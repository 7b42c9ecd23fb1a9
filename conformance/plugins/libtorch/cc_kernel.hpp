// Block 3 of the torch CC layer (cc_torch.hpp): the weights W = K(D) of distance pairs, in f32.
#pragma once

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck_libtorch::cc {

// K(dy, dx) for P distance pairs (dy, dx: double [P], rounded once to f32 here): f32 [P, Cin, Cout] (the
// layout the methods multiply with: a [Cin, Cout] matrix per pair).
//  - the Internal-Net (seed 004, appendix A.1: "3 consecutive 2D 1x1 convolutions", LeakyReLU after all
//    but the last): at::linear 2 -> h1, at::leaky_relu, at::linear h1 -> h2, at::leaky_relu,
//    at::linear h2 -> Cin*Cout, with theta's slices in the ABI order as the weights; output channel
//    cout*Cin + cin is the weight of (cout, cin) (the last layer's rows are taken in (cin, cout) order, a
//    reordering of W3 and b3, so that its output is [P, Cin, Cout] without a copy of the weights);
//  - an analytic kernel K = k(dy) k(dx) (docs/cc.md: linear max(0, 1-|t|); Keys cubic, a = -0.5, by Horner;
//    Gaussian exp(-(dy^2 + dx^2) / (2 sigma^2))), the same weight for every channel pair (an expanded view).
// Differentiable with respect to theta (the distances carry no gradient).
at::Tensor kernel_weights(const convcheck::CcDescriptor& d, const at::Tensor& dy, const at::Tensor& dx,
                          const at::Tensor& theta);

}  // namespace convcheck_libtorch::cc
