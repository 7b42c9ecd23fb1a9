// The Internal-Net K_theta of a CC layer (seed 004, Sec. 3.1 block 3 and appendix A.1).
//
// "The input to InternalNet are distances ... computed using 3 consecutive 2D 1x1 convolutions"
//   Conv 16 1x1+1, Conv 16 1x1+1, Conv C_final 1x1+1, C_final = Cin x Cout        (Table 2)
// "Each Conv layer of K_theta except the last one, is followed by LeakyReLU activation."
// A 1x1 convolution on a single position is an affine map, so for one distance pair (dy, dx):
//   a1 = LeakyReLU(W1 (dy, dx) + b1),  a2 = LeakyReLU(W2 a1 + b2),  w = W3 a2 + b3
// and output channel cout*Cin + cin is the weight for (cout, cin) ("simple reshaping of the
// Internal Net's output: [K, Cout x Cin, H', W'] -> [1, Cout, Cin, K, H', W']").
//
// theta, the ABI order (conformance/include/convcheck/plugin.h, convcheck_cc_args):
//   W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]
// The paper fixes neither the hidden widths' alternatives, the LeakyReLU slope nor the
// initialisation; they are descriptor parameters and initialise_internal_net() documents its own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::reference::cc {

struct InternalNet {
    std::int64_t in_channels = 1, out_channels = 1;  // Cin, Cout: C_final = Cin * Cout
    std::int64_t h1 = 16, h2 = 16;                   // hidden widths
    double leaky_relu_slope = 0.01;
    std::vector<double> W1, b1, W2, b2, W3, b3;      // row-major, shapes as in the theta order

    // K_theta(dy, dx): C_final values, out[cout*Cin + cin].
    void evaluate(double dy, double dx, std::span<double> out) const;
    // The parameters flattened in the ABI order.
    std::vector<double> theta() const;
};

// The net that d describes, with parameters taken from theta (ABI order). Throws ConvError when
// d.kernel is not internal_net or theta does not have d.theta_elements() values.
InternalNet internal_net_from_theta(const CcDescriptor& d, std::span<const double> theta);

// Deterministic initialisation from a seed (docs/cc.md), in the theta order, drawn from
// std::mt19937_64(seed) (a generator the C++ standard specifies bit for bit):
//   W1, b1 ~ U(-1/sqrt(2), 1/sqrt(2)); W2, b2 ~ U(-1/sqrt(h1), ...); W3 ~ U(-1/sqrt(h2), ...)
//     (PyTorch's default Conv2d initialisation, bound 1/sqrt(fan_in));
//   b3 ~ Normal(0, 1/(3 * Cin * k_h * k_w)): the paper's "initializing the biases of the last layer
//     of the InternalNet using a normal distribution with the required variance", the variance of
//     a default-initialised Cin -> Cout k_h x k_w Conv2d weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
// Uniforms use the top 53 bits of one draw; normals use Box-Muller on two draws.
InternalNet initialise_internal_net(const CcDescriptor& d, std::uint64_t seed);

// The parameter file (JSON, docs/cc.md):
//   {"format": "convcheck-cc-internal-net", "version": 1, "in_channels": Cin, "out_channels": Cout,
//    "hidden_widths": [h1, h2], "W1": [[..2..] x h1], "b1": [h1], "W2": [[..h1..] x h2], "b2": [h2],
//    "W3": [[..h2..] x Cin*Cout], "b3": [Cin*Cout]}
// The LeakyReLU slope belongs to the descriptor, not to the file.
void save_internal_net(const InternalNet& net, const std::string& path);
// Loads and checks every shape against d; throws ConvError naming the file, the entry, the shape
// found and the shape required.
InternalNet load_internal_net(const CcDescriptor& d, const std::string& path);

}  // namespace convcheck::reference::cc
