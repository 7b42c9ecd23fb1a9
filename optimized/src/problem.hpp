// Internal: the descriptor lifted to three spatial axes (depth, height, width; unit axes prepended
// for rank 1 and 2) and the plain structs the kernels read. The kernels see only f32 buffers:
//   xp: the padded input, channels last, [N][Dp][Hp][Wp][Cs] with Dp = in + pads_begin + pads_end
//       (a negative pad crops), Cs = C rounded up to 16, zeros in the padding and extra channels;
//   y:  the f32 output, channels last, [N][OD][OH][OW][O].
// In xp an output (od, oh, ow) reads, for tap (kd, kh, kw), the pixel (od*s + kd*dl, ...): no
// bounds checks anywhere in a kernel.
//
// This header is included by the ISA translation units (compiled with -mavx512f / -mavx2): it
// holds only plain structs, so that no inline function compiled for one ISA leaks into another.
#pragma once

#include <cstdint>

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

struct Geometry {
    i64 batch = 1, in_channels = 1, out_channels = 1, groups = 1;
    i64 in_per_group = 1, out_per_group = 1;
    i64 in[3]{1, 1, 1}, kernel[3]{1, 1, 1}, stride[3]{1, 1, 1}, dilation[3]{1, 1, 1};
    i64 pad_begin[3]{0, 0, 0}, pad_end[3]{0, 0, 0}, out[3]{1, 1, 1};
    i64 padded[3]{1, 1, 1};   // xp's spatial sizes
    i64 channel_stride = 16;  // Cs
    i64 taps() const { return kernel[0] * kernel[1] * kernel[2]; }
    i64 out_pixels() const { return out[0] * out[1] * out[2]; }
    i64 padded_pixels() const { return padded[0] * padded[1] * padded[2]; }
};

// The blocked kernel groups the pixels by the taps they read (blocked_kernels.inl) when each one's
// products per output channel, taps x ICg, are at least this many: conv1 (7x7 over 3 channels, 147) ran
// 8 % slower grouped, the grouping costing more than the taps it skips (bench/results/forward-padding.md).
constexpr i64 kBlockedGroupFrom = 256;
// dst bytes above which the NCX 1x1 tiles store their final full tiles non-temporally (BlockedProblem::
// stream_output): measured on the Xeon, 1 thread, batch 8, pw16_96_112 (38.5 MB of output) 11.2-11.4 -> 3.2-3.6 ms
// on NCHW (bench/results/forward-rows.md, "Streaming stores"); channels-last dst streams above half the last-level
// cache, and never below this (Options::stream_nxc_output_above)
constexpr i64 kStreamOutputAbove = i64{16} << 20;

// The register-blocked direct convolution. Weights packed [G][OCS][taps][ICg][NB*W] (W the vector
// width in floats, OCS = ceil(OCg / (NB*W)), zero padded); bias packed [G][OCS][NB*W] or null.
// Work items are (n, g, ocs, od, chunk of the output plane's pixels taken row after row), or (n, g, od,
// chunk, ocs) with ocs_innermost (blocked_pack.cpp says when); an item
// runs over blocks of `ic_block` input channels, and within each over the chunk in register tiles
// (a tile may span rows). Both block sizes depend only on the descriptor.
struct BlockedProblem {
    const Geometry* geometry = nullptr;
    const i64* tap_offsets = nullptr;  // per tap (kd, kh, kw): offset in xp floats, channel 0
    const float* weights = nullptr;
    const float* bias = nullptr;
    int vector_blocks = 1;             // NB
    i64 oc_super_blocks = 1;           // OCS
    i64 ic_block = 1;                  // input channels per cache block (the weights of a block stay in L2)
    i64 chunk_pixels = 1;              // output pixels per work item (blocked_pack.hpp: 32 tiles, or fewer)
    bool ocs_innermost = false;        // items in (n, g, od, chunk, ocs) order instead of (n, g, ocs, od, chunk)
    // The weights' steps in floats: from one input channel's NB*W lanes to the next's, and from one
    // super block (g, ocs) to the next; 0: the packed layout's (NB*W and taps*ICg*NB*W). The NCX 1x1
    // layer (ncx_pointwise.hpp) hands an image's rows in place of weights, its pixels as the lanes.
    i64 weights_ic_step = 0, weights_block_step = 0;
    // Where the xp handed to blocked_items begins: its padded plane (axis 0) and row (axis 1) of the image's
    // xp. 0 for a whole xp; a band's xp (padded_input_parts.hpp) begins at its first output's first input plane or row,
    // and its items read only the planes and rows that follow.
    i64 xp_first_plane = 0, xp_first_row = 0;
    // The xp handed to blocked_items is the user's src itself, unpadded (blocked_reads_src_in_place, conversions.hpp):
    // the geometry's `padded` equals `in`, the pixels' offsets are shifted by the padding, and a tile with
    // pixels near the border reads `zeros` (ic_block floats of 0) wherever a tap of a pixel lies in the
    // padding: the same products, in the same order, as from a padded copy.
    bool src_in_place = false;
    const float* zeros = nullptr;
    // The kernel's last input-channel block writes the user's dst, and dst is larger than the caches
    // (kStreamOutputAbove, Options::stream_nxc_output_above): full tiles go out with non-temporal stores, which skip the read for ownership of
    // lines that would not stay in a cache anyway (the same bits).
    bool stream_output = false;
    i64 chunks_per_plane() const {
        const Geometry& g = *geometry;
        return (g.out[1] * g.out[2] + chunk_pixels - 1) / chunk_pixels;
    }
    i64 work_items() const {
        const Geometry& g = *geometry;
        return g.batch * g.groups * oc_super_blocks * g.out[0] * chunks_per_plane();
    }
    // The i64 scratch a call of blocked_items or blocked_segment needs: two tap lists.
    i64 scratch_elements() const { return 2 * geometry->taps(); }
};

// Depthwise: ICg = OCg = 1. Weights packed [taps][Cs], bias [Cs] or null. Rows (n, od, oh).
// Its input is NOT padded ([N][D][H][W][Cs], so the user's f32 NHWC buffer serves when C % 16 == 0):
// the kernel skips the taps that fall outside, which is the zero padding.
struct DepthwiseProblem {
    const Geometry* geometry = nullptr;
    const i64* tap_offsets = nullptr;
    const float* weights = nullptr;
    const float* bias = nullptr;
    i64 rows() const { return geometry->batch * geometry->out[0] * geometry->out[1]; }
    // The i64 scratch a call of depthwise_rows needs: four tap lists (depthwise_kernels.inl), or for
    // the 3-wide kernel three lists of the input rows it reads, KD * (KH + 2) at most
    // (depthwise_k3_rows.inl).
    i64 scratch_elements() const {
        const Geometry& g = *geometry;
        const i64 general = 4 * g.taps(), k3_rows = 3 * g.kernel[0] * (g.kernel[1] + 2);
        return general > k3_rows ? general : k3_rows;
    }
};

// `count` pixels of one output row of group grp, output-channel super block ocs, for blocked_segment:
// x at the first pixel's tap-0 input (channel grp*ICg), y at its first output channel of the block;
// the steps between pixels are free (the CC polyphase path interleaves its outputs through
// y_pixel_step).
struct BlockedSegment {
    const float* x = nullptr;
    i64 x_pixel_step = 0;
    float* y = nullptr;
    i64 y_pixel_step = 0;
    i64 count = 0, grp = 0, ocs = 0;
    // A bias per pixel of the segment (every channel of pixel i starts from pixel_bias[i]) instead of the
    // problem's per channel, or null (the NCX 1x1 layer: its "pixels" are output channels)
    const float* pixel_bias = nullptr;
};

// The ISA entry points (the same in each ISA's namespace). blocked_items computes work items
// [begin, end) of y from xp; depthwise_rows rows [begin, end); blocked_segment one BlockedSegment.
// tile_width(nb) is the register tile's pixel count for nb vector blocks. `scratch` holds the
// problem's scratch_elements() (the caller's, from its workspace pool: one per concurrent call).
namespace avx512 {
int max_vector_blocks();
int tile_width(int vector_blocks);
void blocked_segment(const BlockedProblem& p, const BlockedSegment& segment, i64* scratch);
void blocked_items(const BlockedProblem& p, const float* xp, float* y, i64* scratch, i64 begin, i64 end);
void depthwise_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end);
}  // namespace avx512
namespace avx2 {
int max_vector_blocks();
int tile_width(int vector_blocks);
void blocked_segment(const BlockedProblem& p, const BlockedSegment& segment, i64* scratch);
void blocked_items(const BlockedProblem& p, const float* xp, float* y, i64* scratch, i64 begin, i64 end);
void depthwise_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end);
// Depthwise on f32 NCX buffers as they are (depthwise_ncx_avx2.cpp): kernel width 3, dilation 1 and
// stride 1 or 2 along w, rows wide enough for its vectors (takes_depthwise_ncx); rows (n, c, od, oh).
bool takes_depthwise_ncx(const Geometry& g);
void depthwise_ncx_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
