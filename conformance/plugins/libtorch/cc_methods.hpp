// The two CC methods of the torch CC layer (cc_torch.hpp), on the zero-padded input (cc_grid.hpp), without
// the bias. Both differentiable with respect to src and theta.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "cc_grid.hpp"
#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck_libtorch::cc {

// The standard method ("unfold"), output rows [row0, row0 + rows): [N, Cout, rows, W'].
//   neighbours  padded_src.index_select on both axes: [rows * W', N, K * Cin] (the paper's
//               [N, 1, Cin, K, H', W'] tensor, pixel-major)
//   weights     K(D) for every output pixel and neighbour: [rows * W', K * Cin, Cout] (the paper's
//               [1, Cout, Cin, K, H', W'], pixel-major; a view of K's output)
//   apply       one at::bmm: every pixel's neighbours times its own weights (Eq. 3)
at::Tensor standard_rows(const convcheck::CcDescriptor& d, const at::Tensor& padded_src, const AxisWindows& h,
                         const AxisWindows& w, const at::Tensor& theta, std::int64_t row0, std::int64_t rows);
// The rows per chunk of the standard method: as many as keep its weights tensor within
// kStandardChunkElements f32 values (at least one row; paper, Sec. 5: "chunking the input and computing the
// per-chunk results sequentially").
inline constexpr std::int64_t kStandardChunkElements = std::int64_t{1} << 22;  // 16 MiB of f32
std::int64_t standard_chunk_rows(const convcheck::CcDescriptor& d);

// By discrete convs (rational scales on both axes): the p_h x p_w weight sets K(D) of the grid's period, each
// an at::conv2d with stride (q_h, q_w) over the padded input from its phase's first window, interleaved into
// [N, Cout, H', W'] (output n = r + p t is phase r's t-th output). Phases beyond the output size are skipped.
at::Tensor discrete_convs(const convcheck::CcDescriptor& d, const at::Tensor& padded_src, const AxisWindows& h,
                          const AxisWindows& w, const at::Tensor& theta);
// The number of weight sets (at::conv2d calls): min(p_h, H') * min(p_w, W').
std::int64_t discrete_conv_phases(const convcheck::CcDescriptor& d);

}  // namespace convcheck_libtorch::cc
