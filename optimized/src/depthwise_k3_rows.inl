// Depthwise, kernel width 3, dilation 1, stride 1 or 2 along w: whole output rows in register tiles
// whose first and last output may read one padding column, each input vector loaded once for every
// output of the tile that reads it (and, with AVX-512, two output rows at once). Included by the
// depthwise units after their ISA's vocabulary, before depthwise_kernels.inl, which calls
// depthwise_k3_rows for the rows takes_k3_rows accepts. Its scratch comes from the caller: three lists
// of KD * (KH + 2) entries (DepthwiseProblem::scratch_elements()).

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// Byte ranges to prefetch into L2 while a tile runs, a few cache lines after each channel block (the tile
// runs one channel block per call then; issued all at once before the tile, the prefetches stalled on the full miss buffers: 28% of dw144@56 batch 8).
constexpr i64 kPrefetchBurstLines = 32;  // at most this many lines are prefetched at once, before the tile

struct RowPrefetch {
    static constexpr int kMaxRanges = 8;
    const char* from[kMaxRanges] = {};
    const char* to[kMaxRanges] = {};
    bool write[kMaxRanges] = {};
    int count = 0, at = 0;
    i64 per_block = 0;  // lines after each channel block
    void add(const char* f, const char* t, bool w) {
        if (f >= t || count == kMaxRanges) return;
        from[count] = f, to[count] = t, write[count] = w;
        ++count;
    }
    i64 lines() const {
        i64 n = 0;
        for (int r = 0; r < count; ++r) n += (to[r] - from[r] + 63) / 64;
        return n;
    }
    // the next n lines (all that remain with n < 0)
    void issue(i64 n) {
        while (n != 0 && at < count) {
            if (from[at] >= to[at]) {
                ++at;
                continue;
            }
            if (write[at])
                __builtin_prefetch(from[at], 1, 2);
            else
                __builtin_prefetch(from[at], 0, 2);
            from[at] += 64;
            --n;
        }
    }
};

// What a tile of depthwise_k3_tile or depthwise_k3_pair_tile reads and writes: R consecutive outputs
// of one output row (or of two rows), every channel block in turn.
struct DepthwiseRowTileArgs {
    const float* x = nullptr;          // the image: the unpadded input of one n, channel 0
    i64 base = 0;                      // x + base: the tile's column 0 (its first output's kw = 0 column) in input row 0
    i64 channel_stride = 0;            // Cs: from one input column to the next, and one packed tap to the next
    const i64* in_offsets = nullptr;   // per entry: an input row (kd, ih) inside the input, its offset from x + base
    const i64* taps0 = nullptr;        // per entry: the kw = 0 tap number the (first) output row reads there, or -1
    const i64* taps1 = nullptr;        // per entry: the same for the second output row (pair tile only)
    i64 entries = 0;
    const float* w = nullptr;          // packed weights [taps][Cs]
    const float* bias = nullptr;       // [Cs], or null
    float* y0 = nullptr;               // the tile's first output in the (first) output row, channel 0
    float* y1 = nullptr;               // the same in the second output row (pair tile only)
    i64 y_pixel_step = 0;              // C: from one output to the next
    i64 channels = 0;                  // C
    bool prefetch_outputs = false;     // the next channel block's outputs into L1 (kDepthwisePrefetchOutputsAbove)
    bool stream = false;               // full channel blocks by non-temporal stores (depthwise_rows_streamed)
};

// R outputs of one channel block: a full block streamed where the tile streams (the addresses a vector apart
// allow it), and stored plainly otherwise; a partial block keeps the plain store of its valid channels, or
// it would write the next output's first channels.
template <int R>
[[gnu::always_inline]] inline void store_block(const vf* acc, float* y, i64 y_pixel_step, i64 valid, bool stream) {
    if (stream && valid == W)
        stream_tile_at<R, 1>(acc, [=](int r) { return y + r * y_pixel_step; });
    else
        store_tile<R, 1>(acc, y, y_pixel_step, valid);
}

// Before a channel block of a tile runs, its R outputs of the next block (y: that block's first output) are
// prefetched into L1 (prefetcht0: the units are built without -mprfchw), so that its stores find their lines
// there instead of waiting for each one's read for ownership from L3. One block ahead: two or more ahead (32
// lines and more in flight with the input's) were slower, as was the next tile's block, into L2 or L1
// (bench/results/forward-depthwise.md).
template <int R>
[[gnu::always_inline]] inline void prefetch_tile_outputs(const float* y, i64 y_pixel_step) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) __builtin_prefetch(y + r * y_pixel_step, 1, 3);
}

using DepthwiseRowTileFn = void (*)(const DepthwiseRowTileArgs&);

// One kernel row (kd, kh) of a tile, column by column: input column l (l = 0 .. L-1 from the tile's
// first output's kw = 0 column; px points at column LEFT ? 1 : 0) is loaded once, when first needed,
// and added to every output that reads it, in acc0 with the weights wa (FIRST) and in acc1 with wb
// (SECOND, the pair tile's second row). Only one input register is live, so R can exceed the
// registers that would hold all L columns, and each output still sums kw = 0, 1, 2 in order. A column
// in the padding (LEFT: column 0, RIGHT: column L-1) is neither loaded nor multiplied.
template <int R, int S, bool LEFT, bool RIGHT, bool FIRST, bool SECOND>
[[gnu::always_inline]] inline void k3_kernel_row(vf* acc0, vf* acc1, const float* px, i64 cs, const float* wa,
                                                 const float* wb) {
    constexpr int L = (R - 1) * S + 3;
    vf a0 = zero(), a1 = zero(), a2 = zero(), b0 = zero(), b1 = zero(), b2 = zero();
    if (FIRST) a0 = load(wa), a1 = load(wa + cs), a2 = load(wa + 2 * cs);
    if (SECOND) b0 = load(wb), b1 = load(wb + cs), b2 = load(wb + 2 * cs);
#pragma GCC unroll 32
    for (int l = 0; l < L; ++l) {
        if ((LEFT && l == 0) || (RIGHT && l == L - 1)) continue;
        const vf in = load(px + (LEFT ? l - 1 : l) * cs);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const bool k0 = r * S == l && !(LEFT && r == 0), k1 = r * S + 1 == l,
                       k2 = r * S + 2 == l && !(RIGHT && r == R - 1);
            if (FIRST && k0) acc0[r] = fma(in, a0, acc0[r]);
            if (FIRST && k1) acc0[r] = fma(in, a1, acc0[r]);
            if (FIRST && k2) acc0[r] = fma(in, a2, acc0[r]);
            if (SECOND && k0) acc1[r] = fma(in, b0, acc1[r]);
            if (SECOND && k1) acc1[r] = fma(in, b1, acc1[r]);
            if (SECOND && k2) acc1[r] = fma(in, b2, acc1[r]);
        }
    }
}

// Depthwise, kernel width 3, dilation 1, stride S: R consecutive outputs of one row, for every
// channel block in turn (one call per tile, so the per-call cost is spread over all channels). The
// tile reads input columns l = 0 .. L-1 (from the column of its first output's kw = 0 tap); each
// input vector of a kernel row is loaded once and serves every output that reads it. LEFT: column 0
// lies left of the input, RIGHT: column L-1 lies right of it (the zero padding); such a column is not
// loaded and its products are skipped, so each output sums exactly the taps inside the input, in
// (kd, kh, kw) order, as depthwise_tile does. Entries: the kernel rows (kd, kh) inside the input, each
// with its offset and its kw = 0 tap number (taps0) in the packed weights.
template <int R, int S, bool LEFT, bool RIGHT>
void depthwise_k3_tile(const DepthwiseRowTileArgs& a) {
    const float* const x = a.x;
    const float* const w = a.w;
    const float* const bias = a.bias;
    const i64 base = a.base, cs = a.channel_stride, rows = a.entries, channels = a.channels;
    const i64* const row_offsets = a.in_offsets;
    const i64* const row_taps = a.taps0;
    for (i64 c0 = 0; c0 < channels; c0 += W) {
        vf acc[R];
        const vf b = bias ? load(bias + c0) : zero();
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc[r] = b;
        if (a.prefetch_outputs && c0 + W < channels) prefetch_tile_outputs<R>(a.y0 + c0 + W, a.y_pixel_step);
        for (i64 k = 0; k < rows; ++k)
            k3_kernel_row<R, S, LEFT, RIGHT, true, false>(acc, acc, x + (base + row_offsets[k] + c0 + (LEFT ? cs : 0)), cs,
                                                           w + (row_taps[k] * cs + c0), nullptr);
        store_block<R>(acc, a.y0 + c0, a.y_pixel_step, min_i64(W, channels - c0), a.stream);
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
void depthwise_k3_pair_tile(const DepthwiseRowTileArgs& a) {
    const float* const x = a.x;
    const float* const w = a.w;
    const float* const bias = a.bias;
    const i64 base = a.base, cs = a.channel_stride, entries = a.entries, channels = a.channels;
    const i64* const in_offsets = a.in_offsets;
    const i64* const taps0 = a.taps0;
    const i64* const taps1 = a.taps1;
    for (i64 c0 = 0; c0 < channels; c0 += W) {
        vf acc0[R], acc1[R];
        const vf b = bias ? load(bias + c0) : zero();
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = b;
        if (a.prefetch_outputs && c0 + W < channels) {
            prefetch_tile_outputs<R>(a.y0 + c0 + W, a.y_pixel_step);
            prefetch_tile_outputs<R>(a.y1 + c0 + W, a.y_pixel_step);
        }
        for (i64 e = 0; e < entries; ++e) {
            const float* px = x + (base + in_offsets[e] + c0 + (LEFT ? cs : 0));
            const float* wa = taps0[e] >= 0 ? w + (taps0[e] * cs + c0) : nullptr;
            const float* wb = taps1[e] >= 0 ? w + (taps1[e] * cs + c0) : nullptr;
            if (taps0[e] >= 0 && taps1[e] >= 0)
                k3_kernel_row<R, S, LEFT, RIGHT, true, true>(acc0, acc1, px, cs, wa, wb);
            else if (taps0[e] >= 0)
                k3_kernel_row<R, S, LEFT, RIGHT, true, false>(acc0, acc1, px, cs, wa, wb);
            else if (taps1[e] >= 0)
                k3_kernel_row<R, S, LEFT, RIGHT, false, true>(acc0, acc1, px, cs, wa, wb);
        }
        const i64 valid = min_i64(W, channels - c0);
        store_block<R>(acc0, a.y0 + c0, a.y_pixel_step, valid, a.stream);
        store_block<R>(acc1, a.y1 + c0, a.y_pixel_step, valid, a.stream);
    }
}

template <int S, int R>
DepthwiseRowTileFn pick_depthwise_k3_pair(int r, bool left, bool right) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        if (r != R) return pick_depthwise_k3_pair<S, R - 1>(r, left, right);
        if (left) return right ? &depthwise_k3_pair_tile<R, S, true, true> : &depthwise_k3_pair_tile<R, S, true, false>;
        return right ? &depthwise_k3_pair_tile<R, S, false, true> : &depthwise_k3_pair_tile<R, S, false, false>;
    }
}

template <int S, int R>
DepthwiseRowTileFn pick_depthwise_k3_tile(int r, bool left, bool right) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        if (r != R) return pick_depthwise_k3_tile<S, R - 1>(r, left, right);
        if (left) return right ? &depthwise_k3_tile<R, S, true, true> : &depthwise_k3_tile<R, S, true, false>;
        return right ? &depthwise_k3_tile<R, S, false, true> : &depthwise_k3_tile<R, S, false, false>;
    }
}

// A row of `outputs` outputs cut into `count` tiles of nearly equal widths (the first outputs % count
// of them one wider), and the tiles' kernels: kernels[wider][left][right], where `left` marks the
// first tile when it reads the padding column left of the input and `right` the last one when it
// reads the column right of it.
struct RowTiles {
    i64 count = 0, width = 0, wider = 0;
    DepthwiseRowTileFn kernels[2][2][2] = {};
    i64 first(i64 t) const { return t * width + (t < wider ? t : wider); }  // first(count) == outputs
    DepthwiseRowTileFn kernel(i64 t, bool left_pad, bool right_pad) const {
        return kernels[t < wider ? 1 : 0][t == 0 && left_pad ? 1 : 0][t == count - 1 && right_pad ? 1 : 0];
    }
};

// pick(width, left, right): the kernel of a tile, or null when there is none that wide.
template <typename Pick>
RowTiles row_tiles(i64 outputs, i64 widest, const Pick& pick) {
    RowTiles tiles;
    tiles.count = (outputs + widest - 1) / widest;
    tiles.width = outputs / tiles.count;
    tiles.wider = outputs % tiles.count;
    for (int wider = 0; wider < 2; ++wider)
        for (int left = 0; left < 2; ++left)
            for (int right = 0; right < 2; ++right)
                tiles.kernels[wider][left][right] = pick(static_cast<int>(tiles.width + wider), left == 1, right == 1);
    return tiles;
}

// Whole rows in depthwise_k3_tile: kernel width 3, dilation 1, stride 1 or 2, and at most one padding
// column on each side of a row (the first output's kw = 0, the last one's kw = 2).
bool takes_k3_rows(const Geometry& g) {
    const i64 s2 = g.stride[2], pb2 = g.pad_begin[2], OW = g.out[2];
    return g.kernel[2] == 3 && g.dilation[2] == 1 && (s2 == 1 || s2 == 2) && pb2 <= 1 && OW > 0 &&
           (OW - 1) * s2 - pb2 + 2 <= g.in[2];
}

// Bytes of the layer's input (channels padded to Cs) and output.
i64 k3_rows_bytes(const Geometry& g) {
    return (g.batch * g.in[0] * g.in[1] * g.in[2] * g.channel_stride + g.batch * g.out_pixels() * g.out_channels) *
           static_cast<i64>(sizeof(float));
}

// Where depthwise_rows prefetches the rows (stream_output false): only when input and output are too large to
// stay in the cache between calls (over 16 MiB), and where the ISA's unit asks for it (kDepthwiseRowPrefetch): on
// smaller layers, and on the AVX-512 machine measured, the hardware keeps up and the prefetches only cost time.
bool k3_rows_prefetch_unstreamed(const Geometry& g) { return kDepthwiseRowPrefetch && k3_rows_bytes(g) > (i64{16} << 20); }

// Rows [begin, end) by depthwise_k3_pair_tile, two rows of a plane at a time where the kernel has
// it (AVX-512, height stride 1 or 2, height dilation 1), and by depthwise_k3_tile otherwise; a row
// is cut into tiles of nearly equal widths. On layers that do not fit in the cache, before a tile
// runs, the input it covers in the rows that the next output rows add and the next rows' outputs
// under it are prefetched into L2: each input row comes from memory once, and is then needed at once
// by every channel block of a tile (measured: batch 8 of the 56x56 and 112x112 layers 1.5-2x faster).
// stream_output: full channel blocks leave by non-temporal stores (depthwise_rows_streamed); prefetch_rows: the
// prefetches into L2 above are issued.
void depthwise_k3_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end,
                       bool stream_output, bool prefetch_rows) {
    const Geometry& g = *p.geometry;
    const i64 cs = g.channel_stride, C = g.out_channels;
    const i64 D = g.in[0], H = g.in[1], Wd = g.in[2], OH = g.out[1], OW = g.out[2];
    const i64 KD = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
    const i64 s1 = g.stride[1], s2 = g.stride[2], pb2 = g.pad_begin[2];
    // the tiles of a row (single rows, and pairs of rows when the height stride is 1 or 2 and the
    // height dilation 1)
    const i64 pair_width = s2 == 1 ? kDepthwiseK3PairWidthS1 : kDepthwiseK3PairWidthS2;
    const bool pairs = pair_width > 0 && (s1 == 1 || s1 == 2) && g.dilation[1] == 1;
    const auto single_s1 = [](int r, bool left, bool right) {
        return pick_depthwise_k3_tile<1, kDepthwiseK3WidthS1>(r, left, right);
    };
    const auto single_s2 = [](int r, bool left, bool right) {
        return pick_depthwise_k3_tile<2, kDepthwiseK3WidthS2>(r, left, right);
    };
    const auto pair_s1 = [](int r, bool left, bool right) {
        return pick_depthwise_k3_pair<1, kDepthwiseK3PairWidthS1>(r, left, right);
    };
    const auto pair_s2 = [](int r, bool left, bool right) {
        return pick_depthwise_k3_pair<2, kDepthwiseK3PairWidthS2>(r, left, right);
    };
    const RowTiles tiles = s2 == 1 ? row_tiles(OW, kDepthwiseK3WidthS1, single_s1) : row_tiles(OW, kDepthwiseK3WidthS2, single_s2);
    RowTiles pair_tiles;
    if (pairs) pair_tiles = s2 == 1 ? row_tiles(OW, pair_width, pair_s1) : row_tiles(OW, pair_width, pair_s2);
    const bool left_pad = pb2 == 1, right_pad = (OW - 1) * s2 - pb2 + 2 == Wd;
    // the input rows the tile reads (inside the input), with their kw = 0 tap per output row or -1
    const i64 most_entries = KD * (KH + 2);
    i64* offsets = scratch;
    i64* taps0 = scratch + most_entries;
    i64* taps1 = scratch + 2 * most_entries;
    DepthwiseRowTileArgs a;
    a.channel_stride = cs;
    a.in_offsets = offsets;
    a.taps0 = taps0;
    a.taps1 = taps1;
    a.w = p.weights;
    a.bias = p.bias;
    a.y_pixel_step = C;
    a.channels = C;
    const i64 plane = D * H * Wd * cs;
    const bool prefetch = prefetch_rows;
    a.stream = stream_output;
    // Stride 1 only: at stride 2 (a quarter of the input's bytes written) dw96@112/2 ran 1-3 % slower with it; and
    // not when the outputs are streamed (no read for ownership to wait for).
    const i64 bytes = k3_rows_bytes(g);
    a.prefetch_outputs = kDepthwisePrefetchOutputsAbove >= 0 && bytes > kDepthwisePrefetchOutputsAbove && s1 == 1 &&
                         s2 == 1 && g.stride[0] == 1 && !a.stream;
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
        a.x = image;
        a.entries = count;
        // the input rows new to the next output row(s) of this plane: the last s1 * rows_here kernel
        // rows of kd = last, and the next rows' outputs (while inside this call's rows)
        const i64 ih_new = ih0 + (KH - 1) * g.dilation[1] + 1 + (pair ? s1 : 0);
        const i64 ih_new_end = oh + rows_here < OH ? ih_new + s1 * rows_here : ih_new;
        i64 y_next_rows = a.stream ? 0 : end - (row + rows_here);  // streamed outputs are not read for ownership
        if (y_next_rows > rows_here) y_next_rows = rows_here;
        const RowTiles& tiling = pair ? pair_tiles : tiles;
        for (i64 t = 0; t < tiling.count; ++t) {
            const i64 first = tiling.first(t), next = tiling.first(t + 1);
            const DepthwiseRowTileFn kernel = tiling.kernel(t, left_pad, right_pad);
            a.base = (first * s2 - pb2) * cs;
            a.y0 = y_row + first * C;
            a.y1 = pair ? y_row + (OW + first) * C : nullptr;  // the second row
            if (!prefetch) {
                kernel(a);
                continue;
            }
            // into L2 (into L1 they would stall on its few fill buffers): the new input rows under this tile
            // (through the row's end on the last tile), and the next rows' outputs; up to
            // kPrefetchBurstLines at once, more a few lines after each channel block
            RowPrefetch ahead;
            i64 iw0 = first * s2 - pb2, iw1 = next * s2 - pb2 + (t == tiling.count - 1 ? 2 : 0);
            if (iw0 < 0) iw0 = 0;
            if (iw1 > Wd) iw1 = Wd;
            for (i64 ih = ih_new < 0 ? 0 : ih_new; ih < ih_new_end && ih < H && id_last >= 0 && id_last < D; ++ih)
                ahead.add(reinterpret_cast<const char*>(image + ((id_last * H + ih) * Wd + iw0) * cs),
                          reinterpret_cast<const char*>(image + ((id_last * H + ih) * Wd + iw1) * cs), false);
            for (i64 i = 0; i < y_next_rows; ++i)
                ahead.add(reinterpret_cast<const char*>(y_row + ((rows_here + i) * OW + first) * C),
                          reinterpret_cast<const char*>(y_row + ((rows_here + i) * OW + next) * C), true);
            const i64 lines = ahead.lines(), blocks = (C + W - 1) / W;
            if (lines <= kPrefetchBurstLines) {
                ahead.issue(-1);
                kernel(a);
                continue;
            }
            ahead.per_block = (lines + blocks - 1) / blocks;
            DepthwiseRowTileArgs part = a;  // one channel block per call: the same sums, in the same order
            for (i64 c0 = 0; c0 < C; c0 += W) {
                part.x = a.x + c0;
                part.w = a.w + c0;
                part.bias = a.bias ? a.bias + c0 : nullptr;
                part.y0 = a.y0 + c0;
                part.y1 = pair ? a.y1 + c0 : nullptr;
                part.channels = min_i64(W, C - c0);
                kernel(part);
                ahead.issue(ahead.per_block);
            }
            ahead.issue(-1);
        }
        row += rows_here - 1;
    }
    if (a.stream) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

}  // namespace
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
