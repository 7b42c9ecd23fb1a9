// The register-blocked direct kernels, written once and compiled once per ISA: blocked_avx512.cpp
// and blocked_avx2.cpp define CONVCHECK_ISA_NAMESPACE, the vector type `vf`, its width W and
// load/broadcast/fma/store before including this file, each with its own -m flags.
//
// One register tile computes R output pixels times NB*W output channels, for one block of input
// channels [ic0, ic0 + icb):
//   acc[r][j] = (first block ? bias : y);  for tap (kd, kh, kw): for ic in the block:
//       w[j] = weights[tap][ic][j*W .. j*W+W);  acc[r][j] += xp[pixel(r) + tap, ic] * w[j]
//   y = acc
// so every output is summed in one order (bias, then per input-channel block: taps outermost-first,
// input channels), whatever tile or thread computes it; storing and reloading an f32 partial sum is
// exact. No std:: templates here: an inline function instantiated with AVX-512 enabled must not be
// shared with other units.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

struct TileArgs {
    const float* x;             // xp at the item's plane (tap 0), channel g*ICg + ic0
    const i64* x_offsets;       // per pixel of the tile: its offset from x
    const i64* tap_offsets;
    const i64* tap_list;        // the taps this tile visits (those inside the input for some pixel of it)
    i64 taps, in_per_group, ic_count;  // taps: entries of tap_list
    const float* w;             // packed weights of this (g, ocs), at [tap 0][ic0]: [taps][ICg][NB*W]
    const float* bias;          // packed bias of this (g, ocs), or null
    bool accumulate;            // start from y (a later input-channel block) instead of the bias
    float* y;                   // y at the tile's first pixel, first channel of the block
    i64 y_pixel_step;           // O
    i64 oc_valid;               // channels of the block that exist (<= NB*W)
};

template <int NB, int R>
void blocked_tile(const TileArgs& a) {
    constexpr int B = NB * W;
    vf acc[R][NB];
    i64 off[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) off[r] = a.x_offsets[r];
    if (a.accumulate && a.oc_valid == B) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[r][j] = load(a.y + r * a.y_pixel_step + j * W);
    } else if (a.accumulate) {
        float tile[R * B];
        for (int r = 0; r < R; ++r)
            for (i64 c = 0; c < B; ++c) tile[r * B + c] = c < a.oc_valid ? a.y[r * a.y_pixel_step + c] : 0.0f;
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[r][j] = load(tile + r * B + j * W);
    } else {
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) {
            const vf b = a.bias ? load(a.bias + j * W) : zero();
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) acc[r][j] = b;
        }
    }
    for (i64 tt = 0; tt < a.taps; ++tt) {
        const i64 t = a.tap_list[tt];
        const float* px = a.x + a.tap_offsets[t];
        const float* w = a.w + t * a.in_per_group * B;
        for (i64 ic = 0; ic < a.ic_count; ++ic) {
            vf wv[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) wv[j] = load(w + j * W);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const vf b = broadcast(px + off[r] + ic);
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) acc[r][j] = fma(b, wv[j], acc[r][j]);
            }
            w += B;
        }
    }
    if (a.oc_valid == B) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) store(a.y + r * a.y_pixel_step + j * W, acc[r][j]);
        return;
    }
    // A partial block: the channels past oc_valid belong to the next group or do not exist.
    float tile[R * B];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) store(tile + r * B + j * W, acc[r][j]);
    for (int r = 0; r < R; ++r)
        for (i64 c = 0; c < a.oc_valid; ++c) a.y[r * a.y_pixel_step + c] = tile[r * B + c];
}

using BlockedTileFn = void (*)(const TileArgs&);

template <int NB, int R>
BlockedTileFn pick_blocked(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &blocked_tile<NB, R> : pick_blocked<NB, R - 1>(r);
    }
}

BlockedTileFn blocked_tile_for(int nb, int r) {
    switch (nb) {
    case 1: return pick_blocked<1, kTileWidth[1]>(r);
    case 2: return pick_blocked<2, kTileWidth[2]>(r);
    case 3: return pick_blocked<3, kTileWidth[3]>(r);
#if CONVCHECK_MAX_NB >= 4
    case 4: return pick_blocked<4, kTileWidth[4]>(r);
#endif
    default: return nullptr;
    }
}

// Depthwise: R pixels of one row times W channels (groups) of one channel block. The input is not
// padded: the caller passes only the taps that fall inside the input (tap_offsets from `base`,
// tap_index the tap's (kd, kh, kw) number in the packed weights), so the zero padding is implicit.
template <int R>
void depthwise_tile(const float* x, i64 base, i64 x_pixel_step, const i64* tap_offsets, const i64* tap_index,
                    i64 taps, const float* w, i64 w_tap_step, const float* bias, float* y, i64 y_pixel_step,
                    i64 c_valid) {
    vf acc[R];
    const vf b = bias ? load(bias) : zero();
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = b;
    for (i64 t = 0; t < taps; ++t) {
        const float* px = x + (base + tap_offsets[t]);
        const vf wv = load(w + tap_index[t] * w_tap_step);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc[r] = fma(load(px + r * x_pixel_step), wv, acc[r]);
    }
    if (c_valid == W) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) store(y + r * y_pixel_step, acc[r]);
        return;
    }
    float tile[R * W];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) store(tile + r * W, acc[r]);
    for (int r = 0; r < R; ++r)
        for (i64 c = 0; c < c_valid; ++c) y[r * y_pixel_step + c] = tile[r * W + c];
}

using DepthwiseTileFn = void (*)(const float*, i64, i64, const i64*, const i64*, i64, const float*, i64, const float*,
                                 float*, i64, i64);

template <int R>
DepthwiseTileFn pick_depthwise(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &depthwise_tile<R> : pick_depthwise<R - 1>(r);
    }
}

// Depthwise, kernel width 3, dilation 1, stride S along w: each input vector of a kernel row is
// loaded once and used by every output of the tile that reads it ((R-1)*S + 3 loads for 3R FMAs
// instead of 3R). Same summation order as depthwise_tile: taps (kd, kh, kw) in order.
template <int R, int S>
void depthwise_tile_k3(const float* x, i64 base, i64 cs, const i64* tap_offsets, const i64* tap_index, i64 taps,
                       const float* w, const float* bias, float* y, i64 y_pixel_step, i64 c_valid) {
    constexpr int L = (R - 1) * S + 3;
    vf acc[R];
    const vf b = bias ? load(bias) : zero();
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = b;
    for (i64 t = 0; t < taps; t += 3) {  // one kernel row (kd, kh): taps t, t+1, t+2 are kw = 0, 1, 2
        const float* px = x + (base + tap_offsets[t]);
        const vf w0 = load(w + tap_index[t] * cs), w1 = load(w + (tap_index[t] + 1) * cs),
                 w2 = load(w + (tap_index[t] + 2) * cs);
        vf in[L];
#pragma GCC unroll 32
        for (int l = 0; l < L; ++l) in[l] = load(px + l * cs);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            acc[r] = fma(in[r * S], w0, acc[r]);
            acc[r] = fma(in[r * S + 1], w1, acc[r]);
            acc[r] = fma(in[r * S + 2], w2, acc[r]);
        }
    }
    if (c_valid == W) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) store(y + r * y_pixel_step, acc[r]);
        return;
    }
    float tile[R * W];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) store(tile + r * W, acc[r]);
    for (int r = 0; r < R; ++r)
        for (i64 c = 0; c < c_valid; ++c) y[r * y_pixel_step + c] = tile[r * W + c];
}

// Depthwise, one border pixel, CB channel blocks at once (CB independent accumulator chains instead of
// one chain of dependent FMAs per block). Same taps and order as depthwise_tile.
template <int CB>
void depthwise_pixel_channels(const float* x, i64 base, const i64* tap_offsets, const i64* tap_index, i64 taps,
                              const float* w, i64 w_tap_step, const float* bias, float* y) {
    vf acc[CB];
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) acc[c] = bias ? load(bias + c * W) : zero();
    for (i64 t = 0; t < taps; ++t) {
        const float* px = x + (base + tap_offsets[t]);
        const float* wt = w + tap_index[t] * w_tap_step;
#pragma GCC unroll 8
        for (int c = 0; c < CB; ++c) acc[c] = fma(load(px + c * W), load(wt + c * W), acc[c]);
    }
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) store(y + c * W, acc[c]);
}

using DepthwiseK3Fn = void (*)(const float*, i64, i64, const i64*, const i64*, i64, const float*, const float*, float*,
                               i64, i64);

template <int S, int R>
DepthwiseK3Fn pick_depthwise_k3(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &depthwise_tile_k3<R, S> : pick_depthwise_k3<S, R - 1>(r);
    }
}

inline i64 min_i64(i64 a, i64 b) { return a < b ? a : b; }

// Depthwise, kernel width 3, dilation 1, stride S: R consecutive outputs of one row, for every
// channel block in turn (one call per tile, so the per-call cost is spread over all channels). The
// tile reads input columns l = 0 .. L-1 (from the column of its first output's kw = 0 tap); each
// input vector of a kernel row is loaded once and serves every output that reads it. LEFT: column 0
// lies left of the input, RIGHT: column L-1 lies right of it (the zero padding); such a column is not
// loaded and its products are skipped, so each output sums exactly the taps inside the input, in
// (kd, kh, kw) order, as depthwise_tile does. rows: the kernel rows (kd, kh) inside the input, each
// with its offset from `base` (column 0) and its kw = 0 tap number in the packed weights.
template <int R, int S, bool LEFT, bool RIGHT>
void depthwise_k3_tile(const float* x, i64 base, i64 cs, const i64* row_offsets, const i64* row_taps, i64 rows,
                       const float* w, const float* bias, float* y, i64 y_pixel_step, i64 c_begin, i64 c_end) {
    constexpr int L = (R - 1) * S + 3;
    for (i64 c0 = c_begin; c0 < c_end; c0 += W) {
        vf acc[R];
        const vf b = bias ? load(bias + c0) : zero();
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc[r] = b;
        for (i64 k = 0; k < rows; ++k) {
            const float* wk = w + (row_taps[k] * cs + c0);
            const vf w0 = load(wk), w1 = load(wk + cs), w2 = load(wk + 2 * cs);
            const float* px = x + (base + row_offsets[k] + c0 + (LEFT ? cs : 0));  // column 0, or 1 with LEFT
            vf in[L];
#pragma GCC unroll 32
            for (int l = 0; l < L; ++l) {
                if ((LEFT && l == 0) || (RIGHT && l == L - 1)) {
                    in[l] = zero();
                    continue;
                }
                in[l] = load(px);
                px += cs;
            }
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                if (!(LEFT && r == 0)) acc[r] = fma(in[r * S], w0, acc[r]);
                acc[r] = fma(in[r * S + 1], w1, acc[r]);
                if (!(RIGHT && r * S + 2 == L - 1)) acc[r] = fma(in[r * S + 2], w2, acc[r]);
            }
        }
        float* yc = y + c0;
        if (c0 + W <= c_end) {
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                store(yc, acc[r]);
                yc += y_pixel_step;
            }
            continue;
        }
        float tile[R * W];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) store(tile + r * W, acc[r]);
        for (int r = 0; r < R; ++r)
            for (i64 c = 0; c < c_end - c0; ++c) yc[r * y_pixel_step + c] = tile[r * W + c];
    }
}

// Two output rows at once: rows oh and oh + 1 of one plane, height stride s (1 or 2) and height
// dilation 1, so that input row ih0 + j (j = 0 .. KH + s - 1) serves the first row's kernel row
// kh = j and the second one's kh = j - s: each input vector is loaded once for both rows (for a 3x3
// kernel 4 input rows for 2 output rows instead of 6 at stride 1, 5 instead of 6 at stride 2).
// Width stride S, LEFT and RIGHT as in depthwise_k3_tile. Entry e of the list: an input row (offset
// from `base`) and, for each output row, the kw = 0 tap number it reads there, or -1. Entries come
// in (kd, j) order, so each output sums its taps in (kd, kh, kw) order, exactly as
// depthwise_k3_tile does: the two kernels give the same bits.
template <int R, int S, bool LEFT, bool RIGHT>
void depthwise_k3_pair_tile(const float* x, i64 base, i64 cs, const i64* in_offsets, const i64* taps0,
                            const i64* taps1, i64 entries, const float* w, const float* bias, float* y0, float* y1,
                            i64 y_pixel_step, i64 c_begin, i64 c_end) {
    constexpr int L = (R - 1) * S + 3;
    for (i64 c0 = c_begin; c0 < c_end; c0 += W) {
        vf acc0[R], acc1[R];
        const vf b = bias ? load(bias + c0) : zero();
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = b;
        for (i64 e = 0; e < entries; ++e) {
            const float* px = x + (base + in_offsets[e] + c0 + (LEFT ? cs : 0));
            vf in[L];
#pragma GCC unroll 32
            for (int l = 0; l < L; ++l) {
                if ((LEFT && l == 0) || (RIGHT && l == L - 1)) {
                    in[l] = zero();
                    continue;
                }
                in[l] = load(px);
                px += cs;
            }
            if (taps0[e] >= 0) {
                const float* wk = w + (taps0[e] * cs + c0);
                const vf w0 = load(wk), w1 = load(wk + cs), w2 = load(wk + 2 * cs);
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) {
                    if (!(LEFT && r == 0)) acc0[r] = fma(in[r * S], w0, acc0[r]);
                    acc0[r] = fma(in[r * S + 1], w1, acc0[r]);
                    if (!(RIGHT && r == R - 1)) acc0[r] = fma(in[r * S + 2], w2, acc0[r]);
                }
            }
            if (taps1[e] >= 0) {
                const float* wk = w + (taps1[e] * cs + c0);
                const vf w0 = load(wk), w1 = load(wk + cs), w2 = load(wk + 2 * cs);
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) {
                    if (!(LEFT && r == 0)) acc1[r] = fma(in[r * S], w0, acc1[r]);
                    acc1[r] = fma(in[r * S + 1], w1, acc1[r]);
                    if (!(RIGHT && r == R - 1)) acc1[r] = fma(in[r * S + 2], w2, acc1[r]);
                }
            }
        }
        float* yc0 = y0 + c0;
        float* yc1 = y1 + c0;
        if (c0 + W <= c_end) {
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                store(yc0, acc0[r]);
                store(yc1, acc1[r]);
                yc0 += y_pixel_step;
                yc1 += y_pixel_step;
            }
            continue;
        }
        float tile[2 * R * W];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            store(tile + r * W, acc0[r]);
            store(tile + (R + r) * W, acc1[r]);
        }
        for (int r = 0; r < R; ++r)
            for (i64 c = 0; c < c_end - c0; ++c) {
                yc0[r * y_pixel_step + c] = tile[r * W + c];
                yc1[r * y_pixel_step + c] = tile[(R + r) * W + c];
            }
    }
}

using DepthwiseK3PairFn = void (*)(const float*, i64, i64, const i64*, const i64*, const i64*, i64, const float*,
                                   const float*, float*, float*, i64, i64, i64);

template <int S, int R>
DepthwiseK3PairFn pick_depthwise_k3_pair(int r, bool left, bool right) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        if (r != R) return pick_depthwise_k3_pair<S, R - 1>(r, left, right);
        if (left) return right ? &depthwise_k3_pair_tile<R, S, true, true> : &depthwise_k3_pair_tile<R, S, true, false>;
        return right ? &depthwise_k3_pair_tile<R, S, false, true> : &depthwise_k3_pair_tile<R, S, false, false>;
    }
}

using DepthwiseK3TileFn = void (*)(const float*, i64, i64, const i64*, const i64*, i64, const float*, const float*,
                                   float*, i64, i64, i64);

template <int S, int R>
DepthwiseK3TileFn pick_depthwise_k3_tile(int r, bool left, bool right) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        if (r != R) return pick_depthwise_k3_tile<S, R - 1>(r, left, right);
        if (left) return right ? &depthwise_k3_tile<R, S, true, true> : &depthwise_k3_tile<R, S, true, false>;
        return right ? &depthwise_k3_tile<R, S, false, true> : &depthwise_k3_tile<R, S, false, false>;
    }
}


}  // namespace

int max_vector_blocks() { return CONVCHECK_MAX_NB; }
int tile_width(int vector_blocks) { return kTileWidth[vector_blocks]; }

namespace {

// The taps a tile of output rows [oh_first, oh_last] (in plane od) visits: every (kd, kh) whose input
// row lies inside the input for at least one of its rows, with all kw. A tap that lies in the
// padding for every pixel of the tile only adds zeros, so it is skipped (as oneDNN does); the
// list depends only on the tile, never on the thread count.
// With merge_kw, only the kw = 0 tap of each kept (kd, kh) is listed: the caller runs the kw taps as
// one longer input-channel loop (see blocked_pixels).
i64 tile_taps(const Geometry& g, i64 od, i64 oh_first, i64 oh_last, bool merge_kw, i64* list) {
    i64 count = 0;
    for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
        const i64 id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
            const i64 ih_first = oh_first * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            const i64 ih_last = oh_last * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            if (ih_last < 0 || ih_first >= g.in[1]) continue;
            for (i64 kw = 0; kw < (merge_kw ? 1 : g.kernel[2]); ++kw)
                list[count++] = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
        }
    }
    return count;
}

// `count` pixels (x_offsets[i] from x, y at y + i*y_pixel_step) of one (g, ocs), every input-channel
// block in turn, in register tiles. rows: the output row of each pixel, or null for "every tap".
void blocked_pixels(const BlockedProblem& p, const float* x, const i64* x_offsets, const i64* rows, i64 od, float* y,
                    i64 y_pixel_step, i64 count, i64 grp, i64 ocs) {
    const Geometry& g = *p.geometry;
    const int nb = p.vector_blocks;
    const int full = kTileWidth[nb];
    const i64 block = static_cast<i64>(nb) * W;
    const i64 taps = g.taps();
    const BlockedTileFn full_tile = blocked_tile_for(nb, full);
    const BlockedTileFn last_tile = count % full ? blocked_tile_for(nb, static_cast<int>(count % full)) : nullptr;
    // When the kw taps of a kernel row read consecutive input (dilation_w 1, one group, no channel
    // padding, one input-channel block), the pairs (kw, ic) are KW*ICg consecutive floats of the input
    // and of the packed weights: the kernel runs them as one input-channel loop of KW*ICg. The
    // products and their order are exactly those of the tap-by-tap loop.
    const bool merge_kw = g.dilation[2] == 1 && g.groups == 1 && g.channel_stride == g.in_per_group &&
                          p.ic_block >= g.in_per_group && g.kernel[2] > 1;
    const i64 merged = merge_kw ? g.kernel[2] : 1;
    i64* all_taps = new i64[2 * taps];
    i64* some_taps = all_taps + taps;
    i64 all_count = 0;
    for (i64 t = 0; t < taps; t += merged) all_taps[all_count++] = t;
    TileArgs a;
    a.tap_offsets = p.tap_offsets;
    a.in_per_group = g.in_per_group;
    a.bias = p.bias ? p.bias + (grp * p.oc_super_blocks + ocs) * block : nullptr;
    a.y_pixel_step = y_pixel_step;
    a.oc_valid = min_i64(block, g.out_per_group - ocs * block);
    const float* w = p.weights + (grp * p.oc_super_blocks + ocs) * taps * g.in_per_group * block;
    const auto set_taps = [&](i64 first, i64 n) {
        if (rows == nullptr) {
            a.tap_list = all_taps;
            a.taps = all_count;
        } else {
            a.tap_list = some_taps;
            a.taps = tile_taps(g, od, rows[first], rows[first + n - 1], merge_kw, some_taps);
        }
    };
    for (i64 ic0 = 0; ic0 < g.in_per_group; ic0 += p.ic_block) {
        a.ic_count = min_i64(p.ic_block, g.in_per_group - ic0) * merged;
        a.accumulate = ic0 > 0;
        a.x = x + ic0;
        a.w = w + ic0 * block;
        i64 i = 0;
        for (; i + full <= count; i += full) {
            a.x_offsets = x_offsets + i;
            a.y = y + i * y_pixel_step;
            set_taps(i, full);
            full_tile(a);
        }
        if (i < count) {
            a.x_offsets = x_offsets + i;
            a.y = y + i * y_pixel_step;
            set_taps(i, count - i);
            last_tile(a);
        }
    }
    delete[] all_taps;
}

constexpr i64 kMaxChunk = 1024;

}  // namespace

void blocked_segment(const BlockedProblem& p, const float* x, i64 x_pixel_step, float* y, i64 y_pixel_step,
                     i64 count, i64 grp, i64 ocs) {
    i64 offsets[kMaxChunk];
    for (i64 i0 = 0; i0 < count; i0 += kMaxChunk) {
        const i64 n = min_i64(kMaxChunk, count - i0);
        for (i64 i = 0; i < n; ++i) offsets[i] = i * x_pixel_step;
        blocked_pixels(p, x + i0 * x_pixel_step, offsets, nullptr, 0, y + i0 * y_pixel_step, y_pixel_step, n, grp, ocs);
    }
}

void blocked_items(const BlockedProblem& p, const float* xp, float* y, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 block = static_cast<i64>(p.vector_blocks) * W;
    const i64 cs = g.channel_stride, chunks = p.chunks_per_plane(), plane = g.out[1] * g.out[2];
    i64 offsets[kMaxChunk], rows[kMaxChunk];
    for (i64 item = begin; item < end; ++item) {
        // item = (((n * G + grp) * OCS + ocs) * OD + od) * chunks + chunk
        i64 rest = item;
        const i64 chunk = rest % chunks; rest /= chunks;
        const i64 od = rest % g.out[0]; rest /= g.out[0];
        const i64 ocs = rest % p.oc_super_blocks; rest /= p.oc_super_blocks;
        const i64 grp = rest % g.groups;
        const i64 n = rest / g.groups;
        const i64 p0 = chunk * p.chunk_pixels, count = min_i64(p.chunk_pixels, plane - p0);
        for (i64 i = 0; i < count; ++i) {
            const i64 oh = (p0 + i) / g.out[2], ow = (p0 + i) % g.out[2];
            offsets[i] = (oh * g.stride[1] * g.padded[2] + ow * g.stride[2]) * cs;
            rows[i] = oh;
        }
        const float* x_plane = xp + (n * g.padded[0] + od * g.stride[0]) * g.padded[1] * g.padded[2] * cs +
                               grp * g.in_per_group;
        float* y_first = y + ((n * g.out[0] + od) * plane + p0) * g.out_channels + grp * g.out_per_group + ocs * block;
        blocked_pixels(p, x_plane, offsets, rows, od, y_first, g.out_channels, count, grp, ocs);
    }
}

namespace {

// Whole rows in depthwise_k3_tile: kernel width 3, dilation 1, stride 1 or 2, and at most one padding
// column on each side of a row (the first output's kw = 0, the last one's kw = 2).
bool takes_k3_rows(const Geometry& g) {
    const i64 s2 = g.stride[2], pb2 = g.pad_begin[2], OW = g.out[2];
    return g.kernel[2] == 3 && g.dilation[2] == 1 && (s2 == 1 || s2 == 2) && pb2 <= 1 && OW > 0 &&
           (OW - 1) * s2 - pb2 + 2 <= g.in[2];
}

// Rows [begin, end) by depthwise_k3_pair_tile, two rows of a plane at a time where the kernel has
// it (AVX-512, height stride 1 or 2, height dilation 1), and by depthwise_k3_tile otherwise; a row
// is cut into tiles of nearly equal widths. On layers that do not fit in the cache, before a tile
// runs, the input it covers in the rows that the next output rows add and the next rows' outputs
// under it are prefetched into L2: each input row comes from memory once, and is then needed at once
// by every channel block of a tile (measured: batch 8 of the 56x56 and 112x112 layers 1.5-2x faster).
void depthwise_k3_rows(const DepthwiseProblem& p, const float* x, float* y, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 cs = g.channel_stride, C = g.out_channels;
    const i64 D = g.in[0], H = g.in[1], Wd = g.in[2], OH = g.out[1], OW = g.out[2];
    const i64 KD = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
    const i64 s1 = g.stride[1], s2 = g.stride[2], pb2 = g.pad_begin[2];
    // the tiles of a row (single rows, and pairs of rows when the height stride is 1 or 2 and the
    // height dilation 1)
    const i64 widest = s2 == 1 ? kDepthwiseK3WidthS1 : kDepthwiseK3WidthS2;
    const i64 pair_width = s2 == 1 ? kDepthwiseK3PairWidthS1 : kDepthwiseK3PairWidthS2;
    const bool pairs = pair_width > 0 && (s1 == 1 || s1 == 2) && g.dilation[1] == 1;
    const i64 pair_widest = pair_width > 0 ? pair_width : 1;
    const i64 tiles = (OW + widest - 1) / widest, pair_tiles = pairs ? (OW + pair_widest - 1) / pair_widest : 1;
    DepthwiseK3TileFn* fns = new DepthwiseK3TileFn[tiles];  // per tile: its kernel and first output
    DepthwiseK3PairFn* pair_fns = new DepthwiseK3PairFn[pair_tiles + 1];
    i64* first = new i64[tiles + 1];
    i64* pair_first = new i64[pair_tiles + 1];
    const bool right_pad = (OW - 1) * s2 - pb2 + 2 == Wd;
    for (i64 t = 0, ow = 0; t < tiles; ++t) {
        const int r = static_cast<int>(OW / tiles + (t < OW % tiles ? 1 : 0));
        const bool left = t == 0 && pb2 == 1, right = t == tiles - 1 && right_pad;
        fns[t] = s2 == 1 ? pick_depthwise_k3_tile<1, kDepthwiseK3WidthS1>(r, left, right)
                         : pick_depthwise_k3_tile<2, kDepthwiseK3WidthS2>(r, left, right);
        first[t] = ow;
        ow += r;
    }
    first[tiles] = OW;
    for (i64 t = 0, ow = 0; pairs && t < pair_tiles; ++t) {
        const int r = static_cast<int>(OW / pair_tiles + (t < OW % pair_tiles ? 1 : 0));
        const bool left = t == 0 && pb2 == 1, right = t == pair_tiles - 1 && right_pad;
        pair_fns[t] = s2 == 1 ? pick_depthwise_k3_pair<1, kDepthwiseK3PairWidthS1>(r, left, right)
                              : pick_depthwise_k3_pair<2, kDepthwiseK3PairWidthS2>(r, left, right);
        pair_first[t] = ow;
        ow += r;
    }
    pair_first[pair_tiles] = OW;
    // the input rows the tile reads (inside the input), with their kw = 0 tap per output row or -1
    i64* offsets = new i64[KD * (KH + 2)];
    i64* taps0 = new i64[KD * (KH + 2)];
    i64* taps1 = new i64[KD * (KH + 2)];
    const i64 plane = D * H * Wd * cs;
    // Only when input and output are too large to stay in the cache between calls (over 16 MiB):
    // on smaller ones the hardware keeps up and the prefetches only cost instructions.
    const i64 bytes = (g.batch * plane + g.batch * g.out_pixels() * C) * static_cast<i64>(sizeof(float));
    const bool prefetch = bytes > (i64{16} << 20);
    for (i64 row = begin; row < end; ++row) {
        i64 rest = row;
        const i64 oh = rest % OH; rest /= OH;
        const i64 od = rest % g.out[0];
        const i64 n = rest / g.out[0];
        const i64 id0 = od * g.stride[0] - g.pad_begin[0], ih0 = oh * s1 - g.pad_begin[1];
        const i64 id_last = id0 + (KD - 1) * g.dilation[0];
        const float* image = x + n * plane;
        float* y_row = y + ((n * g.out[0] + od) * OH + oh) * OW * C;
        const bool pair = pairs && row + 1 < end && oh + 1 < OH;
        const i64 rows_here = pair ? 2 : 1;
        const i64 span = pair ? KH + s1 : KH;  // input rows per kd
        i64 count = 0;
        for (i64 kd = 0; kd < KD; ++kd) {
            const i64 id = id0 + kd * g.dilation[0];
            if (id < 0 || id >= D) continue;
            for (i64 j = 0; j < span; ++j) {
                const i64 ih = ih0 + j * g.dilation[1];
                if (ih < 0 || ih >= H) continue;
                offsets[count] = (id * H + ih) * Wd * cs;
                taps0[count] = j < KH ? (kd * KH + j) * KW : -1;
                taps1[count] = pair && j >= s1 ? (kd * KH + j - s1) * KW : -1;
                ++count;
            }
        }
        // the input rows new to the next output row(s) of this plane: the last s1 * rows_here kernel
        // rows of kd = last, and the next rows' outputs (while inside this call's rows)
        const i64 ih_new = ih0 + (KH - 1) * g.dilation[1] + 1 + (pair ? s1 : 0);
        const i64 ih_new_end = oh + rows_here < OH ? ih_new + s1 * rows_here : ih_new;
        i64 y_next_rows = end - (row + rows_here);
        if (y_next_rows > rows_here) y_next_rows = rows_here;
        const i64 n_tiles = pair ? pair_tiles : tiles;
        const i64* at = pair ? pair_first : first;
        for (i64 t = 0; t < n_tiles; ++t) {
            if (prefetch) {
                // into L2 (into L1 they would stall on its few fill buffers): the new input rows under
                // this tile (through the row's end on the last tile), and the next rows' outputs
                i64 iw0 = at[t] * s2 - pb2, iw1 = at[t + 1] * s2 - pb2 + (t == n_tiles - 1 ? 2 : 0);
                if (iw0 < 0) iw0 = 0;
                if (iw1 > Wd) iw1 = Wd;
                for (i64 ih = ih_new < 0 ? 0 : ih_new; ih < ih_new_end && ih < H && id_last >= 0 && id_last < D; ++ih) {
                    const char* from = reinterpret_cast<const char*>(image + ((id_last * H + ih) * Wd + iw0) * cs);
                    const char* to = reinterpret_cast<const char*>(image + ((id_last * H + ih) * Wd + iw1) * cs);
                    for (; from < to; from += 64) __builtin_prefetch(from, 0, 2);
                }
                for (i64 i = 0; i < y_next_rows; ++i) {
                    const char* from = reinterpret_cast<const char*>(y_row + ((rows_here + i) * OW + at[t]) * C);
                    const char* to = reinterpret_cast<const char*>(y_row + ((rows_here + i) * OW + at[t + 1]) * C);
                    for (; from < to; from += 64) __builtin_prefetch(from, 1, 2);
                }
            }
            if (pair)
                pair_fns[t](image, (at[t] * s2 - pb2) * cs, cs, offsets, taps0, taps1, count, p.weights, p.bias,
                            y_row + at[t] * C, y_row + (OW + at[t]) * C, C, 0, C);
            else
                fns[t](image, (at[t] * s2 - pb2) * cs, cs, offsets, taps0, count, p.weights, p.bias, y_row + at[t] * C,
                       C, 0, C);
        }
        row += rows_here - 1;
    }
    delete[] fns;
    delete[] pair_fns;
    delete[] first;
    delete[] pair_first;
    delete[] offsets;
    delete[] taps0;
    delete[] taps1;
}

}  // namespace

// x is the UNPADDED channels-last input [N][D][H][W][Cs] (geometry.in); pads are implicit.
void depthwise_rows(const DepthwiseProblem& p, const float* x, float* y, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    if (takes_k3_rows(g)) {
        depthwise_k3_rows(p, x, y, begin, end);
        return;
    }
    const i64 cs = g.channel_stride, taps = g.taps();
    const i64 D = g.in[0], H = g.in[1], Wd = g.in[2], OW = g.out[2];
    const i64 KD = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
    const i64 s2 = g.stride[2], dl2 = g.dilation[2], pb2 = g.pad_begin[2];
    const i64 x_step = s2 * cs;
    // interior outputs [ow_lo, ow_hi): every kw tap inside [0, W)
    i64 ow_lo = pb2 > 0 ? (pb2 + s2 - 1) / s2 : 0;
    const i64 last = Wd - 1 - (KW - 1) * dl2 + pb2;  // ow * s2 <= last
    i64 ow_hi = last < 0 ? 0 : last / s2 + 1;
    if (ow_lo > OW) ow_lo = OW;
    if (ow_hi > OW) ow_hi = OW;
    if (ow_hi < ow_lo) ow_hi = ow_lo;
    i64* row_offsets = new i64[taps];
    i64* row_index = new i64[taps];
    i64* pixel_offsets = new i64[taps];
    i64* pixel_index = new i64[taps];
    const DepthwiseTileFn full_tile = pick_depthwise<kDepthwiseTileWidth>(kDepthwiseTileWidth);
    const DepthwiseTileFn one = pick_depthwise<kDepthwiseTileWidth>(1);
    for (i64 row = begin; row < end; ++row) {
        i64 rest = row;
        const i64 oh = rest % g.out[1]; rest /= g.out[1];
        const i64 od = rest % g.out[0];
        const i64 n = rest / g.out[0];
        const i64 id0 = od * g.stride[0] - g.pad_begin[0], ih0 = oh * g.stride[1] - g.pad_begin[1];
        // the taps of this row whose (id, ih) lies inside the input, in (kd, kh, kw) order
        i64 valid = 0;
        for (i64 kd = 0; kd < KD; ++kd) {
            const i64 id = id0 + kd * g.dilation[0];
            if (id < 0 || id >= D) continue;
            for (i64 kh = 0; kh < KH; ++kh) {
                const i64 ih = ih0 + kh * g.dilation[1];
                if (ih < 0 || ih >= H) continue;
                for (i64 kw = 0; kw < KW; ++kw) {
                    row_offsets[valid] = ((id * H + ih) * Wd + kw * dl2) * cs;
                    row_index[valid] = (kd * KH + kh) * KW + kw;
                    ++valid;
                }
            }
        }
        const i64 image = n * D * H * Wd * cs;
        float* y_row = y + ((n * g.out[0] + od) * g.out[1] + oh) * OW * g.out_channels;
        // border pixels: keep only the taps whose iw lies inside the input
        for (i64 ow = 0; ow < OW; ++ow) {
            if (ow == ow_lo) ow = ow_hi;
            if (ow >= OW) break;
            i64 kept = 0;
            for (i64 t = 0; t < valid; ++t) {
                const i64 iw = ow * s2 - pb2 + (row_index[t] % KW) * dl2;
                if (iw < 0 || iw >= Wd) continue;
                pixel_offsets[kept] = row_offsets[t];
                pixel_index[kept] = row_index[t];
                ++kept;
            }
            i64 c0 = 0;
            for (; c0 + 4 * W <= g.out_channels; c0 += 4 * W)
                depthwise_pixel_channels<4>(x, image + (ow * s2 - pb2) * cs + c0, pixel_offsets, pixel_index, kept,
                                            p.weights + c0, cs, p.bias ? p.bias + c0 : nullptr,
                                            y_row + ow * g.out_channels + c0);
            for (; c0 < g.out_channels; c0 += W)
                one(x, image + (ow * s2 - pb2) * cs + c0, x_step, pixel_offsets, pixel_index, kept, p.weights + c0, cs,
                    p.bias ? p.bias + c0 : nullptr, y_row + ow * g.out_channels + c0, g.out_channels,
                    min_i64(W, g.out_channels - c0));
        }
        // interior tiles; all channel blocks of a tile in turn, so that its pixels' lines are used together
        i64 ow = ow_lo;
        if (KW == 3 && dl2 == 1 && (s2 == 1 || s2 == 2)) {
            const i64 width = s2 == 1 ? kDepthwiseK3WidthS1 : kDepthwiseK3WidthS2;
            for (; ow < ow_hi; ow += width) {
                const int r = static_cast<int>(min_i64(width, ow_hi - ow));
                const DepthwiseK3Fn tile = s2 == 1 ? pick_depthwise_k3<1, kDepthwiseK3WidthS1>(r)
                                                   : pick_depthwise_k3<2, kDepthwiseK3WidthS2>(r);
                for (i64 c0 = 0; c0 < g.out_channels; c0 += W)
                    tile(x, image + (ow * s2 - pb2) * cs + c0, cs, row_offsets, row_index, valid, p.weights + c0,
                         p.bias ? p.bias + c0 : nullptr, y_row + ow * g.out_channels + c0, g.out_channels,
                         min_i64(W, g.out_channels - c0));
            }
        }
        for (; ow < ow_hi; ow += kDepthwiseTileWidth) {
            const i64 r = min_i64(kDepthwiseTileWidth, ow_hi - ow);
            const DepthwiseTileFn tile = r == kDepthwiseTileWidth ? full_tile : pick_depthwise<kDepthwiseTileWidth>(static_cast<int>(r));
            for (i64 c0 = 0; c0 < g.out_channels; c0 += W)
                tile(x, image + (ow * s2 - pb2) * cs + c0, x_step, row_offsets, row_index, valid, p.weights + c0, cs,
                     p.bias ? p.bias + c0 : nullptr, y_row + ow * g.out_channels + c0, g.out_channels,
                     min_i64(W, g.out_channels - c0));
        }
    }
    delete[] row_offsets;
    delete[] row_index;
    delete[] pixel_offsets;
    delete[] pixel_index;
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
