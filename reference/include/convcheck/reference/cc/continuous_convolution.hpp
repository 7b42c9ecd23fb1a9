// The spec-literal reference for the continuous convolution (CC) layer (seed 004), in two readings
// that must agree:
//
// Reading 1, the paper's four blocks (Sec. 3.1, Fig. 2):
//   1. projected grid g (Eq. 2)                      -> projected_grid.hpp
//   2. neighbours N [N,1,Cin,K,H',W'] and distances D [K,2,H',W']   -> neighbours.hpp
//   3. weights W = K_theta{D}, [1,Cout,Cin,K,H',W']  -> calculate_weights()
//   4. I' = sum_{cin,k} N (x) W  (Eq. 3), plus an optional bias per output channel -> apply_weights()
//
// Reading 2, Eq. 1 straight: CC{I}[n] = sum_m I[m] K_theta(g_n - m), summed over EVERY input pixel m,
// with K_theta zero outside the support: on each axis D = g - m must lie in (-k/2, k/2] (the same
// set as g - k/2 <= m < g + k/2), decided exactly for a rational scale and with the tolerance
// kCcRealTolerance for a real one.
//
// Both compute in double and return, per output, the magnitude sum |N * W| (+ |bias|) and the
// number of products with an input pixel (+ 1 for bias), for the accuracy contract. Neighbours
// outside the input (zero padding) are not counted as terms.
#pragma once

#include <span>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_kernel.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/convolution.hpp"  // ConvResult

namespace convcheck::reference::cc {

using reference::ConvResult;  // dst, magnitude, terms: the same contract as discrete convolution

// Block 3: W [1, Cout, Cin, K, H', W'] from the distances D [K, 2, H', W'].
std::vector<double> calculate_weights(const CcDescriptor& d, const ContinuousKernel& kernel,
                                      std::span<const double> distances);

// Block 4: I' [N, Cout, H', W'] = sum over cin and k of N (x) W (+ bias[cout]); bias [Cout] or empty.
ConvResult apply_weights(const CcDescriptor& d, const Neighbours& neighbours, std::span<const double> weights,
                         std::span<const double> bias);

// Reading 1, the four blocks, on canonical doubles: src [N, Cin, H, W], bias [Cout] or empty.
// Blocks 2-4 run on chunks of output rows (paper, Sec. 5: "The memory footprint can be further
// reduced by chunking the input and computing the per-chunk results sequentially"): at most
// rows_per_chunk rows at a time, or, for 0, as many as keep the weights tensor W of a chunk within
// kWeightsChunkElements doubles (at least one row). The result does not depend on the chunking.
inline constexpr std::int64_t kWeightsChunkElements = std::int64_t{1} << 21;  // 16 MiB of doubles
// The rows per chunk that rows_per_chunk asks for (0: as many as keep W within kWeightsChunkElements).
std::int64_t chunk_rows(const CcDescriptor& d, std::int64_t rows_per_chunk);
// Output rows [row0, row0 + rows) of d as a layer of its own: its descriptor and its grid points.
struct RowChunk {
    CcDescriptor d;
    ProjectedGrid grid;
};
RowChunk row_chunk(const CcDescriptor& d, const ProjectedGrid& grid, std::int64_t row0, std::int64_t rows);
ConvResult cc_four_blocks(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                          std::span<const double> bias, std::int64_t rows_per_chunk = 0);

// Reading 2, Eq. 1 over every input pixel.
ConvResult cc_equation1(const CcDescriptor& d, std::span<const double> src, const ContinuousKernel& kernel,
                        std::span<const double> bias);

// The whole reference on the ABI's buffers (convcheck_cc_args): src f32 [N][Cin][H][W], theta f32
// in the ABI order (NULL for analytic kernels), bias f32 [Cout] (NULL when !d.has_bias).
// Validates d first (throws ConvError); runs reading 1.
ConvResult continuous_convolution(const CcDescriptor& d, const float* src, const float* theta, const float* bias);

}  // namespace convcheck::reference::cc
