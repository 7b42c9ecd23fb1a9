// Internal: the CC backward for the Internal-Net at a rational scale p/q on both axes (the reverse of
// the forward's polyphase method, cc_polyphase.hpp): the grid is periodic, so there are only
// p_h * p_w sets of weights W_phase [Cout][K * Cin], evaluated in double and rounded once to f32 here.
// With each pixel's patch F [K * Cin] (its neighbours, channels last, 0 outside the input; read in
// place, never copied), at most 240 pixels of one phase at once:
//   dF = dY W_phase, added to the band's input gradient at every neighbour inside the input
//     (cc_patch_times_scatter; per band of output rows, as cc_backward_net: even bands, then odd ones);
//   dW_phase += dY^T F (cc_patch_outer_accumulate; per image, the image packed channels last once, then
//     one task per phase over all its pixels: one partial sum per group of images, no bands);
// with at least two images per thread and a group per thread (2 threads, batch >= 4), whole groups of
// images in parallel (each image's steps in one task), else one image after another, each step in
// parallel;
// at the end the Internal-Net's reverse over the p_h * p_w * K distance pairs in double
// (cc_net_reverse_*, g = dW_phase at each, read in place; the pairs, then the output channels, in
// parallel).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "workspace_meter.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized::detail {

class CcBackwardPolyphase {
public:
    // kernel: the Internal-Net. Needs AVX2 and FMA (the caller checks).
    CcBackwardPolyphase(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                        const AxisWindows& width);
    CcBackwardPolyphase(const CcBackwardPolyphase&) = delete;
    CcBackwardPolyphase& operator=(const CcBackwardPolyphase&) = delete;

    // diff_src [N][Cin][H][W], diff_theta (the ABI order) and diff_bias [Cout] (unless null) overwritten;
    // the buffers counted in meter.
    void run(const float* src, const float* diff_dst, float* diff_src, float* diff_theta, float* diff_bias,
             WorkspaceMeter& meter) const;

private:
    // dF of the band's pixels of image n (dyp: its diff_dst in order_'s order, [Cout][pixels]), added to
    // diff_src
    void run_band(std::int64_t band, std::int64_t n, const float* dyp, float* diff_src, WorkspaceMeter& meter) const;
    // partial (dW_phase, every phase) += phase ph's sums over one image's pixels (first: its part zeroed
    // before), src_cl its input channels last after a row of Cin zeros, dyp its diff_dst as run_band's
    void phase_weights_gradient(std::int64_t ph, bool first, const float* src_cl, const float* dyp,
                                double* partial) const;

    CcDescriptor desc_;
    AxisWindows axes_[2];
    CcKernelParams kernel_;
    std::int64_t phases_[2]{1, 1};
    std::vector<double> pairs_;  // (dy, dx) per phase and tap
    std::vector<std::vector<float>> weights_;  // per phase: W_phase [Cout][K * Cin], f32
    std::vector<std::int64_t> band_rows_;
    std::vector<std::array<std::int64_t, 2>> zero_rows_;  // cc_rows_no_band_stores
    std::vector<std::array<std::int64_t, 2>> odd_store_;  // cc_rows_odd_bands_store
    std::vector<std::int64_t> order_;        // every phase's output pixels, row-major, phase after phase
    std::vector<std::int64_t> band_of_;      // their bands
    std::vector<std::int64_t> src_at_;       // [K][pixels]: the dW pass's patch offsets (CcPatchTaps)
    std::vector<std::int64_t> diff_at_;      // [K][pixels]: the bands' dF offsets (CcPatchTaps)
    std::vector<std::int64_t> phase_start_;  // phase ph: order_[phase_start_[ph] .. phase_start_[ph + 1])
    std::vector<std::int64_t> band_phase_;   // band b's pixels of phase ph: order_[[2 (b P + ph)] .. [+ 1])
    std::int64_t band_input_rows_ = 0, band_floats_ = 0, partial_size_ = 0;
    bool avx512_ = false;  // the patch kernels for AVX-512 (the same bits as AVX2's)
    WorkspacePool<float> buffers_;
    WorkspacePool<double> partials_;
    WorkspacePool<double> reverse_;  // the Internal-Net's reverse's scratch
    WorkspacePool<double> bias_;     // diff_bias per image and output channel
};

}  // namespace convcheck::optimized::detail
