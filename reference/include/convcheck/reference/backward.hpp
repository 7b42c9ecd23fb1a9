// The spec-literal reference for the backward passes of discrete convolution (reading 1: sums over
// the forward's own index set).
//
// The forward sum (seed 002, convolution.hpp) pairs each output (n, oc, y) with the terms
//   src(n, ic, x) * weights(oc, ic_g, k),   x = y*S - P_L + k*D inside [0, in),   ic = g*IC_G + ic_g
// The backward passes (SPEC-NOTES §5, "Adjoints") sum over exactly that set of pairs:
//   backward data     diff_src(n, ic, x)        = sum over (oc, y, k) paired with (n, ic, x)  diff_dst(n, oc, y) * weights(oc, ic_g, k)
//   backward weights  diff_weights(oc, ic_g, k) = sum_n sum_y  src(n, ic, x(y, k)) * diff_dst(n, oc, y)   (in-range x only)
//   backward bias     diff_bias(oc)             = sum_n sum_y  diff_dst(n, oc, y)
// Inputs that no output reads (cropped by a negative pad, skipped by a stride, past the last window)
// get 0, and taps that only ever read padding get 0, exactly as the forward sum leaves them out.
//
// Everything is computed in double, in canonical NCX / OIX order; the edges (dtype widening, layout
// reorders, one rounding to the output type) are the forward's (convolution.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference {

// An exact (double) gradient and what an accuracy contract needs to bound a backend's error.
struct GradientResult {
    std::vector<double> values;           // diff_src NCX, diff_weights OIX or diff_bias [O]
    std::vector<double> magnitude;        // per element: sum of |term|
    std::vector<std::int64_t> terms;      // per element: products (or values) summed
};

// Reading 1 on canonical double arrays: diff_dst NCX ([N][O][out...]), weights OIX, src NCX.
GradientResult backward_data_summation(const ConvDescriptor& d, std::span<const double> diff_dst_ncx,
                                       std::span<const double> weights_oix);
GradientResult backward_weights_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                                          std::span<const double> diff_dst_ncx);
// The same two sums as the literal walk over the index set, one (output, term) pair at a time, in the
// forward's order (slow; the definition the sums above are tested against, bit for bit).
GradientResult backward_data_walk(const ConvDescriptor& d, std::span<const double> diff_dst_ncx,
                                  std::span<const double> weights_oix);
GradientResult backward_weights_walk(const ConvDescriptor& d, std::span<const double> src_ncx,
                                     std::span<const double> diff_dst_ncx);
// diff_bias for every output channel, whether or not d.has_bias (the sum does not depend on it).
GradientResult backward_bias_summation(const ConvDescriptor& d, std::span<const double> diff_dst_ncx);

// Reading 2 of backward data, independent of reading 1 (it shares no index code with it): a stride-1
// convolution of the zero-stuffed diff_dst (S-1 zeros between neighbours, padded by
// D*(K-1) - P_L before) with the flipped kernel, its channel axes transposed within each group,
// computed by the forward's own reading 2 (as_if.hpp). Returns diff_src NCX.
std::vector<double> backward_data_as_stuffed_convolution(const ConvDescriptor& d, std::span<const double> diff_dst_ncx,
                                                         std::span<const double> weights_oix);
// The stride-1 descriptor reading 2 convolves with (exposed for tests and docs): in_channels and
// out_channels swapped, input = the stuffed diff_dst, strides 1, the same dilations and groups.
ConvDescriptor stuffed_convolution_descriptor(const ConvDescriptor& d);

// The whole reference on storage buffers in the descriptor's formats, each gradient in the data type of the
// tensor it is the gradient of (diff_dst: dst_dtype(), diff_src: src_dtype(), ...): diff_dst in
// d.data_format (the dst layout), weights in d.filter_format, src in d.data_format. Validates d
// (throws ConvError). Round the results once with ncx_to_src (diff_src), oix_to_weights
// (diff_weights) and round_bias_to_output (diff_bias).
GradientResult backward_data(const ConvDescriptor& d, const void* diff_dst, const void* weights);
// diff_weights; with d.has_bias also *diff_bias (when diff_bias is not null).
GradientResult backward_weights(const ConvDescriptor& d, const void* src, const void* diff_dst,
                                GradientResult* diff_bias);
// Canonical doubles [O] -> a bias buffer of d.bias_dtype(), each value rounded ONCE (round to nearest even).
void round_bias_to_output(const ConvDescriptor& d, std::span<const double> bias, void* out);

}  // namespace convcheck::reference
