// Internal: the CC backward's parts besides the Internal-Net's (cc_backward_net.hpp), in
// cc_backward_analytic.cpp: the analytic kernels' diff_src, and diff_bias for every family.
#pragma once

#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "workspace_meter.hpp"

namespace convcheck::optimized::detail {

// diff_src [N][Cin][H][W] (overwritten) for an analytic kernel, from diff_dst [N][Cout][H'][W'].
// Holds N * (H'W' + HW) floats (counted in meter).
void cc_backward_analytic(const CcDescriptor& d, const AxisWindows& height, const AxisWindows& width,
                          const float* diff_dst, float* diff_src, WorkspaceMeter& meter);

// diff_bias [Cout] = the sum of diff_dst over the batch and the output pixels (double, four partial sums).
void cc_backward_bias(const CcDescriptor& d, const float* diff_dst, float* diff_bias);

}  // namespace convcheck::optimized::detail
