// The GEMM evaluators of the backward passes' reading 1, for bound mode: the sums of backward_data_summation
// and backward_weights_summation (backward.hpp) as im2col, col2im and Eigen's f64 matrix products, in Eigen's
// order of additions, not the definition's.
//
// The backward sums stay the definition; these are not bitwise the same. What they give, per gradient element:
//   - values: the sum over the definition's terms (the same index set: the forward's pairs of an output y and
//     a tap k whose input index x = y*S - P_L + k*D lies inside [0, in)), each product formed in double and
//     the n terms added in an order of Eigen's choosing (FMA allowed), then, for backward data, of col2im's;
//   - magnitude: the same sum over |term|;
//   - terms: the definition's count, from the geometry:
//       diff_weights(oc, ic_g, k): N * prod over axes of the outputs whose tap k lands inside the input;
//       diff_src(n, ic, x):        OC_G * prod over axes of the (tap, output) pairs that reach x.
// Their error is the forward GEMM evaluator's (gemm_summation.hpp): any order of n additions of exact
// products is within gamma_n(2^-53) M of the exact sum, as is the definition's, so the two differ by at most
// 2 gamma_n(2^-53) M; on integer data (every partial sum exact) both are the exact sum, bit for bit.
// reference_gemm_backward_sums_test checks both statements against the definition on random descriptors.
#pragma once

#include <span>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/reference/backward.hpp"

namespace convcheck::reference {

// diff_src NCX from diff_dst NCX and weights OIX: per image n and group g, the columns
//     C = W_g^T * dY_g        (IC_G * taps rows, one column per output position)
// each added into diff_src at the input position its row's tap reads for its column's output (col2im; taps
// in the padding add nothing); the magnitudes likewise from |W_g|^T * |dY_g|. On `threads` threads (0: one
// per core; one for small problems); the result does not depend on `threads`.
// Precondition: gemm_summation_available() (gemm_summation.hpp).
GradientResult gemm_backward_data_summation(const ConvDescriptor& d, std::span<const double> diff_dst_ncx,
                                            std::span<const double> weights_oix, int threads = 0);
// diff_weights OIX from src NCX and diff_dst NCX: per group g, summed over the images n,
//     dW_g += dY_g * A^T      (A: the im2col of image n's group g input, IC_G * taps rows, zero in the padding)
// and the magnitudes likewise from |dY_g| * |A|^T. Threads and precondition as above.
GradientResult gemm_backward_weights_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                                               std::span<const double> diff_dst_ncx, int threads = 0);

// The bytes each holds beyond its result, at most, on `threads` threads (0: one per core): the inputs'
// magnitudes (backward data: 8W + 8D; backward weights: 8D), and per thread one block of columns and its
// magnitudes (2 x 8 R C, R = at most 16 input channels' rows, C its columns) and Eigen's packed copies of a
// block of each operand (at most 8 R C + 8 OC_G max(R, C)).
double gemm_backward_data_work_bytes(const ConvDescriptor& d, int threads = 0);
double gemm_backward_weights_work_bytes(const ConvDescriptor& d, int threads = 0);

}  // namespace convcheck::reference
