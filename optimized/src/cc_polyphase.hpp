// Internal: the CC layer by polyphase discrete convolutions (the paper's "by discrete convs"), for a
// rational scale p/q on both axes. The projected grid is periodic (g_{n+p} = g_n + q), so there are
// only p_h * p_w sets of weights, evaluated and packed once, here. Each set is a discrete convolution
// with stride q_h x q_w whose outputs land on every p-th row and column: the blocked kernels compute
// them from one padded copy of the input and write them straight to their interleaved places.
#pragma once

#include <cstdint>
#include <vector>

#include "blocked_pack.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "workspace_meter.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized::detail {

// The method CcPlan and CcBackwardPlan take when none is forced (cc_plan.cpp): polyphase for the
// Internal-Net on a rational scale with at most 256 phases, chunked otherwise.
CcMethod automatic_method(const CcDescriptor& d, const AxisWindows& height, const AxisWindows& width);

class CcPolyphase {
public:
    // Evaluates every phase's weights (in double, rounded once to f32) and packs them for the blocked
    // kernels of this CPU (AVX-512, else AVX2: the caller checks that the CPU has AVX2 and FMA).
    // bias: Cout values, or empty.
    CcPolyphase(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                const AxisWindows& width, const std::vector<float>& bias);
    // The packed problems point into the object: it stays where it was made.
    CcPolyphase(const CcPolyphase&) = delete;
    CcPolyphase& operator=(const CcPolyphase&) = delete;

    // src [N][Cin][H][W] -> dst [N][Cout][H'][W'], f32. The padded input and the channels-last output
    // it holds are counted in `meter`.
    void run(const float* src, float* dst, WorkspaceMeter& meter) const;

private:
    CcDescriptor desc_;
    AxisWindows axes_[2];
    bool avx512_ = false;
    std::int64_t phases_[2]{1, 1}, pad_lo_[2]{0, 0}, pad_hi_[2]{0, 0};
    ConvDescriptor padded_src_;  // the input as a "conv" for the edges: NCX f32, pads pad_lo_/pad_hi_
    Geometry src_geometry_;
    Geometry phase_geometry_;    // Cin -> Cout, kernel k_h x k_w, channel stride Cin
    std::vector<std::int64_t> taps_;
    std::vector<BlockedWeights> phase_weights_;
    std::vector<BlockedProblem> phase_problems_;
    // workspaces kept between calls: the padded input, the channels-last output, the kernels' scratch
    WorkspacePool<float> padded_inputs_, outputs_;
    WorkspacePool<std::int64_t> kernel_scratch_;
};

}  // namespace convcheck::optimized::detail
