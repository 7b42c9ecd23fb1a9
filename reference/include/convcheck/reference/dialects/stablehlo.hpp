// StableHLO `convolution` (openxla/stablehlo docs/spec.md, "convolution"; the verifier's messages from
// stablehlo/dialect/TypeInference.cpp and the ODS constraints of StablehloOps.td).
//
// Per spatial axis (constraint C25), with lhs_dilation ld and rhs_dilation rd:
//   dilated_input  = (in - 1)*ld + 1;  padded = padding_low + dilated_input + padding_high
//   dilated_window = (k - 1)*rd + 1
//   num_windows    = 0 if padded = 0 or dilated_window > padded      (an EMPTY output: legal)
//                    floor((padded - dilated_window) / window_strides) + 1 otherwise
// Padding may be negative (it crops). feature_group_count g is the canonical groups (C11, C16);
// the kernel's input feature size is c / g by construction (C14).
//
// Refused in StableHLO's words: C2-C9 (sizes and positivity of window_strides, padding, lhs_dilation,
// rhs_dilation, window_reversal; a kernel size of 0), C10-C11, C15-C16, C21-C23.
// Refused in convcheck's words, naming the attribute: lhs_dilation > 1 and batch_group_count > 1 are
// legal StableHLO but not forward convolutions (lhs dilation is a transposed convolution, which the
// stablehlo_transpose dialect reads: transposed.hpp; batch groups the backward-weights form);
// window_reversal = true (a flipped kernel); dimension numbers whose data layout is neither
// batch-feature-spatial (NCX) nor batch-spatial-feature (NXC), or whose output layout differs from
// the input's.
//
// Dimension numbers are written as XLA's dim_labels: "<input>_<kernel>-><output>" with b (batch),
// f (feature), i / o (kernel input / output feature) and 0, 1, 2 (spatial), e.g. b01f_01io->b01f
// (StableHLO's [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]). Kernel oi01 is OIX, 01io is XIO; any other
// kernel order is read as OIX with the layout named (a reorder is implied).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::stablehlo {

struct ConvolutionAttributes {
    ConvShapes shapes;                          // in_channels = dim(lhs, f), out_channels = dim(rhs, o)
    std::vector<std::int64_t> window_strides;   // rank values; empty: 1
    std::vector<std::int64_t> padding;          // [low, high] per spatial axis; empty: 0
    std::vector<std::int64_t> lhs_dilation;     // empty: 1
    std::vector<std::int64_t> rhs_dilation;     // empty: 1
    std::vector<bool> window_reversal;          // empty: false
    std::string dim_labels;                     // empty: bf01_oi01->bf01 (rank-specific)
    std::int64_t feature_group_count = 1;
    std::int64_t batch_group_count = 1;
};

DialectResult convolution(const ConvolutionAttributes& attributes);
// Text keys: n c o in k, window_strides, padding, lhs_dilation, rhs_dilation, window_reversal,
// dim_labels, feature_group_count, batch_group_count.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::stablehlo
