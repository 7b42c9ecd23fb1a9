// The spec-literal reference for discrete convolution (reading 1: the summation formula).
//
// oneDNN Graph Convolution (seed 002), with groups and 1-based dilation, for any spatial rank:
//   dst(n, g*OC_G + oc_g, o...) = bias(g*OC_G + oc_g)
//       + sum_{ic_g < IC_G} sum_{k...} src(n, g*IC_G + ic_g, o*S - P_L + k*D ...) * weights(g, oc_g, ic_g, k...)
// src reads as zero outside [0, in) on every axis (zero padding; a negative P_L crops).
//
// Everything is computed in double, in canonical NCX / OIX order. The edges (dtype widening,
// layout reorders, and the final rounding to the output type) are separate, named steps.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/memory_layout.hpp"

namespace convcheck::reference {

// The exact (double) result and what the accuracy contract needs to bound a backend's error.
struct ConvResult {
    std::vector<double> dst;              // NCX: [N][O][out...]
    std::vector<double> magnitude;        // per output: sum |src * weights| (+ |bias|)
    std::vector<std::int64_t> terms;      // per output: products summed (+ 1 for bias)
};

// Reading 1 on canonical double arrays: src NCX, weights OIX ([O][I/G][k...]), bias [O] or empty.
// The definition, written as the formula above reads: one output at a time, in NCX order, its bias
// first, then its products in the order (ic_g, then k...), each rounded, then added. Single-threaded
// and slow on large layers: the runner checks with fast_convolution_summation (fast_summation.hpp),
// which gives the same bits.
ConvResult convolution_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                                 std::span<const double> weights_oix, std::span<const double> bias);

// The edges. Each tensor is in its own data type (d.src_dtype() .. d.dst_dtype(), one d.dtype unless the
// descriptor mixes them). Widen a buffer in the descriptor's own format to canonical doubles, exactly.
std::vector<double> src_to_ncx(const ConvDescriptor& d, const void* src);
std::vector<double> weights_to_oix(const ConvDescriptor& d, const void* weights);
std::vector<double> bias_to_double(const ConvDescriptor& d, const void* bias);
// A dst buffer of d.dtype in d.data_format (a backend's output) widened to canonical NCX doubles.
std::vector<double> dst_to_ncx(const ConvDescriptor& d, const void* dst);
// The tensor holds f32 values densely in canonical order (NCX, OIX): element i of that order is float i of the
// buffer. The reorders then convert in one loop; a reader may take the floats where they lie.
bool dense_canonical_f32(const ConvDescriptor& d, TensorRole role);
// Canonical NCX doubles -> a buffer of d.dtype in d.data_format, each value rounded ONCE to d.dtype
// (round to nearest even).
void round_dst_to_output(const ConvDescriptor& d, std::span<const double> dst_ncx, void* dst);
// The reverse reorders, for tests and fills: canonical doubles -> a buffer in the descriptor's formats.
void ncx_to_src(const ConvDescriptor& d, std::span<const double> src_ncx, void* src);
void oix_to_weights(const ConvDescriptor& d, std::span<const double> weights_oix, void* weights);

// Scales (core/scales.hpp, oneDNN's; benchdnn's ref_conv.cpp places them so): the products' sum times
// src_scale * weights_scale(oc), then the bias,
//   x(n, oc, y) = src_scale * weights_scale(oc) * sum(src * weights) + bias(oc),
// the value the post-ops read; after them, dst_scale divides (dst = v / dst_scale), and then the one rounding.
// scaled_summation gives x, its magnitude src_scale * weights_scale(oc) * sum |src * weights| + |bias| and the
// term count; d.scales must not be drawn (wsc=oc: the caller puts the drawn ones in d.scales.channel). Without
// scales it is fast_convolution_summation's result.
ConvResult scaled_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                            std::span<const double> weights_oix, std::span<const double> bias, int threads = 0);
// v / dst_scale for every output of dst (NCX), in place: the last step before the conversion to dst's type.
void apply_dst_scale(const ConvDescriptor& d, std::span<double> dst_ncx);

// The whole reference on buffers of their own data types in the descriptor's formats (bias may be null when
// !d.has_bias). Validates d first (throws ConvError). The sum is fast_convolution_summation's on
// `threads` threads (0: one per core): the same bits as convolution_summation; with scales, scaled_summation's
// (the dst scale is the caller's, after any post-ops: apply_dst_scale).
ConvResult convolution(const ConvDescriptor& d, const void* src, const void* weights, const void* bias,
                       int threads = 0);

// One output of reading 1 (the same index set, order and double arithmetic as convolution_summation),
// read straight from buffers of their own data types in the descriptor's formats, with no copy of any tensor: for
// tensors too large to widen to double (the large suite judges a sample of outputs with it).
// `dst_ncx` is the output's NCX offset; d must be valid.
struct OutputValue {
    double value = 0.0, magnitude = 0.0;  // the sum, and sum |src * weights| (+ |bias|)
    std::int64_t terms = 0;               // products summed (+ 1 for bias)
};
OutputValue convolution_output(const ConvDescriptor& d, const void* src, const void* weights, const void* bias,
                               std::int64_t dst_ncx);

}  // namespace convcheck::reference
