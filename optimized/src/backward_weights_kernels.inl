// The backward-weights kernels, written once and compiled once per ISA (backward_weights_avx512.cpp,
// backward_weights_avx2.cpp include their ISA's vocabulary and tile sizes, then this file).
//
// A tile holds R x NB vectors of accumulators for the whole reduction of one block of output rows:
//   general:   acc[r][j] += xp(pixel, tap(q_r), ic(q_r)) * dy(pixel, oc block j)      (broadcast x, vector dy)
//   depthwise: acc[r][j] += xp(pixel, tap r, channels j) * dy(pixel, channels j)       (both vectors)
// for the pixels of the block in increasing (n, od, oh, ow) order; the next block continues from the
// f32 partial sum stored in dw (exact). So every element is summed in increasing pixel order, whatever
// the tile, the block or the thread. The last tile of a lane or row range reads valid rows again
// (its rows past the end repeat the last one) and stores only what exists.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// The accumulators' home in dw: element (r, lane) at at(r, lane); rows past `rows` and lanes past
// `lanes` are neither read nor written.
struct TileHome {
    float* dw;
    i64 row_step, lane_step;  // general: OCg and 1; depthwise: 1 and taps
    i64 rows, lanes;
    float& at(i64 r, i64 lane) const { return dw[r * row_step + lane * lane_step]; }
};

template <int R, int NB>
[[gnu::always_inline]] inline void home_load(vf* acc, const TileHome& h) {
    constexpr int B = NB * W;
    if (h.rows == R && h.lane_step == 1) {
        load_tile<R, NB>(acc, h.dw, h.row_step, h.lanes);
        return;
    }
    float tile[R * B];
    for (int r = 0; r < R; ++r)
        for (i64 l = 0; l < B; ++l) tile[r * B + l] = r < h.rows && l < h.lanes ? h.at(r, l) : 0.0f;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) acc[r * NB + j] = load(tile + r * B + j * W);
}

template <int R, int NB>
[[gnu::always_inline]] inline void home_store(const vf* acc, const TileHome& h) {
    constexpr int B = NB * W;
    if (h.rows == R && h.lane_step == 1) {
        store_tile<R, NB>(acc, h.dw, h.row_step, h.lanes);
        return;
    }
    float tile[R * B];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) store(tile + r * B + j * W, acc[r * NB + j]);
    for (i64 r = 0; r < h.rows; ++r)
        for (i64 l = 0; l < h.lanes; ++l) h.at(r, l) = tile[r * B + l];
}

// One tile over output rows [row_begin, row_end): x at the group's channel 0 (general) or the lane
// block's first channel (depthwise) of xp; dy at the lane block's first channel; off[r] per tile row.
template <int R, int NB, bool Depthwise>
void tile_rows(const Geometry& g, const float* x, const float* dy, const i64* off, const TileHome& home, bool first,
               i64 row_begin, i64 row_end) {
    vf acc[R * NB];
    if (first) {
#pragma GCC unroll 64
        for (int i = 0; i < R * NB; ++i) acc[i] = zero();
    } else {
        home_load<R, NB>(acc, home);
    }
    const i64 Cs = g.channel_stride, O = g.out_channels, OW = g.out[2];
    const i64 x_step = g.stride[2] * Cs;
    for (i64 row = row_begin; row < row_end; ++row) {
        const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
        const float* xr = x + (((n * g.padded[0] + od * g.stride[0]) * g.padded[1] + oh * g.stride[1]) * g.padded[2]) * Cs;
        const float* dr = dy + row * OW * O;
        for (i64 ow = 0; ow < OW; ++ow, xr += x_step, dr += O) {
            vf d[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) d[j] = load(dr + j * W);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                if constexpr (Depthwise) {
#pragma GCC unroll 4
                    for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(load(xr + off[r] + j * W), d[j], acc[r * NB + j]);
                } else {
                    const vf b = broadcast(xr + off[r]);
#pragma GCC unroll 4
                    for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, d[j], acc[r * NB + j]);
                }
            }
        }
    }
    home_store<R, NB>(acc, home);
}

template <int NB, bool Depthwise>
void items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, i64 row_begin, i64 row_end,
           i64 begin, i64 end) {
    constexpr int R = Depthwise ? kDepthwiseRows : kGeneralRows[NB];
    constexpr i64 B = NB * W;
    const Geometry& g = *p.geometry;
    const i64 taps = g.taps(), ICg = g.in_per_group, OCg = g.out_per_group;
    const i64 rows_total = Depthwise ? taps : taps * ICg;
    const i64 lanes_total = Depthwise ? g.out_channels : OCg;
    const i64 chunks = p.chunks();
    for (i64 item = begin; item < end; ++item) {
        const i64 chunk = item % chunks, lb = (item / chunks) % p.lane_blocks, grp = item / (chunks * p.lane_blocks);
        const i64 lane0 = lb * B, lanes = min_i64(B, lanes_total - lane0);
        const float* x = xp + (Depthwise ? lane0 : grp * ICg);
        const float* d = dy + (Depthwise ? lane0 : grp * OCg + lane0);
        const i64 tile_end = min_i64(p.tiles, (chunk + 1) * p.tiles_per_item);
        for (i64 rb = row_begin; rb < row_end; rb += p.rows_per_block) {
            const i64 re = min_i64(row_end, rb + p.rows_per_block);
            for (i64 tile = chunk * p.tiles_per_item; tile < tile_end; ++tile) {
                const i64 q0 = tile * R, rows = min_i64(R, rows_total - q0);
                i64 off[R];
                for (int r = 0; r < R; ++r) {
                    const i64 q = q0 + min_i64(r, rows - 1);
                    off[r] = Depthwise ? p.tap_offsets[q] : p.tap_offsets[q / ICg] + q % ICg;
                }
                const TileHome home = Depthwise ? TileHome{dw + lane0 * taps + q0, 1, taps, rows, lanes}
                                                : TileHome{dw + (grp * rows_total + q0) * OCg + lane0, OCg, 1, rows, lanes};
                tile_rows<R, NB, Depthwise>(g, x, d, off, home, rb == row_begin, rb, re);
            }
        }
    }
}

}  // namespace

int backward_lanes() { return W; }
int backward_tile_rows(bool depthwise, int vector_blocks) { return depthwise ? kDepthwiseRows : kGeneralRows[vector_blocks]; }
int backward_max_vector_blocks(bool depthwise) { return depthwise ? kDepthwiseBlocks : kGeneralMaxBlocks; }

void backward_weights_items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, i64 row_begin,
                            i64 row_end, i64 begin, i64 end) {
    if (p.depthwise) {
        items<kDepthwiseBlocks, true>(p, xp, dy, dw, row_begin, row_end, begin, end);
        return;
    }
    switch (p.vector_blocks) {
    case 1: items<1, false>(p, xp, dy, dw, row_begin, row_end, begin, end); return;
    case 2: items<2, false>(p, xp, dy, dw, row_begin, row_end, begin, end); return;
    case 3: items<3, false>(p, xp, dy, dw, row_begin, row_end, begin, end); return;
    default: items<kGeneralMaxBlocks, false>(p, xp, dy, dw, row_begin, row_end, begin, end); return;
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
