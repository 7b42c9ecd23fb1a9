// Depthwise, kernel width 3, dilation 1, stride 1 or 2 along w: whole output rows in register tiles
// whose first and last output may read one padding column, each input vector loaded once for every
// output of the tile that reads it (and, with AVX-512, two output rows at once). Included by the
// depthwise units after their ISA's vocabulary, before depthwise_kernels.inl, which calls
// depthwise_k3_rows for the rows takes_k3_rows accepts.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

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
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
