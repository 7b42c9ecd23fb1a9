// The libtorch plugin's CC layer (seed 004, "From Discrete to Continuous Convolution Layers"): the paper's
// algorithms written with torch operations, as a second CC implementation beside the optimized one
// (issue 21). Every tensor is f32 except the grid, which is computed in double and int64 as the reference
// computes it, so that the distances torch rounds to f32 are the reference's, rounded once:
//
//   block 1, the projected grid (Eq. 2) and block 2's window and distances   cc_grid.cpp
//   block 3, the weights W = K(D): the Internal-Net as three at::linear with at::leaky_relu, or an
//            analytic kernel (linear, Keys cubic, Gaussian) in f32                cc_kernel.cpp
//   the "standard" method (paper, Sec. 3.1 and Table 5): zero-pad, unfold the neighbours of every output
//            pixel (index_select), run K on every distance, apply (one bmm per chunk of output rows)
//                                                                                  cc_standard.cpp
//   "by discrete convs" (paper, Sec. 5, rational scales p/q): the grid is periodic with period p, so the
//            p_h x p_w weight sets are discrete convolutions with stride q (at::conv2d), interleaved
//                                                                                  cc_discrete_convs.cpp
// Forward on tensors (differentiable: the backward is torch autograd through the same operations,
// cc_backward.cpp), and on the ABI's buffers (cc_plugin.cpp).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck_libtorch::cc {

using convcheck::CcDescriptor;

enum class CcMethod { automatic, standard, discrete_convs };
std::string_view to_string(CcMethod m);
// "standard", "discrete_convs"; false for anything else.
bool parse_method(std::string_view text, CcMethod* out);

// Why the method cannot compute d ("" when it can): discrete convs need a rational scale on both axes;
// an exact grid needs its numerators below 2^53 (they are converted to double exactly).
std::string why_unavailable(const CcDescriptor& d, CcMethod m);
// The method `automatic` stands for: by discrete convs for rational scales with at most
// kMaxAutomaticPhases weight sets, else standard. A forced method is returned as it is.
inline constexpr std::int64_t kMaxAutomaticPhases = 256;
CcMethod chosen_method(const CcDescriptor& d, CcMethod forced);

// The layer's parameters as tensors: theta f32 [d.theta_elements()] in the ABI order
// W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout] (undefined for an analytic kernel);
// bias f32 [Cout] (undefined without bias).
struct CcParameters {
    at::Tensor theta;
    at::Tensor bias;
};

// The layer on src f32 [N, Cin, H, W]: dst f32 [N, Cout, H', W'], through `method` (not automatic).
// Differentiable with respect to src, theta and bias. The standard method runs on chunks of
// rows_per_chunk output rows (0: standard_chunk_rows, its memory rule); by discrete convs runs whole.
at::Tensor cc_forward(const CcDescriptor& d, const at::Tensor& src, const CcParameters& p, CcMethod method,
                      std::int64_t rows_per_chunk = 0);

// The gradients of <diff_dst, cc_forward(src)> through torch autograd: diff_src [N, Cin, H, W], diff_theta in
// the theta order (undefined for an analytic kernel), diff_bias [Cout] (undefined without bias).
struct CcGradients {
    at::Tensor diff_src, diff_theta, diff_bias;
};
// Chunk by chunk as the forward: each chunk's graph is built, differentiated and freed before the next.
CcGradients cc_backward(const CcDescriptor& d, const at::Tensor& src, const CcParameters& p, const at::Tensor& diff_dst,
                        CcMethod method, std::int64_t rows_per_chunk = 0);

// The same on the ABI's buffers (for the plugin's CC backward, ABI 1.4): src f32 [N][Cin][H][W], theta f32 in
// the theta order (NULL for an analytic kernel), diff_dst f32 [N][Cout][H'][W'] in; diff_src [N][Cin][H][W],
// diff_theta (kernel=net) and diff_bias [Cout] (has_bias) written. The bias values do not enter (the layer is
// affine in them). `method` may be automatic (chosen_method). Returns the method that ran.
CcMethod cc_backward_buffers(const CcDescriptor& d, CcMethod method, const float* src, const float* theta,
                             const float* diff_dst, float* diff_src, float* diff_theta, float* diff_bias);

}  // namespace convcheck_libtorch::cc
