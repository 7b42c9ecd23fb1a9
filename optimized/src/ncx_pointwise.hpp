// Internal: a 1x1 layer with unit strides and no pads on the user's f32 NCX buffers, through the
// AVX-512 register tiles of the blocked kernel (blocked_kernels.inl), with no layout conversion.
//
// Per image n and group grp the layer is the product
//   y_n[grp*OCg + o][p] = bias[o] + sum over ic in increasing order of W[o][ic] * x_n[grp*ICg + ic][p]
// (p the image's pixel, HW of them), which is the blocked kernel with the roles of pixels and channels
// exchanged: its "pixels" are the output channels o (a row W[o][.] of the canonical weights, broadcast),
// its "output-channel lanes" are the image's pixels (a row of x_n, HW floats from the next input
// channel's: BlockedProblem::weights_ic_step), its "output pixel step" is HW, its bias one per "pixel"
// (BlockedSegment::pixel_bias). Every output is summed in one order (its bias, then the input channels in
// order) whatever the thread count.
// A partial last super block of pixels whose vectors would reach past the end of src (the last image's,
// or any when HW is small) reads a zero-padded copy of its columns instead; the others read the next
// rows' first floats into lanes that are never stored.
#pragma once

#include <vector>

#include "problem.hpp"

namespace convcheck::optimized::detail {

class NcxPointwise {
public:
    // g: the layer's geometry (1x1, unit strides, no pads); canonical: f32 weights [O][ICg] (copied).
    // stream: whether a dst over kStreamOutputAbove may take non-temporal stores (Options::stream_large_output)
    NcxPointwise(const Geometry& g, const float* canonical, const std::vector<float>& bias, bool stream);
    NcxPointwise(const NcxPointwise&) = delete;  // problem_ points into the object (lanes_)
    NcxPointwise& operator=(const NcxPointwise&) = delete;
    // Work items (n, grp, pixel super block, block of output channels), each written by one task.
    i64 tasks() const { return images_ * super_blocks_ * oc_chunks_; }
    i64 scratch_elements() const { return problem_.scratch_elements(); }
    void run_tasks(const float* src, float* dst, i64* scratch, i64 begin, i64 end) const;

private:
    Geometry layer_;              // the layer
    Geometry lanes_;              // the kernel's view: ICg input channels, HW "output channels" (lanes)
    BlockedProblem problem_;      // over lanes_, weights = an image's rows
    std::vector<float> weights_;  // [O][ICg]
    std::vector<float> bias_;     // [O] or empty
    i64 images_ = 0, super_blocks_ = 0, oc_chunks_ = 0, oc_chunk_ = 0, block_ = 0;
};

}  // namespace convcheck::optimized::detail
