// The row-tile backward-data kernel (backward_data_rows.hpp), compiled once per ISA; the ISA's unit gives
// kRowsTile[NB] (outputs per tile for NB vectors) and kRowsMaxBlocks.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// Whether pixel r of a tile of rows of Q outputs takes part in a tap: its column within [A, Q - Cut) and
// its row (r / Q) in the bit set Rows.
constexpr bool rows_pixel_in(int r, int Q, int A, int Cut, int Rows) {
    return r % Q >= A && r % Q < Q - Cut && ((Rows >> (r / Q)) & 1) != 0;
}

// Tap t's products for the tile's pixels in the set above: from[r] is pixel r's diff_dst at channel 0.
template <int NB, int R, int Q, int A, int Cut, int Rows>
[[gnu::always_inline]] inline void rows_tap(vf* acc, const float* const* from, const float* w, i64 O) {
    constexpr int B = NB * W;
    for (i64 o = 0; o < O; ++o) {
        vf wv[NB];
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) wv[j] = load(w + o * B + j * W);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            if (!rows_pixel_in(r, Q, A, Cut, Rows)) continue;
            const vf b = broadcast(from[r] + o);
#pragma GCC unroll 8
            for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, wv[j], acc[r * NB + j]);
        }
    }
}

// The loop for the columns [a, Q - cut) (a, cut <= kRowsMaxSkip, a + cut < Q) of the rows in the set `rows`
// (a tile of one row: Q = R, rows = 1; of two rows: Q = R / 2, rows 1, 2 or 3).
template <int NB, int R, int Q>
[[gnu::always_inline]] inline void rows_tap_range(vf* acc, const float* const* from, const float* w, i64 O, i64 a, i64 cut,
                                                  int rows) {
    static_assert(kRowsMaxSkip == 2, "one case per pair (a, cut) below");
    static_assert(R == Q || R == 2 * Q, "tiles of one or two rows");
#define CONVCHECK_ROWS_CASE(A, C)                                                            \
    if constexpr (A + C < Q)                                                                 \
        if (a == A && cut == C) {                                                            \
            if (rows == 1) return rows_tap<NB, R, Q, A, C, 1>(acc, from, w, O);              \
            if constexpr (R == 2 * Q) {                                                      \
                if (rows == 2) return rows_tap<NB, R, Q, A, C, 2>(acc, from, w, O);          \
                return rows_tap<NB, R, Q, A, C, 3>(acc, from, w, O);                         \
            }                                                                                \
        }
    CONVCHECK_ROWS_CASE(0, 0)
    CONVCHECK_ROWS_CASE(1, 0)
    CONVCHECK_ROWS_CASE(0, 1)
    CONVCHECK_ROWS_CASE(1, 1)
    CONVCHECK_ROWS_CASE(2, 0)
    CONVCHECK_ROWS_CASE(0, 2)
    CONVCHECK_ROWS_CASE(2, 1)
    CONVCHECK_ROWS_CASE(1, 2)
    CONVCHECK_ROWS_CASE(2, 2)
#undef CONVCHECK_ROWS_CASE
}

// One tile: R outputs of the phase, super block cs, as P = R / Q rows (jd, jh + i) of Q outputs from column
// w0 (P = 2: whole rows, w0 = 0); x: the image's diff_dst; to: diff_src at the tile's first pixel, channel
// cs*B; to_step: floats between its pixels, to_row: between its rows.
template <int NB, int R, int Q>
void rows_tile(const RowsBackwardData& p, const float* x, i64 jd, i64 jh, i64 w0, float* to, i64 to_step, i64 to_row,
               i64 valid, const float* w, const float* bias) {
    constexpr int P = R / Q;
    const Geometry& g = *p.geometry;
    const i64 O = g.in_channels, B = static_cast<i64>(NB) * W, pitch = p.input_pitch();
    vf acc[R * NB];
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
        const vf b = bias ? load(bias + j * W) : zero();
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc[r * NB + j] = b;
    }
    for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
        const i64 id = jd * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
            const float* row[P];
            int rows = 0;  // the tile's rows whose input row exists
            for (int i = 0; i < P; ++i) {
                const i64 ih = (jh + i) * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                const bool inside = ih >= 0 && ih < g.in[1];
                rows |= inside ? 1 << i : 0;
                row[i] = x + (inside ? (id * g.in[1] + ih) * g.in[2] * pitch : 0);
            }
            if (rows == 0) continue;
            const i64 t0 = (kd * g.kernel[1] + kh) * g.kernel[2];
            if (g.dilation[2] == 1 && pitch == O) {  // every kw with every column: one loop over the kernel row's kw and channels
                i64 a = 0, b = 0, a_last = 0, b_last = 0;
                rows_tap_pixels(g, w0, 0, Q, &a, &b);
                rows_tap_pixels(g, w0, g.kernel[2] - 1, Q, &a_last, &b_last);
                if (a == 0 && b_last == Q) {
                    const i64 s = g.stride[2], iw = w0 * s - g.pad_begin[2];
                    const float* from[R];
#pragma GCC unroll 16
                    for (int r = 0; r < R; ++r) from[r] = row[r / Q] + (iw + r % Q * s) * O;
                    rows_tap_range<NB, R, Q>(acc, from, w + t0 * O * B, g.kernel[2] * O, 0, 0, rows);
                    continue;
                }
            }
            for (i64 kw = 0; kw < g.kernel[2]; ++kw) {
                i64 a = 0, b = 0;
                rows_tap_pixels(g, w0, kw, Q, &a, &b);
                if (a >= b) continue;
                const i64 s = g.stride[2], iw = w0 * s - g.pad_begin[2] + kw * g.dilation[2];  // column 0's input column
                const float* from[R];
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) from[r] = row[r / Q] + (r % Q >= a && r % Q < b ? iw + r % Q * s : 0) * pitch;
                rows_tap_range<NB, R, Q>(acc, from, w + (t0 + kw) * O * B, O, a, Q - b, rows);
            }
        }
    }
    const auto at = [=](int r) { return to + r / Q * to_row + r % Q * to_step; };
    if (p.stream_output && valid == NB * W) stream_tile_at<R, NB>(acc, at);
    else store_tile_at<R, NB>(acc, at, valid);
}

using RowsTileFn = void (*)(const RowsBackwardData&, const float*, i64, i64, i64, float*, i64, i64, i64, const float*,
                            const float*);

template <int NB, int R>
RowsTileFn pick_rows(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &rows_tile<NB, R, R> : pick_rows<NB, R - 1>(r);
    }
}

RowsTileFn rows_tile_for(int nb, int r) {
    switch (nb) {
    case 1: return pick_rows<1, kRowsTile[1]>(r);
    case 2: return pick_rows<2, kRowsTile[2]>(r);
    case 3: return pick_rows<3, kRowsTile[3]>(r);
    default: return pick_rows<kRowsMaxBlocks, kRowsTile[kRowsMaxBlocks]>(r);
    }
}

// Tiles of two whole rows of q outputs, NB = 2 (rows_pair_width()); this ISA's unit gives kRowsPairWidth
// (0: none).
template <int Q>
RowsTileFn pick_pairs(int q) {
    if constexpr (Q == 0) {
        return nullptr;
    } else {
        return q == Q ? &rows_tile<2, 2 * Q, Q> : pick_pairs<Q - 1>(q);
    }
}

}  // namespace

int rows_max_blocks() { return kRowsMaxBlocks; }
int rows_tile_width(int vector_blocks) { return kRowsTile[vector_blocks]; }
int rows_pair_width() { return kRowsPairWidth; }

void rows_backward_data(const RowsBackwardData& p, const float* dy, float* dx, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    const i64 O = g.in_channels, C = g.out_channels, B = static_cast<i64>(p.vector_blocks) * W;
    const i64 J0 = g.out[0], J1 = g.out[1], J2 = g.out[2], P = p.tile_rows, J1P = (J1 + P - 1) / P;
    // the row's tiles: as equal as the widest allows
    const i64 tiles = (J2 + p.tile - 1) / p.tile, small = J2 / tiles, bigger = J2 % tiles;
    const RowsTileFn small_tile = rows_tile_for(p.vector_blocks, static_cast<int>(small));
    const RowsTileFn big_tile = bigger ? rows_tile_for(p.vector_blocks, static_cast<int>(small + 1)) : nullptr;
    const RowsTileFn pair_tile = P == 2 ? pick_pairs<kRowsPairWidth>(static_cast<int>(J2)) : nullptr;
    const i64 G = p.group, group_rows = G * g.batch * J0 * J1P;
    for (i64 row = begin; row < end; ++row) {  // row = cg * group_rows + (((n * J0 + jd) * J1P + jh / P) * Gc + cs % G)
        i64 cs = 0, jh = 0, jd = 0, n = 0;
        if (p.image_major) {  // row = (n * super_blocks + cs) * J0 * J1P + jd * J1P + jh / P
            const i64 image_rows = J0 * J1P, plane = row / image_rows, pixel_row = row % image_rows;
            n = plane / p.super_blocks, cs = plane % p.super_blocks, jh = pixel_row % J1P * P, jd = pixel_row / J1P;
        } else {
            const i64 cg = row / group_rows, Gc = min_i64(G, p.super_blocks - cg * G), local = row - cg * group_rows;
            const i64 pixel_row = local / Gc;
            cs = cg * G + local % Gc, jh = pixel_row % J1P * P, jd = (pixel_row / J1P) % J0, n = pixel_row / (J1P * J0);
        }
        const float* x = dy + n * g.in[0] * g.in[1] * g.in[2] * p.input_pitch();
        const float* w = p.weights + cs * g.taps() * O * B;
        const float* bias = p.bias ? p.bias + cs * B : nullptr;
        const i64 xd = p.r[0] + p.S[0] * jd, xh = p.r[1] + p.S[1] * jh;
        float* to = dx + (((n * p.X[0] + xd) * p.X[1] + xh) * p.X[2] + p.r[2]) * C + cs * B;
        const i64 valid = min_i64(B, C - cs * B), step = p.S[2] * C;
        if (pair_tile && jh + 1 < J1) {  // two whole rows in one tile
            pair_tile(p, x, jd, jh, 0, to, step, p.S[1] * p.X[2] * C, valid, w, bias);
            continue;
        }
        for (i64 k = 0, w0 = 0; k < tiles; ++k) {
            (k < bigger ? big_tile : small_tile)(p, x, jd, jh, w0, to + w0 * step, step, 0, valid, w, bias);
            w0 += k < bigger ? small + 1 : small;
        }
    }
    if (p.stream_output) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
