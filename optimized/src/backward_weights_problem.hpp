// Internal: the plain struct the backward-weights kernels read, and their ISA entry points (included
// by the ISA units: plain structs only, see problem.hpp).
//
//   dw(g, t, ic, oc) = sum over output rows (n, od, oh), then ow, in increasing order, of
//                      xp(n, od*S + kd*D, oh*S + kh*D, ow*S + kw*D, g*ICg + ic) * dy(n, od, oh, ow, g*OCg + oc)
// xp: the padded input, channels last, Cs = C (make_geometry(d, 1)); dy: diff_dst channels last
// [N][OD][OH][OW][O]; dw: [G][taps][ICg][OCg] f32 (depthwise: [taps][C]). Both inputs carry kBackwardSlackFloats floats after
// their last element, which vector loads past the last channel may read (those lanes are never stored).
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

inline constexpr i64 kBackwardSlackFloats = 64;

// A work item is (group, chunk of tiles, chunk of lane blocks). General: a tile is R (tap,
// input channel) rows (row q = t*ICg + ic) times NB vectors of the group's output channels; per block of
// `block_pixels` output pixels the item packs diff_dst into per-lane-block panels [pixel][NB*W] and its
// tiles' inputs into panels [pixel][R], then runs a register-tile product over them. Depthwise (ICg =
// OCg = 1): a tile is R taps times NB vectors of channels (the group axis folded into the lanes), read
// from rows packed per lane block (backward_weights_depthwise.inl).
struct BackwardWeightsProblem {
    const Geometry* geometry = nullptr;
    const i64* tap_offsets = nullptr;  // per tap: offset in xp floats, channel 0
    // Depthwise: x's sizes and pads (the user's src with implicit padding, or the padded copy with
    // none), and a row of zeros to read for a tap in the padding: (padded width + 1) * NB*W floats.
    const Geometry* x_geometry = nullptr;
    const float* zeros = nullptr;
    bool depthwise = false;
    // General: xp is the user's src without its padding (x's sizes in[]; tap_offsets for those): a tile
    // of one tap reads it in place at the pixels where its tap reads x only, a tile of several taps is
    // packed, zeros where its tap reads padding.
    bool x_unpadded = false;
    int vector_blocks = 1;             // NB
    int tile_rows = 1;                 // R
    int lanes = 1;                     // floats per vector (W)
    i64 lane_blocks = 1;               // per group: ceil(OCg / (NB*W)); depthwise: ceil(C / (NB*W))
    i64 tiles = 1;                     // ceil(taps*ICg / R); depthwise: ceil(taps / R)
    i64 tiles_per_item = 1;
    i64 block_pixels = 1;              // output pixels per cache block of the reduction (general)
    bool dy_direct = false;            // general: diff_dst read in place, not packed per lane block
    // General, AVX2, a 1x1 layer without padding whose pixels of x are a multiple of 4 KB apart or of diff_dst 2 KB
    // (plan_problem): a tile reading x in place is packed instead, once a block before its lane blocks ([pixel][R])
    bool x_packed_per_tile = false;
    // General, AVX2, a kernel of several taps whose pixels of x along the width and of diff_dst are each a multiple of
    // 1 KB apart (plan_problem): every tile's x is packed a block at a time (none read in place), and diff_dst too
    bool x_packed = false;
    // With bias: dw[bias_at + o] = sum over the same output pixels, in the same order, of dy(pixel, o),
    // written by the items of tile chunk 0 (the general kernel while it packs diff_dst, into the `bias`
    // it is given; the depthwise one in its tiles of tap 0, at dw + bias_at); -1 without bias.
    i64 bias_at = -1;
    i64 item_groups() const { return depthwise ? 1 : geometry->groups; }
    i64 lane_blocks_per_item = 1;      // an item's lane blocks (the cache rules: all of them but for 1x1 layers)
    i64 tile_chunks() const { return (tiles + tiles_per_item - 1) / tiles_per_item; }
    i64 lane_chunks() const { return (lane_blocks + lane_blocks_per_item - 1) / lane_blocks_per_item; }
    i64 chunks() const { return tile_chunks() * lane_chunks(); }  // item = (group, tile chunk, lane chunk)
    i64 work_items() const { return item_groups() * chunks(); }
    i64 output_rows() const { return geometry->batch * geometry->out[0] * geometry->out[1]; }
    // The scratch one call needs: floats (the panels) and i64 (general: the block's pixel offsets and
    // which of the item's tiles read x in place, the block's output rows and the runs of pixels a tile reads x at).
    // Depthwise: output rows per block (a tile runs over a block; at most 128), and the packed input
    // rows kept (the rows one block reads, and as many again).
    i64 rows_per_block = 1;
    // Depthwise: x (its rows' lane blocks C floats a pixel apart, zeros read outside its columns) and
    // diff_dst read where they are, not packed (plan_problem says when).
    bool depthwise_x_direct = false, depthwise_dy_direct = false;
    // Depthwise: floats per lane block of a packed row, its (padded) width times NB*W, plus one
    // vector when that is a multiple of 256 bytes (the lane blocks' rows, which the packing writes
    // together, would share a few L1 sets: 2x slower packing for 576 channels, 14 pixels).
    i64 depthwise_plane(i64 width) const {
        const i64 floats = width * vector_blocks * lanes;
        return floats % 64 == 0 ? floats + vector_blocks * lanes : floats;
    }
    i64 depthwise_plane() const { return depthwise_plane(geometry->padded[2]); }  // of an input row
    i64 depthwise_dy_plane() const { return depthwise_plane(geometry->out[2]); }  // of a diff_dst row
    i64 depthwise_slots() const { return (rows_per_block + 1) * geometry->kernel[0] * geometry->kernel[1]; }
    i64 scratch_floats() const {
        const i64 block = static_cast<i64>(vector_blocks) * lanes;
        if (depthwise)
            return lane_blocks * ((depthwise_x_direct ? 0 : depthwise_slots() * depthwise_plane()) +
                                  (depthwise_dy_direct ? 0 : rows_per_block * depthwise_dy_plane()));
        return block_pixels * (tiles_per_item * tile_rows + lane_blocks_per_item * block);
    }
    i64 scratch_offsets() const {
        const i64 KR = geometry->kernel[0] * geometry->kernel[1];
        return depthwise ? 2 * depthwise_slots() + rows_per_block * (2 * KR + tile_rows) : 12 * block_pixels + 3 + tiles_per_item + 4 * KR * geometry->kernel[2];
    }
};

// backward_add_parts: elements [begin, end) of the parts' sums, to[i] = dw[i] + dw[gradient + i] + ...
// (parts of `gradient` floats each) in part order (to may be dw).
// Items [begin, end) of dw, reducing output rows [row_begin, row_end): dw = sum over those rows (the
// previous contents of dw are overwritten; the general kernel's bias sums go to bias, the depthwise
// kernel's to dw + bias_at). scratch: the problem's scratch_floats() and scratch_offsets().
namespace avx512 {
void backward_add_parts(const float* dw, i64 gradient, i64 parts, i64 begin, i64 end, float* to);
int backward_lanes();
int backward_tile_rows(bool depthwise, int vector_blocks);
int backward_max_vector_blocks(bool depthwise);
void backward_weights_items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, float* bias,
                            i64 row_begin, i64 row_end, i64 begin, i64 end, float* scratch, i64* offsets);
}  // namespace avx512
namespace avx2 {
void backward_add_parts(const float* dw, i64 gradient, i64 parts, i64 begin, i64 end, float* to);
int backward_lanes();
int backward_tile_rows(bool depthwise, int vector_blocks);
int backward_max_vector_blocks(bool depthwise);
void backward_weights_items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, float* bias,
                            i64 row_begin, i64 row_end, i64 begin, i64 end, float* scratch, i64* offsets);
}  // namespace avx2
// The portable loops (no vector ISA): the same sums in the same order.
void backward_weights_items_scalar(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw,
                                   i64 row_begin, i64 row_end, i64 begin, i64 end);

}  // namespace convcheck::optimized::detail
