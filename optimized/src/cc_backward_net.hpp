// Internal: the CC backward for the Internal-Net (cc_backward_plan.hpp), any scale, without a weight
// tensor: the reverse of the forward's chunked method (cc_chunked.hpp), on the same pieces
// (cc_net_factors.hpp) and kernels (cc_factored_kernels.hpp), plus its own (cc_backward_kernels.hpp).
//
// Output rows are cut into bands (at most 4, fixed by the descriptor) such that two bands of
// the same parity read no common input row; each band runs its pixels in chunks (row-major, at most
// kMaxChunkPixels), keeps per image a ring of the input rows its chunks read (and of their gradient,
// stored to diff_src where it is the row's first contribution, else added, once no later chunk reads the
// row) and adds to a partial sum (double) of every
// parameter gradient, one per pair of bands (2i, 2i + 1). Even bands run in parallel and scatter into
// diff_src, then odd bands; then the partials are added in order.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "cc_backward_kernels.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "cc_net_factors.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "workspace_meter.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized::detail {

class CcBackwardNet {
public:
    // Needs AVX2 and FMA (the caller checks). height and width: the grid's axes, kept here.
    CcBackwardNet(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                  const AxisWindows& width);
    CcBackwardNet(const CcBackwardNet&) = delete;
    CcBackwardNet& operator=(const CcBackwardNet&) = delete;

    // diff_src [N][Cin][H][W], diff_theta (the ABI order) and diff_bias [Cout] (unless null) overwritten; the
    // buffers in use counted in meter.
    void run(const float* src, const float* diff_dst, float* diff_src, float* diff_theta, float* diff_bias,
             WorkspaceMeter& meter) const;

    std::int64_t chunk_pixels() const { return chunk_pixels_; }
    std::int64_t bands() const { return static_cast<std::int64_t>(band_rows_.size()) - 1; }

private:
    // The input rows [lo, hi) that output pixels [p0, p1) read, clipped to the input.
    std::array<std::int64_t, 2> input_rows(std::int64_t p0, std::int64_t p1) const;
    void run_band(std::int64_t band, const float* src, const float* diff_dst, float* diff_src, double* partial,
                  WorkspaceMeter& meter) const;

    CcDescriptor desc_;
    AxisWindows axes_[2];
    std::unique_ptr<CcNetFactors> net_;
    std::vector<float> w2_;  // cc_hidden_w2
    std::vector<float> distances_[2];  // the axes' distances rounded to f32 (the hidden reverse's dW1)
    CcHiddenBackwardProblem hidden_back_;
    std::int64_t chunk_pixels_ = 1, chunk_rows_ = 0, chunk_floats_ = 0, partial_size_ = 0;
    bool avx512_ = false;  // the two products over a chunk for AVX-512 (the same bits as AVX2's)
    bool wide_ = false;    // and the scatter and hidden layers' reverse for AVX-512 (h2p a multiple of 16)
    std::vector<std::int64_t> band_rows_;  // band b: output rows [band_rows_[b], band_rows_[b + 1])
    std::vector<std::array<std::int64_t, 2>> zero_rows_;  // cc_rows_no_band_stores
    std::vector<std::array<std::int64_t, 2>> odd_store_;  // cc_rows_odd_bands_store
    WorkspacePool<float> buffers_;
    WorkspacePool<std::int64_t> scratch_;
    WorkspacePool<double> partials_;
};

}  // namespace convcheck::optimized::detail
