// One register tile of the blocked kernel (blocked_kernels.inl): its arguments (TileArgs), the tile (one_tile: R pixels
// times NB vectors of output channels over the listed taps and an input-channel block), the calls that run one tile or
// a group's like tiles, and the pick of a tile function by NB and R. Included by blocked_kernels.inl inside its ISA
// namespace's anonymous namespace, after the ISA's vocabulary (vf, W, load, broadcast, fma, the tile stores).

struct TileArgs {
    const float* x;             // xp at the item's plane (tap 0), channel g*ICg + ic0
    const i64* x_offsets;       // per pixel of the tile: its offset from x
    const i64* tap_offsets;
    const i64* tap_list;        // the taps this tile visits (those inside the input for some pixel of it)
    i64 taps, in_per_group, ic_count;  // taps: entries of tap_list
    const float* w;             // packed weights of this (g, ocs), at [tap 0][ic0]: [taps][ICg][NB*W]
    i64 w_ic_step;              // floats from one input channel's NB*W weights to the next's (NB*W when packed)
    const float* bias;          // packed bias of this (g, ocs), or null
    const float* pixel_bias;    // or per pixel of the tile: one value for all its channels (or null)
    bool accumulate;            // start from y (a later input-channel block) instead of the bias
    float* y;                   // y at the block's first channel (of the run's plane)
    const i64* y_offsets;       // per pixel of the tile: its output's offset from y
    i64 oc_valid;               // channels of the block that exist (<= NB*W)
    const i64* next_offsets;    // per pixel of the next tile (R of them): its offset from x, to prefetch; or null
    i64 x_shift;                // added to every pixel's offset: the plane's, with src read in place; else 0
    // With src read in place (BlockedProblem::src_in_place), a tile whose taps are not all inside the input for
    // every pixel: per pixel its input row and column at tap (0, 0) (o * stride - pad, maybe negative); a
    // pixel whose tap lies in the padding reads `zeros` for it. Null: every listed tap is inside for every pixel.
    const i64 *in_rows, *in_cols;
    const Geometry* geometry;
    const float* zeros;
    bool stream;  // a full tile's stores non-temporal (BlockedProblem::stream_output, last input-channel block)
    // Or null: `ahead_lines` cache lines from here into the L2 per W input channels (the next super block's weights)
    const char* weights_ahead;
    i64 ahead_lines;
    i64 tiles;  // tiles of R pixels one after the other from x_offsets, y_offsets (and pixel_bias): one_tile each
    // blocked_step_tiles: no offsets; pixel i of its tiles at x + i * x_step (x_shift not added), y + i * y_step
    i64 x_step, y_step;
    i64 next_tiles;  // blocked_step_tiles<.., Next>: its first next_tiles tiles prefetch the next tile's input
    i64 ahead_tiles;  // blocked_step_tiles<.., Ahead>: its first ahead_tiles tiles bring weights ahead, from weights_ahead on
};
// The bytes one tile brings ahead: ahead_lines cache lines per W of its ic_count input channels (one_tile's ahead loops)
inline i64 tile_ahead_bytes(const TileArgs& a) { return (a.ic_count + W - 1) / W * a.ahead_lines * 64; }

// Checked: a tile with a.in_rows (pixels read through a pointer each per tap); the others keep the loop of
// one base and the pixels' offsets (bench/results/forward-padding.md: the 1x1 layers with pointers).
// x_at(r), y_at(r): pixel r's input at tap 0 (channel ic0) and its output. OneTap: a 1x1 tile (a.tap_list is {0}, at
// offset 0): the tap's channels only, without the tap loop (or next_offsets, or a branch on a.weights_ahead).
// OneNext (with OneTap): one line of each of the next R pixels (x_at(R + r)) prefetched per W input channels;
// OneAhead (with OneTap): a.ahead_lines lines from a.weights_ahead on per W input channels, as the tap loop does.
template <int NB, int R, bool Checked, class XAt, class YAt, bool OneTap = false, bool OneNext = false,
          bool OneAhead = false>
[[gnu::always_inline]] inline void one_tile(const TileArgs& a, XAt x_at, YAt y_at, const float* pb) {
    vf acc[R * NB];  // acc[r * NB + j]: pixel r, channels [j*W, j*W + W) of the block
    // each pixel's input at tap 0 and the weights' step per tap, once per tile: a tap adds one offset
    const float* xp[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) xp[r] = x_at(r);
    const i64 w_tap = a.in_per_group * a.w_ic_step, w_ic_step = a.w_ic_step;
    if (a.accumulate) {
        load_tile_at<R, NB>(acc, y_at, a.oc_valid);
    } else {
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) {
            const vf b = a.bias ? load(a.bias + j * W) : zero();
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) acc[r * NB + j] = pb ? broadcast(pb + r) : b;
        }
    }
    // input channels [ic0, ic1) of one tap, each pixel's input at px[r], the weights from w
    const auto steps = [&](const float* const* px, const float* w, i64 ic0, i64 ic1) __attribute__((always_inline)) {
        // unrolled by 3 (the same products in the same order): conv1's 21-step kw x channel loop, 7 per tile,
        // ran 8-10 % faster, 1 thread (bench/results/forward-conv1.md, "The input-channel loop unrolled by 3")
#pragma GCC unroll 3
        for (i64 ic = ic0; ic < ic1; ++ic) {
            vf wv[NB];
#pragma GCC unroll 8
            for (int j = 0; j < NB; ++j) wv[j] = load(w + j * W);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const vf b = broadcast(px[r] + ic);
#pragma GCC unroll 8
                for (int j = 0; j < NB; ++j) acc[r * NB + j] = fma(b, wv[j], acc[r * NB + j]);
            }
            w += w_ic_step;
        }
        return w;
    };
    const bool ahead_or_next = a.next_offsets || a.weights_ahead;
    if constexpr (OneTap && (OneNext || OneAhead)) {
        const float* w = a.w;
        const char* ahead = a.weights_ahead;
        for (i64 ic0 = 0; ic0 < a.ic_count; ic0 += W) {
            if constexpr (OneAhead)
                for (i64 l = 0; l < a.ahead_lines; ++l, ahead += 64) _mm_prefetch(ahead, _MM_HINT_T1);
            if constexpr (OneNext)
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) __builtin_prefetch(x_at(R + r) + ic0, 0, 3);
            w = steps(xp, w, ic0, min_i64(ic0 + W, a.ic_count));
        }
    } else if constexpr (OneTap) {
        steps(xp, a.w, 0, a.ic_count);
    }
    for (i64 tt = 0; tt < (OneTap ? 0 : a.taps); ++tt) {
        const i64 t = a.tap_list[tt];
        const i64 d = a.tap_offsets[t];
        const float* w = a.w + t * w_tap;
        // each pixel's input at this tap, channel 0 of the block (checked: or the zeros for the padding)
        const float* px[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) px[r] = xp[r] + d;
        if constexpr (Checked) {
            const Geometry& g = *a.geometry;
            const i64 dh = t / g.kernel[2] % g.kernel[1] * g.dilation[1], dw = t % g.kernel[2] * g.dilation[2];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const i64 ih = a.in_rows[r] + dh, iw = a.in_cols[r] + dw;
                if (!(ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2])) px[r] = a.zeros;
            }
        }
        if (!ahead_or_next) {  // one pass over all the channels (conv1: no branches but the loop's)
            steps(px, w, 0, a.ic_count);
            continue;
        }
        // with next_offsets, one cache line of each of the next tile's pixels per W input channels: the
        // next tile's input arrives while this one computes
        const char* ahead = a.weights_ahead;
        for (i64 ic0 = 0; ic0 < a.ic_count; ic0 += W) {
            if (ahead)
                for (i64 l = 0; l < a.ahead_lines; ++l, ahead += 64) _mm_prefetch(ahead, _MM_HINT_T1);
            if (a.next_offsets)
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) __builtin_prefetch(a.x + (d + a.next_offsets[r] + a.x_shift + ic0), 0, 3);
            w = steps(px, w, ic0, min_i64(ic0 + W, a.ic_count));
        }
    }
    if (a.stream && a.oc_valid == NB * W) stream_tile_at<R, NB>(acc, y_at);
    else store_tile_at<R, NB>(acc, y_at, a.oc_valid);
}
// the tile's pixels from offset arrays: pixel r at x + (x_offsets[r] + x_shift), y + y_offsets[r]
template <int NB, int R, bool Checked>
[[gnu::always_inline]] inline void offsets_tile(const TileArgs& a, const i64* x_offsets, const i64* y_offsets, const float* pb) {
    one_tile<NB, R, Checked>(
        a, [&](int r) { return a.x + (x_offsets[r] + a.x_shift); }, [&](int r) { return a.y + y_offsets[r]; }, pb);
}
template <int NB, int R, bool Checked>
void blocked_tile(const TileArgs& a) { offsets_tile<NB, R, Checked>(a, a.x_offsets, a.y_offsets, a.pixel_bias); }
// a.tiles tiles one after the other, from a local copy of a: the stores cannot alias it, its fields stay in registers.
// One tile: blocked_tile's, called (each tile body inlined once per function: the compile time, below)
template <int NB, int R> void blocked_tiles(const TileArgs& a) {
    if (a.tiles == 1) return blocked_tile<NB, R, false>(a);
    const TileArgs l = a;
    for (i64 k = 0; k < l.tiles; ++k)
        offsets_tile<NB, R, false>(l, l.x_offsets + k * R, l.y_offsets + k * R, l.pixel_bias ? l.pixel_bias + k * R : nullptr);
}
// blocked_tiles for 1x1 pixels a constant step apart (a.x_step, a.y_step): a pointer and a step, no offset arrays,
// no tap loop (one_tile's OneTap). Tiles of over 8 pixels from two pointers, R / 2 pixels apart: with one, GCC kept
// the 14 pixels' offsets on the stack and reloaded them in the channel loop (pw192_32_28 2-5 % slower than the
// offsets tile; with two, 2-4 % faster; bench/results/forward-1x1.md)
// Next: the first a.next_tiles tiles prefetch the next tile's input (the runs that prefetch; blocked_pixels). Ahead
// (not with Next): the first a.ahead_tiles bring the weights ahead, each from where the one before stopped. The tiles
// after those are blocked_step_tiles<NB, R, false, false>'s, called: each function inlines one tile body, not two
// (with every tile width and both kinds inlined twice, blocked_avx512.cpp took about 35 minutes to compile under
// clang-14's ASan+UBSan; README "What CI proves")
template <int NB, int R, bool Next, bool Ahead> void blocked_step_tiles(const TileArgs& a) {
    TileArgs l = a;
    constexpr int H = R > 8 ? R / 2 : R;
    const float* x = l.x;
    float* y = l.y;
    const i64 xs = l.x_step, ys = l.y_step, ahead_step = tile_ahead_bytes(l);
    const float* x1 = x + H * xs;
    const auto x_at = [&](int r) { return r < H ? x + r * xs : x1 + (r - H) * xs; };
    const auto y_at = [&](int r) { return y + r * ys; };
    using X = decltype(x_at);
    using Y = decltype(y_at);
    const i64 first = Next ? min_i64(l.tiles, l.next_tiles) : Ahead ? min_i64(l.tiles, l.ahead_tiles) : l.tiles;
    i64 k = 0;
    for (; k < first; ++k, x += R * xs, x1 += R * xs, y += R * ys) {
        const float* pb = l.pixel_bias ? l.pixel_bias + k * R : nullptr;
        one_tile<NB, R, false, X, Y, true, Next, Ahead>(l, x_at, y_at, pb);
        if (Ahead) l.weights_ahead += ahead_step;
    }
    if ((Next || Ahead) && k < l.tiles) {
        TileArgs rest = a;
        rest.x = x;
        rest.y = y;
        rest.pixel_bias = l.pixel_bias ? l.pixel_bias + k * R : nullptr;
        rest.tiles = l.tiles - k;
        blocked_step_tiles<NB, R, false, false>(rest);
    }
}
using BlockedTileFn = void (*)(const TileArgs&);

// blocked_tile, blocked_tiles, blocked_step_tiles<.., Next, Ahead>
enum class TileCall { one, like, step, step_next, step_ahead };
template <int NB, int R, bool Checked, TileCall Call>
BlockedTileFn pick_blocked(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        if (r != R) return pick_blocked<NB, R - 1, Checked, Call>(r);
        // step_next: only a tile of the full width prefetches (blocked_pixels' next_tiles is 0 for the others)
        if constexpr (Call == TileCall::step_next && R == kTileWidth[NB]) return &blocked_step_tiles<NB, R, true, false>;
        else if constexpr (Call == TileCall::step || Call == TileCall::step_next || Call == TileCall::step_ahead) {
            return &blocked_step_tiles<NB, R, false, Call == TileCall::step_ahead>;
        } else if constexpr (Call == TileCall::like) return &blocked_tiles<NB, R>;
        else return &blocked_tile<NB, R, Checked>;
    }
}

template <bool Checked, TileCall Call = TileCall::one>  // like and step: not checked
BlockedTileFn blocked_tile_for(int nb, int r) {
    switch (nb) {
    case 1: return pick_blocked<1, kTileWidth[1], Checked, Call>(r);
    case 2: return pick_blocked<2, kTileWidth[2], Checked, Call>(r);
    case 3: return pick_blocked<3, kTileWidth[3], Checked, Call>(r);
    case 4: return pick_blocked<4, kTileWidth[4], Checked, Call>(r);  // nullptr where the ISA has no 4-block tile
    case 5: return pick_blocked<5, kTileWidth[5], Checked, Call>(r);
    case 6: return pick_blocked<6, kTileWidth[6], Checked, Call>(r);
    default: return nullptr;
    }
}
