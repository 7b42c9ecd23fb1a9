// The optimized backward pass of the continuous convolution (CC) layer (seed 004, Sec. 3.2), f32,
// NCHW: for an upstream gradient diff_dst of the layer's output, the gradients with respect to the
// input (every kernel family), the Internal-Net's parameters theta (kernel=net) and the bias (bias=1).
// The reference it is checked against: reference/cc/backward.hpp (docs/cc-backward.md).
//
// The same algebra as the forward's chunked method (cc_plan.hpp): the Internal-Net's last layer is
// linear, so no weight is ever formed. Per chunk of output pixels the hidden features h of its distance
// pairs, per image Z, S (the input contracted with h) and the chunk's diff_dst, then
//   d[W3 | b3] += dY^T [Z | S]  (over pixels),   [dZ | dS] = dY [W3 | b3]  (one GEMM),
//   dN = dS + h . dZ  -> diff_src at every neighbour,   dh += N . dZ  (over the batch),
// and the hidden layers' reverse per distance pair (LeakyReLU'(z) = 1 for z > 0, else the slope: the
// reference's and PyTorch's convention at the kink). Analytic kernels give every channel pair the same
// weight: diff_src is the same for every input channel, sum_{tap, o} w dY summed over Cout.
// At a rational scale the Internal-Net runs as the forward's polyphase method does: p_h * p_w weight
// sets, per phase d[W] += dY^T patches and dPatches = dY W (GEMMs the size of a discrete convolution's),
// then the Internal-Net's reverse over the p_h * p_w * K distance pairs, in double.
//
// Deterministic for any thread count: output rows are cut into bands fixed by the descriptor, every
// sum runs in one fixed order, diff_src is written by even bands, then odd ones (two bands of one
// parity never share an input row), and the parameter gradients are per-band partial sums (double)
// added in band order. docs/optimized.md, "CC backward", has the orders.
#pragma once

#include <cstdint>
#include <memory>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/optimized/cc_plan.hpp"

namespace convcheck::optimized {

class CcBackwardPlan {
public:
    // Validates d (throws ConvError). theta: d.theta_elements() f32 values in the ABI order
    // W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout], null for an analytic
    // kernel. options as CcPlan's: automatic takes the forward's choice (polyphase for the Internal-Net
    // on a rational scale with at most 256 phases, chunked otherwise); polyphase needs the Internal-Net
    // and a rational scale (else ConvError).
    CcBackwardPlan(const CcDescriptor& d, const float* theta, CcOptions options = {});
    ~CcBackwardPlan();
    CcBackwardPlan(CcBackwardPlan&&) noexcept;
    CcBackwardPlan& operator=(CcBackwardPlan&&) noexcept;

    // src [N][Cin][H][W], diff_dst [N][Cout][H'][W'] -> diff_src [N][Cin][H][W], diff_theta
    // d.theta_elements() values in the ABI order (non-null iff kernel=net), diff_bias [Cout] (non-null
    // iff d.has_bias). All f32; every output is overwritten.
    void execute(const float* src, const float* diff_dst, float* diff_src, float* diff_theta, float* diff_bias) const;

    CcMethod method() const;
    // The most workspace bytes held at once during the last execute (inputs, outputs and the plan's
    // packed weights excluded).
    std::int64_t peak_workspace_bytes() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
