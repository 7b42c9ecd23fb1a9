// The spec-literal reference for transposed convolution (core/include/convcheck/core/transposed_descriptor.hpp): the
// backward data of the forward convolution it transposes, plus a bias. With F = t.forward():
//   dst(n, oc, x) = bias(oc) + sum over (ic, y, k) paired with (n, oc, x) by F's index set of
//                   src(n, ic, y) * weights(ic, oc_g, k),   x = y*S - P_L + k*D inside [0, out)
// which is backward.hpp's backward_data_summation on F (dst is F's diff_src, src is F's diff_dst,
// weights are F's [C][O/G][k...]): no second loop nest. PyTorch ConvTranspose's
// "(in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1" is
// t.output_size(); the positions output_padding adds at the end receive the taps that reach them
// (x < out) and the bias.
//
// Computed in double in canonical order; the buffers are F's edges: src is read as F's dst, weights
// as F's weights, dst is written as F's src, rounded once (round to nearest even).
#pragma once

#include <span>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::reference {

// On canonical double arrays: src NCX ([N][C][in...]), weights [C][O/G][k...], bias [O] or empty.
// ConvResult::dst is [N][O][out...]; magnitude and terms count the bias as one more term.
ConvResult transposed_convolution_summation(const TransposedDescriptor& t, std::span<const double> src_ncx,
                                            std::span<const double> weights, std::span<const double> bias);

// On buffers of t.dtype in t's formats (bias null when !t.has_bias). Validates t (throws ConvError).
ConvResult transposed_convolution(const TransposedDescriptor& t, const void* src, const void* weights,
                                  const void* bias);
// Canonical NCX doubles [N][O][out...] -> a dst buffer of t.dtype in t.data_format, rounded once.
void round_transposed_to_output(const TransposedDescriptor& t, std::span<const double> dst_ncx, void* dst);

}  // namespace convcheck::reference
