// Internal: the CC layer for any scale (the only method for a real one), without a per-pixel weight
// tensor. Two ways, by kernel family:
//
//   Internal-Net: the last layer is linear, so the weights never need to exist (cc_factored_kernels.hpp):
//     output pixels are taken in chunks, in row-major order, of a size fixed by the descriptor (about a
//     quarter of the output tensor's bytes, at least one pixel); per chunk the hidden features of its
//     distance pairs are computed once for the whole batch, then per image the input is contracted with
//     them (Z, S: the rows it reads packed channels last, cc_contract_channels_last) and one GEMM with the packed
//     [W3 | b3] (the blocked kernel) gives the chunk's outputs, stored as NCHW with the bias added.
//     The workspace held at once is at most (tasks working at once) x (one chunk).
//   analytic (linear, cubic, Gaussian): every channel pair has the same weight k(dy) k(dx), so an
//     output is bias[cout] + sum_taps w_tap * (sum_cin N[cin, tap]): per output row, the channel sums
//     of the input rows it reads, then the taps.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "blocked_pack.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "cc_factored_kernels.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "cc_net_factors.hpp"
#include "workspace_meter.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized::detail {

class CcChunked {
public:
    // bias: Cout values, or empty. The Internal-Net needs AVX2 and FMA (the caller checks).
    CcChunked(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height, const AxisWindows& width,
              const std::vector<float>& bias);
    // The kernels' problems point into the object: it stays where it was made.
    CcChunked(const CcChunked&) = delete;
    CcChunked& operator=(const CcChunked&) = delete;

    // src [N][Cin][H][W] -> dst [N][Cout][H'][W'], f32. The buffers in use are counted in `meter`.
    void run(const float* src, float* dst, WorkspaceMeter& meter) const;

    // The bytes of one chunk's buffers (the Internal-Net's), or of one output row's (analytic).
    std::int64_t chunk_bytes() const { return chunk_bytes_; }

private:
    void run_net(const float* src, float* dst, WorkspaceMeter& meter) const;
    void run_analytic(const float* src, float* dst, WorkspaceMeter& meter) const;

    CcDescriptor desc_;
    AxisWindows axes_[2];
    std::vector<float> bias_;
    std::int64_t chunk_pixels_ = 1;
    std::int64_t chunk_bytes_ = 0;
    // analytic: k(distance) per output and tap of each axis, [out][support]
    std::vector<double> k_axis_[2];
    // Internal-Net: the hidden layers, the contraction (net_) and the GEMM
    std::unique_ptr<CcNetFactors> net_;
    bool avx512_ = false;
    std::int64_t depth_ = 1;  // Cin * (h2 + 1): the GEMM's inner dimension, Z feature-major then S
    // the input rows a chunk reads, channels last, in a ring of ring_rows_ rows per image (row iy at slot
    // iy mod ring_rows_, ring + row_offset_[iy]): a row packed for one chunk serves the next ones of the task
    std::int64_t ring_rows_ = 1;
    std::vector<std::int64_t> row_offset_;
    Geometry gemm_geometry_;
    std::vector<std::int64_t> gemm_taps_{0};
    BlockedWeights gemm_weights_;
    BlockedProblem gemm_problem_;
    WorkspacePool<float> buffers_;
    WorkspacePool<std::int64_t> scratch_;
};

}  // namespace convcheck::optimized::detail
