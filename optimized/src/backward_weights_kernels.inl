// The backward-weights kernels, written once and compiled once per ISA (backward_weights_avx512.cpp,
// backward_weights_avx2.cpp include their ISA's vocabulary and tile sizes, then this file).
//
// A tile holds R x NB vectors of accumulators for the whole reduction of one block of output pixels:
//   general:   acc[r][j] += xp(pixel, tap(q_r), ic(q_r)) * dy(pixel, oc block j)      (broadcast x, vector dy)
//   depthwise: acc[r][j] += xp(pixel, tap r, channels j) * dy(pixel, channels j)       (both vectors)
// for the pixels of the block in increasing (n, od, oh, ow) order; the next block continues from the
// f32 partial sum stored in dw (exact). So every element is summed in increasing pixel order, whatever
// the tile, the block or the thread. The general kernel first packs the block's diff_dst into panels
// [pixel][NB*W] per lane block (zeros past the group's channels; read in place, O floats a pixel, when
// every lane block is whole) and each tile's inputs into a panel [pixel][R] (read in place when they
// are R consecutive floats of xp), so that its inner loop reads two evenly stepping streams. The last tile of a row range,
// when shorter, is a tile of 2, 4 or 8 rows (computed_rows) that reads valid rows again (its rows past the end repeat the
// last one) and stores only what exists.

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

// diff_bias: the home's lanes plus the K pixels of a packed panel [K][NB*W], in pixel order (an FMA
// by 1 is the exact sum).
template <int NB>
void sum_pixels(const float* panel, i64 d_step, i64 K, const TileHome& home, bool first) {
    static const float one_value = 1.0f;
    const vf one = broadcast(&one_value);
    vf acc[NB];
    if (first) {
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) acc[j] = zero();
    } else {
        home_load<1, NB>(acc, home);
    }
    for (i64 k = 0; k < K; ++k)
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) acc[j] = fma(load(panel + k * d_step + j * W), one, acc[j]);
    home_store<1, NB>(acc, home);
}

constexpr i64 kLineFloats = 16;  // floats per cache line
// (__builtin_prefetch: GCC 12 dropped every _mm_prefetch(..., _MM_HINT_T0) of this file once general_items
// had grown by the runs below, the steady tiles' prefetch of x included: pw576_96_14 0.90 -> 0.99 ms)
inline void prefetch(const float* at) { __builtin_prefetch(at, 0, 3); }
inline void prefetch_l2(const float* at) { __builtin_prefetch(at, 0, 2); }
// base + offset floats, which may lie outside x read without padding (a pixel whose taps read padding)
inline void prefetch_at(const float* base, i64 offset) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset) * sizeof(float)), 0, 3);
}

// The next block's lines of x (its pixels' channels of the item's group) and of diff_dst (the item's lane blocks),
// fetched a few at a time inside the tiles' loops: `quota` more of them, one a pixel step. Fetched as a burst
// before each tile instead, they stalled the loads behind them: res2_1x1_256's pattern in a model loop 78-80
// GFLOP/s against 92-101 spread (Zen 4, 1 thread; bench/results/backward.md).
struct NextLines {
    const float* x;     // xp; a pixel's lines at x + x_at[k], x_lines of them
    const i64* x_at;
    const float* d;     // dy at the item's first lane; a pixel's lines at d + d_at[k], d_lines of them
    const i64* d_at;
    i64 x_lines, d_lines;
    i64 k, line, pixels;  // the cursor: line `line` of pixel k, of `pixels`
    i64 quota;            // lines still to fetch in this tile call: at most left()

    [[gnu::always_inline]] void one() {
        if (line < x_lines)
            prefetch_at(x, x_at[k] + line * kLineFloats);
        else
            prefetch(d + d_at[k] + (line - x_lines) * kLineFloats);
        if (++line == x_lines + d_lines) line = 0, ++k;
    }
    i64 left() const { return (pixels - k) * (x_lines + d_lines) - line; }
};

// General: one tile over a block of K pixels from its panels. With x_at, the tile's R rows are R
// consecutive channels of one tap: pixel k's are read straight from x + x_at[k] (x at the tile's first
// row), not from a packed panel.
// With Steady, pixel k's are at x + x_at[0] + k * step (pixels evenly spaced: a 1x1 layer's blocks).
// Pixels [k_begin, k_end) of the block (K pixels) into acc.
template <int R, int NB, bool Steady>
[[gnu::always_inline]] inline void tile_pixels(vf* acc, const float* x_panel, const float* x, const i64* x_at, i64 step,
                                               const float* d_panel, i64 d_step, i64 K, i64 k_begin, i64 k_end,
                                               NextLines& next_lines) {
    const float* xs = Steady ? x + x_at[0] : x;
    d_panel += k_begin * d_step;
    NextLines next = next_lines;
    for (i64 k = k_begin; k < k_end; ++k, d_panel += d_step) {
        if (next.quota > 0) next.one(), --next.quota;
        const float* xk = Steady ? xs + k * step : x_at ? x + x_at[k] : x_panel + k * R;
        // x in place: its pixels are a row apart (2304 bytes for 576 channels, past the hardware's
        // stride prefetcher): fetched kAhead pixels ahead
        constexpr i64 kAhead = 8;
        if (Steady && k + kAhead < K) prefetch(xk + kAhead * step);
        if (!Steady && x_at && k + kAhead < K) prefetch_at(x, x_at[k + kAhead]);
        vf d[NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) d[j] = load(d_panel + j * W);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const vf b = broadcast(xk + r);
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, d[j], acc[r * NB + j]);
        }
    }
    next_lines = next;
}

// Only the block's pixels in the runs [run_at[0], run_at[1]), [run_at[3], run_at[4]), ... (in increasing order;
// the others read padding alone), each from x_at or, with run_at[3 * run + 2], from the panel; K: the block's pixels.
template <int R, int NB, bool Steady>
void panel_tile(const float* x_panel, const float* x, const i64* x_at, i64 step, const float* d_panel, i64 d_step, i64 K,
                const i64* run_at, i64 runs, const TileHome& home, bool first, NextLines& next_lines) {
    vf acc[R * NB];
    if (first) {
#pragma GCC unroll 64
        for (int i = 0; i < R * NB; ++i) acc[i] = zero();
    } else {
        home_load<R, NB>(acc, home);
    }
    if (runs == 1 && run_at[2] == 0)
        tile_pixels<R, NB, Steady>(acc, x_panel, x, x_at, step, d_panel, d_step, K, run_at[0], run_at[1], next_lines);
    else
        for (const i64* at = run_at; at < run_at + 3 * runs; at += 3)
            tile_pixels<R, NB, Steady>(acc, x_panel, x, at[2] ? nullptr : x_at, step, d_panel, d_step, K, at[0], at[1], next_lines);
    home_store<R, NB>(acc, home);
}

// The rows a tile computes: R, or for the last tile of a group's rows, when it has fewer, the least
// of 2, 4, 8 that holds them (res2_1x1_64's 64 channels in tiles of 6: the last one 4 rows, not 6).
template <int R>
constexpr i64 computed_rows(i64 rows) {
    return rows == R ? R : rows <= 2 && R > 2 ? 2 : rows <= 4 && R > 4 ? 4 : rows <= 8 && R > 8 ? 8 : R;
}
// A tile's inputs over a block: its packed panel, or x in place (x_at; steady: pixels `step` floats
// apart), and diff_dst's panel.
struct TileInputs {
    const float* x_panel;
    const float* x;
    const i64* x_at;
    i64 step;
    const float* d_panel;
    i64 d_step, K;
    const i64* run_at;  // the runs of pixels to compute (panel_tile)
    i64 runs;
};

template <int R, int NB>
[[gnu::always_inline]] inline void tile_over(const TileInputs& in, const TileHome& home, bool first, NextLines& next) {
    if (in.step > 0)
        panel_tile<R, NB, true>(in.x_panel, in.x, in.x_at, in.step, in.d_panel, in.d_step, in.K, in.run_at, in.runs, home, first, next);
    else
        panel_tile<R, NB, false>(in.x_panel, in.x, in.x_at, 0, in.d_panel, in.d_step, in.K, in.run_at, in.runs, home, first, next);
}

template <int NB>
void general_items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, float* bias, i64 row_begin,
                   i64 row_end, i64 begin, i64 end, float* scratch, i64* offsets) {
    constexpr int R = kGeneralRows[NB];
    constexpr i64 B = NB * W;
    const Geometry& g = *p.geometry;
    const i64 taps = g.taps(), ICg = g.in_per_group, OCg = g.out_per_group, O = g.out_channels, Cs = g.channel_stride;
    const i64 rows_total = taps * ICg, OW = g.out[2], chunks = p.chunks(), KB = p.block_pixels;
    float* d_panels = scratch;                      // [lane block][K][B]
    float* x_panels = scratch + p.lane_blocks_per_item * B * KB;  // [tile of the item][K][R]
    // per pixel of the block: xp offset (channel grp*ICg) and dy offset (channel grp*OCg); the same for
    // the next block (to prefetch it)
    i64 *x_at = offsets, *d_at = offsets + KB, *x_next = offsets + 2 * KB, *d_next = offsets + 3 * KB;
    i64* contiguous = offsets + 4 * KB;  // per tile of the item: in_place(tile), found once an item
    // a 1x1 layer with stride 1 (out = padded): pixel k of a block is Cs floats after pixel k - 1 in xp,
    // so its in-place tiles step a pointer instead of loading each pixel's offset (res4_1x1_1024 -5 %)
    bool steady = taps == 1 && !p.x_unpadded;
    for (int a = 0; a < 3; ++a) steady = steady && g.stride[a] == 1 && g.padded[a] == g.out[a];
    // A tile's taps read only padding at some pixels of a padded layer (res5_3x3's 7x7 pixels: 18 % of its
    // products): it runs over the others only (whole runs of them: per output row of the block, the
    // columns where some tap of the tile reads x; found again per block when the tile's taps change)
    i64* rows_at = contiguous + p.tiles_per_item;  // per output row of the block: first k, pixels, ow, oh, od
    i64* run_at = rows_at + 5 * KB;                // [begin, end) of each run, and whether it reads the panel
    i64* tap_reach = run_at + 3 * KB + 3;          // per tap: kd*D - pad, kh*D - pad, and the columns ow it reads x at
    // Only when at least 1/16 of the (pixel, tap) pairs read padding (res5_3x3's 7x7: 18 %; res2_3x3's 56x56:
    // 2.4 %, conv1 1.5 %: finding the runs cost more than they skip there). A steady layer's padding is a
    // crop's: it is read in place, zeros and all.
    double reads = 1.0;  // the share of the pairs that read x
    for (int a = 0; a < 3; ++a) {
        i64 pairs = 0;
        for (i64 o = 0; o < g.out[a]; ++o)
            for (i64 k = 0; k < g.kernel[a]; ++k) {
                const i64 at = o * g.stride[a] + k * g.dilation[a] - g.pad_begin[a];
                pairs += at >= 0 && at < g.in[a];
            }
        reads *= static_cast<double>(pairs) / static_cast<double>(g.out[a] * g.kernel[a]);
    }
    // (x read without its padding: always, the tiles then read x only where a tap of theirs reads it)
    const bool some_padding = p.x_unpadded || (!steady && 16 * reads <= 15);
    const auto ceil_div = [](i64 a, i64 b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); };
    const auto max_of = [](i64 a, i64 b) { return a > b ? a : b; };
    for (i64 t = 0; some_padding && t < taps; ++t) {
        const i64 kd = t / (g.kernel[1] * g.kernel[2]), kh = t / g.kernel[2] % g.kernel[1], kw = t % g.kernel[2];
        const i64 shift = g.pad_begin[2] - kw * g.dilation[2];  // ow reads x when 0 <= ow*S - shift < W
        i64* at = tap_reach + 4 * t;
        at[0] = kd * g.dilation[0] - g.pad_begin[0], at[1] = kh * g.dilation[1] - g.pad_begin[1];
        at[2] = ceil_div(shift, g.stride[2]), at[3] = ceil_div(shift + g.in[2], g.stride[2]);
    }
    // the columns [lo, hi) of output row segment `at` where tap t reads x (empty: lo >= hi)
    const auto reach_of = [&](const i64* at, i64 t, i64& lo, i64& hi) {
        const i64* reach = tap_reach + 4 * t;
        const i64 id = at[4] * g.stride[0] + reach[0], ih = at[3] * g.stride[1] + reach[1];
        const bool row = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
        lo = row ? max_of(at[2], reach[2]) : at[2], hi = row ? min_i64(at[2] + at[1], reach[3]) : at[2];
    };
    // the runs of the block's `segments` rows where one of taps [t_first, t_last] reads x: run_at, their count;
    // with mixed (a tile in place over several taps, x without its padding), the pixels where one of them
    // reads padding come from the panel
    const auto find_runs = [&](i64 segments, i64 t_first, i64 t_last, bool mixed) {
        i64 runs = 0;
        const auto add = [&](i64 begin, i64 end, i64 packed) {
            if (begin >= end) return;
            if (runs > 0 && run_at[3 * runs - 2] == begin && run_at[3 * runs - 1] == packed) {
                run_at[3 * runs - 2] = end;
            } else {
                run_at[3 * runs] = begin, run_at[3 * runs + 1] = end, run_at[3 * runs + 2] = packed;
                ++runs;
            }
        };
        for (i64 sgm = 0; sgm < segments; ++sgm) {
            const i64* at = rows_at + 5 * sgm;
            i64 lo = at[2] + at[1], hi = at[2], all_lo = at[2], all_hi = at[2] + at[1];  // some tap, every tap
            for (i64 t = t_first; t <= t_last; ++t) {
                i64 t_lo, t_hi;
                reach_of(at, t, t_lo, t_hi);
                all_lo = max_of(all_lo, t_lo), all_hi = min_i64(all_hi, t_hi);
                if (t_lo < t_hi) lo = min_i64(lo, t_lo), hi = max_of(hi, t_hi);
            }
            const i64 k0 = at[0] - at[2];  // k of column ow: k0 + ow
            if (!mixed || all_lo >= all_hi) {
                add(k0 + lo, k0 + hi, mixed);
            } else {
                add(k0 + lo, k0 + all_lo, 1);
                add(k0 + all_lo, k0 + all_hi, 0);
                add(k0 + all_hi, k0 + hi, 1);
            }
        }
        return runs;
    };
    const i64 px_begin = row_begin * OW, px_end = row_end * OW;
    // the K pixels from pb, walked row by row (no division per pixel)
    const auto walk = [&](i64 pb, i64 K, i64 grp, i64* xs, i64* ds) {
        for (i64 k = 0, px = pb; k < K;) {
            const i64 ow0 = px % OW, row = px / OW, run = min_i64(OW - ow0, K - k);
            const i64 oh = row % g.out[1], od = (row / g.out[1]) % g.out[0], n = row / (g.out[1] * g.out[0]);
            // (x without its padding: x's sizes, and the pixel's first tap may lie outside it)
            const i64* X = p.x_unpadded ? g.in : g.padded;
            const i64 shift[3] = {p.x_unpadded ? g.pad_begin[0] : 0, p.x_unpadded ? g.pad_begin[1] : 0, p.x_unpadded ? g.pad_begin[2] : 0};
            const i64 x_row = ((((n * X[0] + od * g.stride[0] - shift[0]) * X[1] + oh * g.stride[1] - shift[1]) * X[2]) +
                               ow0 * g.stride[2] - shift[2]) * Cs + grp * ICg;
            for (i64 i = 0; i < run; ++i, ++k, ++px) {
                xs[k] = x_row + i * g.stride[2] * Cs;
                ds[k] = px * O + grp * OCg;
            }
        }
    };
    // A whole tile whose R rows are R consecutive floats of xp at every pixel (channels of one tap, or,
    // with Cs = ICg and no dilation along the width, across the taps of one kernel row: conv1's 7 taps x
    // 3 channels) is read in place, not packed (conv1_7x7s2 18.7-18.8 -> 16.1 ms).
    const auto in_place = [&](i64 tile) -> i64 {  // 0: packed, 1: in place, 2: in place but at the borders
        const i64 q0 = tile * R, RT = computed_rows<R>(min_i64(R, rows_total - q0));
        if (q0 + RT > rows_total || p.x_packed) return 0;
        i64 t = q0 / ICg, ic = q0 - t * ICg;
        const i64 first = p.tap_offsets[t] + ic, t0 = t;
        for (i64 r = 1; r < RT; ++r) {
            if (++ic == ICg) ic = 0, ++t;
            if (p.tap_offsets[t] + ic != first + r) return 0;
        }
        // x without its padding, several taps: the pixels where one of them reads padding come from the panel
        return p.x_unpadded && t != t0 ? 2 : 1;
    };
    for (i64 item = begin; item < end; ++item) {
        const i64 grp = item / chunks, tile_chunk = item % chunks / p.lane_chunks(), lane_chunk = item % chunks % p.lane_chunks();
        const i64 t_begin = tile_chunk * p.tiles_per_item, t_end = min_i64(p.tiles, t_begin + p.tiles_per_item);
        const i64 lb_begin = lane_chunk * p.lane_blocks_per_item, lb_end = min_i64(p.lane_blocks, lb_begin + p.lane_blocks_per_item);
        const i64 full_end = min_i64(lb_end, OCg / B);  // the item's lane blocks [lb_begin, full_end) are whole
        for (i64 tile = t_begin; tile < t_end; ++tile) contiguous[tile - t_begin] = in_place(tile);
        walk(px_begin, min_i64(KB, px_end - px_begin), grp, x_next, d_next);
        for (i64 pb = px_begin; pb < px_end; pb += KB) {
            const i64 K = min_i64(KB, px_end - pb);
            i64* t = x_at;
            x_at = x_next, x_next = t;
            t = d_at;
            d_at = d_next, d_next = t;
            // the next block's input and diff_dst lines (the item's channels) are prefetched while this
            // block computes, spread over its tiles' pixel steps (NextLines): its reads are strided (a few lines
            // of each pixel), which the hardware's prefetchers do not follow far enough ahead
            const i64 next = pb + KB < px_end ? min_i64(KB, px_end - pb - KB) : 0;
            if (next > 0) walk(pb + KB, next, grp, x_next, d_next);
            NextLines next_lines{xp, x_next, dy + lb_begin * B, d_next, (ICg + kLineFloats - 1) / kLineFloats,
                                 ((lb_end - lb_begin) * B + kLineFloats - 1) / kLineFloats, 0, 0, next, 0};
            i64 calls_left = (t_end - t_begin) * (lb_end - lb_begin);  // the block's tile calls still to run
            // the whole lane blocks pixel after pixel (each pixel's channels one sequential read); not with
            // p.dy_direct (every lane block whole, diff_dst's pixels at most 2 KB apart, the L1 stride
            // prefetcher's reach): the tiles then read it in place, O floats a pixel. res4_1x1_1024's 4 KB
            // in place: 5.8 against 5.0-5.5 ms packed (AVX2 11.7-12.4 against 10.6); res5_3x3's 2 KB: 13.6-14.1
            // in place against 14.2-14.9 packed.
            const bool d_direct = p.dy_direct;
            const i64 d_step = d_direct ? O : B;
            const auto d_panel = [&](i64 lb) { return d_direct ? dy + d_at[0] + lb * B : d_panels + (lb - lb_begin) * K * B; };
            for (i64 k = 0; k < K && !d_direct; ++k)
                for (i64 lb = lb_begin; lb < full_end; ++lb)
#pragma GCC unroll 4
                    for (int j = 0; j < NB; ++j)
                        store(d_panels + ((lb - lb_begin) * K + k) * B + j * W, load(dy + d_at[k] + lb * B + j * W));
            for (i64 lb = lb_begin; lb < lb_end; ++lb) {
                const i64 lanes = min_i64(B, OCg - lb * B);
                if (lanes != B) {
                    float* panel = d_panels + (lb - lb_begin) * K * B;
                    for (i64 k = 0; k < K; ++k) {
                        const float* from = dy + d_at[k] + lb * B;
                        for (i64 l = 0; l < lanes; ++l) panel[k * B + l] = from[l];
                        for (i64 l = lanes; l < B; ++l) panel[k * B + l] = 0.0f;
                    }
                }
            }
            i64 segments = 0;
            for (i64 k = 0, px = pb; some_padding && k < K; ++segments) {
                const i64 ow0 = px % OW, row = px / OW, n = min_i64(OW - ow0, K - k);
                i64* at = rows_at + 5 * segments;
                at[0] = k, at[1] = n, at[2] = ow0, at[3] = row % g.out[1], at[4] = row / g.out[1] % g.out[0];
                k += n, px += n;
            }
            // a tile's RT computed rows: off[r], row r's offset in xp at a pixel's x_at (the last row repeated)
            const auto row_offsets = [&](i64 tile, i64* off) {
                const i64 q0 = tile * R, rows = min_i64(R, rows_total - q0), RT = computed_rows<R>(rows);
                for (i64 r = 0; r < RT; ++r) {
                    const i64 q = q0 + min_i64(r, rows - 1);
                    off[r] = p.tap_offsets[q / ICg] + q % ICg;
                }
                return RT;
            };
            // a tile's rows at every pixel of the block into panel [K][RT] (x with its padding)
            const auto pack_rows = [&](const i64* off, i64 RT, float* panel) {
                for (i64 k = 0; k < K; ++k)
                    for (i64 r = 0; r < RT; ++r) panel[k * RT + r] = xp[x_at[k] + off[r]];
            };
            for (i64 tile = t_begin; tile < t_end; ++tile) {
                if (contiguous[tile - t_begin] == 1) continue;
                const i64 q0 = tile * R, rows = min_i64(R, rows_total - q0);
                i64 off[R];
                const i64 RT = row_offsets(tile, off);
                float* panel = x_panels + (tile - t_begin) * K * R;  // [K][RT]
                if (!p.x_unpadded) {
                    pack_rows(off, RT, panel);
                    continue;
                }
                // x without its padding: zeros where row r's tap reads padding; a tile in place (2) only at
                // the pixels where one of its taps reads padding
                const bool border = contiguous[tile - t_begin] == 2;
                for (i64 sgm = 0; sgm < segments; ++sgm) {
                    const i64* at = rows_at + 5 * sgm;
                    i64 all_lo = at[2], all_hi = border ? at[2] + at[1] : at[2];  // the columns read in place
                    for (i64 t = q0 / ICg; border && t <= (q0 + rows - 1) / ICg; ++t) {
                        i64 t_lo, t_hi;
                        reach_of(at, t, t_lo, t_hi);
                        all_lo = max_of(all_lo, t_lo), all_hi = min_i64(all_hi, t_hi);
                    }
                    const auto pack = [&](i64 ow_begin, i64 ow_end) {  // columns [ow_begin, ow_end) of the segment
                        for (i64 r = 0; r < RT; ++r) {
                            i64 lo, hi;
                            reach_of(at, (q0 + min_i64(r, rows - 1)) / ICg, lo, hi);
                            for (i64 ow = ow_begin, k = at[0] + ow_begin - at[2]; ow < ow_end; ++ow, ++k)
                                panel[k * RT + r] = ow >= lo && ow < hi ? xp[x_at[k] + off[r]] : 0.0f;
                        }
                    };
                    if (all_lo < all_hi) {
                        pack(at[2], all_lo);
                        pack(all_hi, at[2] + at[1]);
                    } else {
                        pack(at[2], at[2] + at[1]);
                    }
                }
            }
            i64 listed_first = -1, listed_last = -1, listed_kind = -1, runs = 1;  // the runs' taps, kind and count
            run_at[0] = 0, run_at[1] = K, run_at[2] = 0;
            for (i64 tile = t_begin; tile < t_end; ++tile) {  // the tile's inputs stay in L1 over the lane blocks
                const i64 kind = contiguous[tile - t_begin];
                // (p.x_packed_per_tile, a 1x1 layer without padding: a tile's x read in place is packed now, into
                // the first panel, for its lane blocks)
                const bool packed_now = p.x_packed_per_tile && kind == 1;
                const bool in_x = kind != 0 && !packed_now;
                if (packed_now) {
                    i64 off[R];
                    const i64 RT = row_offsets(tile, off);
                    pack_rows(off, RT, x_panels);
                }
                const i64 t_first = some_padding ? tile * R / ICg : 0;
                const i64 t_last = some_padding ? (min_i64(rows_total, tile * R + R) - 1) / ICg : 0;
                if (some_padding && (t_first != listed_first || t_last != listed_last || kind != listed_kind)) {
                    listed_first = t_first, listed_last = t_last, listed_kind = kind;
                    runs = find_runs(segments, t_first, t_last, kind == 2);
                    i64 covered = 0;
                    for (i64 r = 0; r < runs; ++r) covered += run_at[3 * r + 1] - run_at[3 * r];
                    // runs cost their breaks in diff_dst's stride (the prefetcher): only when they skip an eighth
                    // (x without its padding: the runs always, a tile in place reads x nowhere else)
                    if (!p.x_unpadded && 8 * covered > 7 * K) runs = 1, run_at[0] = 0, run_at[1] = K, run_at[2] = 0;
                }
                for (i64 lb = lb_begin; lb < lb_end; ++lb) {
                    const i64 q0 = tile * R, rows = min_i64(R, rows_total - q0);
                    const TileHome home{dw + (grp * rows_total + q0) * OCg + lb * B, OCg, 1, rows, min_i64(B, OCg - lb * B)};
                    const float* x_tile = xp + p.tap_offsets[q0 / ICg] + q0 % ICg;
                    const TileInputs in{packed_now ? x_panels : x_panels + (tile - t_begin) * K * R, x_tile, in_x ? x_at : nullptr,
                                        in_x && steady ? Cs : 0, d_panel(lb), d_step, K, run_at, runs};
                    // this call's even share of the lines left; what its steps do not take, fetched after it
                    next_lines.quota = (next_lines.left() + calls_left - 1) / calls_left;
                    --calls_left;
                    switch (computed_rows<R>(rows)) {
                    case 2: tile_over<R < 2 ? R : 2, NB>(in, home, pb == px_begin, next_lines); break;
                    case 4: tile_over<R < 4 ? R : 4, NB>(in, home, pb == px_begin, next_lines); break;
                    case 8: tile_over<R < 8 ? R : 8, NB>(in, home, pb == px_begin, next_lines); break;
                    default: tile_over<R, NB>(in, home, pb == px_begin, next_lines); break;
                    }
                    for (; next_lines.quota > 0; --next_lines.quota) next_lines.one();
                    // diff_bias after the item's first tile, which has brought the lane block's lines in (before
                    // it, the sum's four FMAs a pixel waited on memory: 7 % of res2_1x1_256's time)
                    if (p.bias_at >= 0 && t_begin == 0 && tile == t_begin)
                        sum_pixels<NB>(d_panel(lb), d_step, K, TileHome{bias + grp * OCg + lb * B, 0, 1, 1, home.lanes},
                                       pb == px_begin);
                }
            }
        }
    }
}

// Depthwise (backward_weights_depthwise.inl, included after this file).
void depthwise_items(const BackwardWeightsProblem& p, const float* x, const float* dy, float* dw, i64 row_begin,
                     i64 row_end, i64 begin, i64 end, float* scratch, i64* ints);

}  // namespace

// Elements [begin, end) of the parts' sums (problem.hpp): to[i] = dw[i] + dw[gradient + i] + ... in
// part order, each vector kept in a register over the parts (an FMA by 1 is the exact sum).
void backward_add_parts(const float* dw, i64 gradient, i64 parts, i64 begin, i64 end, float* to) {
    static const float one_value = 1.0f;
    const vf one = broadcast(&one_value);
    i64 i = begin;
    for (; i + W <= end; i += W) {
        vf acc = load(dw + i);
        for (i64 part = 1; part < parts; ++part) acc = fma(load(dw + part * gradient + i), one, acc);
        store(to + i, acc);
    }
    for (; i < end; ++i) {
        float sum = dw[i];
        for (i64 part = 1; part < parts; ++part) sum += dw[part * gradient + i];
        to[i] = sum;
    }
}

int backward_lanes() { return W; }
int backward_tile_rows(bool depthwise, int vector_blocks) { return depthwise ? kDepthwiseRows : kGeneralRows[vector_blocks]; }
int backward_max_vector_blocks(bool depthwise) { return depthwise ? kDepthwiseBlocks : kGeneralMaxBlocks; }

void backward_weights_items(const BackwardWeightsProblem& p, const float* xp, const float* dy, float* dw, float* bias,
                            i64 row_begin, i64 row_end, i64 begin, i64 end, float* scratch, i64* offsets) {
    if (p.depthwise) {
        depthwise_items(p, xp, dy, dw, row_begin, row_end, begin, end, scratch, offsets);
        return;
    }
    switch (p.vector_blocks) {
    case 1: general_items<1>(p, xp, dy, dw, bias, row_begin, row_end, begin, end, scratch, offsets); return;
    case 2: general_items<2>(p, xp, dy, dw, bias, row_begin, row_end, begin, end, scratch, offsets); return;
    case 3: general_items<3>(p, xp, dy, dw, bias, row_begin, row_end, begin, end, scratch, offsets); return;
    default: general_items<kGeneralMaxBlocks>(p, xp, dy, dw, bias, row_begin, row_end, begin, end, scratch, offsets); return;
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
