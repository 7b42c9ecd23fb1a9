// Internal: the CC layer by chunks of output pixels, for any scale (the only method for a real one).
// Output pixels are taken in chunks, in row-major order, of a size fixed by the descriptor (a quarter
// of the output tensor's bytes, at least one pixel); for each chunk the distances, the kernel's
// weights (in double, rounded once to f32) and the outputs are computed and the chunk's buffers freed.
// The whole weights or neighbours tensor never exists: the workspace held at once is at most
// (tasks working at once) x (one chunk).
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "cc_grid.hpp"
#include "cc_kernel.hpp"
#include "workspace_meter.hpp"

namespace convcheck::optimized::detail {

class CcChunked {
public:
    // bias: Cout values, or empty.
    CcChunked(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height, const AxisWindows& width,
              const std::vector<float>& bias);

    // src [N][Cin][H][W] -> dst [N][Cout][H'][W'], f32. Each chunk's buffers are counted in `meter`.
    void run(const float* src, float* dst, WorkspaceMeter& meter) const;

    // The bytes of one chunk's buffers.
    std::int64_t chunk_bytes() const { return chunk_bytes_; }

private:
    CcDescriptor desc_;
    CcKernelParams kernel_;
    AxisWindows axes_[2];
    std::vector<float> bias_;
    std::int64_t chunk_pixels_ = 1;
    std::int64_t chunk_bytes_ = 0;
};

}  // namespace convcheck::optimized::detail
