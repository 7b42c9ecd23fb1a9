// Internal: backward data of one phase (backward_phases.hpp) of a one-group layer, f32 channels last,
// straight from diff_dst into diff_src, in register tiles of R consecutive outputs of one row. The phase
// is a stride-1 forward convolution of diff_dst with the flipped, transposed kernel; here diff_dst is
// read in place (no padded copy) and every product of a padding zero is skipped exactly, as oneDNN's
// kernels do: a tile visits the (kd, kh) whose input row exists, and for each kw only the pixels
// [a, b) of the tile whose input column exists (a and R - b at most kRowsMaxSkip: the plan checks it).
//   diff_src(n, x(j), c) = sum over phase taps t in increasing (kd, kh, kw) order whose input is inside,
//                          then over o in increasing order, of diff_dst(n, j - P + t*D, o) * W'(c, o, t)
// in f32 FMAs from zero, or from the bias (forward_rows.hpp), one order for any thread count; x(j) = r + S*j
// per axis. The row's tiles are as equal as the widest tile allows (a 56-wide row as ten tiles of 5-6 with
// NB = 4 on AVX-512). A tile whose pixels all read inside at every kw (dilation 1) runs a kernel row's taps
// as one loop over kw and the channels: their inputs and weights lie one after the other, the same products
// in the same order. Work: rows (super block of NB*W channels, n, jd, jh), each written by one task; in groups
// of super blocks (RowsBackwardData::group), (group, n, jd, jh, super block); image by image (image_major),
// (n, super block, jd, jh).
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

inline constexpr i64 kRowsMaxSkip = 2;

struct RowsBackwardData {
    const Geometry* geometry = nullptr;  // the phase's forward convolution (make_geometry(phase.forward, 1))
    const float* weights = nullptr;      // [super block][taps][O][NB*W] f32, zeros past C
    int vector_blocks = 1;               // NB
    i64 super_blocks = 1;                // ceil(C / (NB*W))
    int tile = 1;                        // the widest tile's outputs (<= rows_tile_width(NB))
    // P: output rows per work row; 2 (NB = 2, rows of at most rows_pair_width() outputs, one tile each): the rows
    // (jd, jh) and (jd, jh + 1) in one tile, each sum's terms in the same order as in a tile of one row
    int tile_rows = 1;
    // diff_src's sizes and the phase's residues and steps (outermost first): output j of axis a is x = r + S*j
    i64 X[3]{1, 1, 1}, r[3]{0, 0, 0}, S[3]{1, 1, 1};
    // [super block][NB*W], zeros past C: each output's first term (the forward's bias, forward_rows.hpp); or
    // null: the sums start from zero
    const float* bias = nullptr;
    // super blocks per group (G): work rows run in the order (group, n, jd, jh, super block within the group), so
    // that a row's input serves G super blocks while it is in L1 and the group's weights stay in L2 over the images;
    // 1: (super block, n, jd, jh), every image's input streamed once per super block
    i64 group = 1;
    // true (group = 1 only): the order (n, super block, jd, jh), an image's input kept in L2 over its super blocks and
    // every super block's weights streamed once per image
    bool image_major = false;
    // floats from one input pixel to the next (0: in_channels, the input's own): the forward's pitched copy
    // (forward_rows.hpp, forward_rows_pitch); with another pitch a kernel row's kw run as separate loops
    i64 pixel_pitch = 0;
    bool stream_output = false;  // full tiles stored non-temporally (diff_src past the streaming bound)
    i64 input_pitch() const { return pixel_pitch != 0 ? pixel_pitch : geometry->in_channels; }
    i64 rows() const { return super_blocks * geometry->batch * geometry->out[0] * ((geometry->out[1] + tile_rows - 1) / tile_rows); }
};

// The pixels [*a, *b) of a tile of R outputs from output column w0 whose input column at tap kw exists (the
// forward's column stride: 1 in every phase of backward data; the forward's row kernel may have 2 or more).
inline void rows_tap_pixels(const Geometry& g, i64 w0, i64 kw, i64 R, i64* a, i64* b) {
    const i64 s = g.stride[2], iw = w0 * s - g.pad_begin[2] + kw * g.dilation[2];  // pixel 0's input column
    *a = iw < 0 ? (-iw + s - 1) / s : 0;
    const i64 past = g.in[2] - iw;  // pixel r reads inside while r * s < past
    *b = past <= 0 ? 0 : (past + s - 1) / s < R ? (past + s - 1) / s : R;
}

// Whether every tile of a row (`tile` outputs wide at most) skips at most kRowsMaxSkip pixels at either
// end for any kw: the kernel has a loop for each such pair (backward_data_rows_plan.cpp).
bool rows_tiles_fit(const Geometry& g, int tile);
// NB and the widest tile for g's rows with `lanes` channels per output (forward_rows.cpp: a cost per row).
void rows_choose_blocks(const Geometry& g, i64 lanes, bool avx512, int* nb, int* tile);
// The kernel's weights from f32 weights [lanes][reduction][taps] (the forward's [O][C][taps], a backward-data
// phase's [C][O][taps]): to[super block][taps][reduction][block], zeros past `lanes` (to holds as many floats).
void pack_rows_weights(const float* from, i64 lanes, i64 reduction, i64 taps, i64 block, float* to);

namespace avx512 {
int rows_max_blocks();
int rows_tile_width(int vector_blocks);
int rows_pair_width();
void rows_backward_data(const RowsBackwardData& p, const float* dy, float* dx, i64 begin, i64 end);
}  // namespace avx512
namespace avx2 {
int rows_max_blocks();
int rows_tile_width(int vector_blocks);
int rows_pair_width();
void rows_backward_data(const RowsBackwardData& p, const float* dy, float* dx, i64 begin, i64 end);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
