// NcxPointwise (ncx_pointwise.hpp): the 1x1 layer on f32 NCX buffers through the AVX-512 blocked tiles.
#include "ncx_pointwise.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {
namespace {

constexpr i64 kLanes = 16;  // floats per AVX-512 vector
// An input-channel block's rows of one super block of pixels (ic_block x NB*16 floats) stay in L1 while
// every tile of output channels reads them.
constexpr i64 kPanelBytes = 32 * 1024;
// Output channels per work item at most (whole register tiles): a batch-1 layer still has several items
// per thread, and an item's weights rows (its channels x ICg) stay in L2.
constexpr i64 kOutputChunk = 256;
// The only tap's offset (a 1x1 kernel)
constexpr i64 kTapZero[1] = {0};

}  // namespace

NcxPointwise::NcxPointwise(const Geometry& g, const float* canonical, const std::vector<float>& bias, bool stream)
    : layer_(g), bias_(bias) {
    const i64 HW = g.out_pixels(), ICg = g.in_per_group, OCg = g.out_per_group;
    weights_.assign(canonical, canonical + g.out_channels * ICg);
    lanes_.in_channels = lanes_.in_per_group = lanes_.channel_stride = ICg;
    lanes_.out_channels = lanes_.out_per_group = HW;
    // super blocks of 2 to 4 vectors, those that pad the image's pixels least (ties: the wider); one vector
    // only for an image of at most 16 pixels: its tiles ran 1.37x slower per lane (res4_1x1_1024, 196 pixels,
    // 1 thread: 1 vector 0.94 ms, 2 vectors 0.75, 3 0.79, 4 0.84)
    int nb = 1;
    i64 least = 0;
    for (int b = 4; b >= 2 && HW > kLanes; --b) {
        const i64 block = b * kLanes, padded = (HW + block - 1) / block * block;
        if (least == 0 || padded < least) least = padded, nb = b;
    }
    block_ = nb * kLanes;
    super_blocks_ = (HW + block_ - 1) / block_;
    problem_.geometry = &lanes_;
    problem_.tap_offsets = kTapZero;
    problem_.vector_blocks = nb;
    problem_.oc_super_blocks = super_blocks_;
    problem_.ic_block = std::clamp<i64>(kPanelBytes / (block_ * 4), 1, ICg);
    problem_.weights_ic_step = HW;
    problem_.weights_block_step = block_;
    problem_.stream_output = stream && 4 * g.batch * g.out_channels * HW > kStreamOutputAbove;  // tiles write dst
    images_ = g.batch * g.groups;
    const i64 tile = avx512::tile_width(nb);
    oc_chunk_ = std::min(OCg, std::max(tile, kOutputChunk / tile * tile));
    oc_chunks_ = (OCg + oc_chunk_ - 1) / oc_chunk_;
}

void NcxPointwise::run_tasks(const float* src, float* dst, i64* scratch, i64 begin, i64 end) const {
    const Geometry& g = layer_;
    const i64 HW = g.out_pixels(), ICg = g.in_per_group, OCg = g.out_per_group;
    std::vector<float> panel;  // the zero-padded columns of a last super block near the end of src
    i64 panel_image = -1;      // whose
    for (i64 task = begin; task < end; ++task) {
        const i64 s = task % super_blocks_, chunk = task / super_blocks_ % oc_chunks_, image = task / (oc_chunks_ * super_blocks_);
        const i64 n = image / g.groups, grp = image % g.groups;
        const i64 o0 = chunk * oc_chunk_, count = std::min(oc_chunk_, OCg - o0);
        const i64 p0 = s * block_, lanes = std::min(block_, HW - p0);
        float* y = dst + (n * g.out_channels + grp * OCg + o0) * HW + p0;
        BlockedProblem p = problem_;
        Geometry view = lanes_;
        p.geometry = &view;
        p.weights = src + (n * g.in_channels + grp * ICg) * HW;  // the image's rows of the group
        BlockedSegment segment;
        segment.x = weights_.data() + (grp * OCg + o0) * ICg;
        segment.x_pixel_step = ICg;
        segment.y = y;
        segment.y_pixel_step = HW;
        segment.count = count;
        segment.ocs = s;
        segment.pixel_bias = bias_.empty() ? nullptr : bias_.data() + grp * OCg + o0;
        if (lanes < block_ && (n * g.in_channels + grp * ICg + ICg - 1) * HW + p0 + block_ > g.batch * g.in_channels * HW) {
            // whole vectors of the last rows would be read past the end of src: a copy, as one super block
            if (panel_image != image) {
                panel.assign(static_cast<std::size_t>(ICg * block_), 0.0f);
                for (i64 ic = 0; ic < ICg; ++ic) std::copy_n(p.weights + ic * HW + p0, lanes, panel.data() + ic * block_);
                panel_image = image;
            }
            p.weights = panel.data();
            p.weights_ic_step = block_;
            view.out_per_group = view.out_channels = lanes;
            segment.ocs = 0;
        }
        avx512::blocked_segment(p, segment, scratch);
    }
}

}  // namespace convcheck::optimized::detail
