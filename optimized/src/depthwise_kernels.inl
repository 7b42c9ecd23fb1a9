// The depthwise kernels (ICg = OCg = 1; channels are the vector lanes), written once and compiled
// once per ISA: depthwise_avx512.cpp and depthwise_avx2.cpp include their ISA's vocabulary
// (isa_avx512.hpp, isa_avx2.hpp) and tile sizes, then depthwise_k3_rows.inl (whole rows of a 3-wide
// kernel) and this file (every other depthwise descriptor, and the entry point). The input is not
// padded: only the taps inside the input are visited, so the zero padding is implicit. No std::
// templates here: an inline function instantiated with AVX-512 enabled must not be shared with
// other units; the scratch comes from the caller (DepthwiseProblem::scratch_elements()).

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// What one tile of depthwise_tile, depthwise_tile_k3 or depthwise_pixel_channels reads and writes:
// pixels of one output row, channels from c0 (x, w, bias and y all point at channel c0).
struct DepthwiseTileArgs {
    const float* x = nullptr;          // the unpadded input, channel c0
    i64 base = 0;                      // x + base: the first pixel's kw = 0 column in input row 0
    i64 x_pixel_step = 0;              // from one output pixel's input to the next one's (s_w * Cs)
    i64 channel_stride = 0;            // Cs: from one input column to the next, and one packed tap to the next
    const i64* tap_offsets = nullptr;  // per visited tap: its input offset from x + base
    const i64* tap_index = nullptr;    // per visited tap: its (kd, kh, kw) number in the packed weights
    i64 taps = 0;                      // the visited taps (those inside the input)
    const float* w = nullptr;          // packed weights [taps][Cs] at channel c0
    const float* bias = nullptr;       // bias at channel c0, or null
    float* y = nullptr;                // the first pixel's output, channel c0
    i64 y_pixel_step = 0;              // C
    i64 c_valid = 0;                   // channels of the block that exist (<= W)
};

// R pixels of one row times W channels (groups) of one channel block.
template <int R>
void depthwise_tile(const DepthwiseTileArgs& a) {
    const float* const x = a.x;
    const i64 base = a.base, x_pixel_step = a.x_pixel_step, w_tap_step = a.channel_stride, taps = a.taps;
    const i64* const tap_offsets = a.tap_offsets;
    const i64* const tap_index = a.tap_index;
    vf acc[R];
    const vf b = a.bias ? load(a.bias) : zero();
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = b;
    for (i64 t = 0; t < taps; ++t) {
        const float* px = x + (base + tap_offsets[t]);
        const vf wv = load(a.w + tap_index[t] * w_tap_step);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) acc[r] = fma(load(px + r * x_pixel_step), wv, acc[r]);
    }
    store_tile<R, 1>(acc, a.y, a.y_pixel_step, a.c_valid);
}

using DepthwiseTileFn = void (*)(const DepthwiseTileArgs&);

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
void depthwise_tile_k3(const DepthwiseTileArgs& a) {
    constexpr int L = (R - 1) * S + 3;
    const float* const x = a.x;
    const float* const w = a.w;
    const i64 base = a.base, cs = a.channel_stride, taps = a.taps;
    const i64* const tap_offsets = a.tap_offsets;
    const i64* const tap_index = a.tap_index;
    vf acc[R];
    const vf b = a.bias ? load(a.bias) : zero();
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
    store_tile<R, 1>(acc, a.y, a.y_pixel_step, a.c_valid);
}

// Depthwise, one border pixel, CB channel blocks at once (CB independent accumulator chains instead of
// one chain of dependent FMAs per block). Same taps and order as depthwise_tile; every block full.
template <int CB>
void depthwise_pixel_channels(const DepthwiseTileArgs& a) {
    const float* const x = a.x;
    const i64 base = a.base, w_tap_step = a.channel_stride, taps = a.taps;
    vf acc[CB];
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) acc[c] = a.bias ? load(a.bias + c * W) : zero();
    for (i64 t = 0; t < taps; ++t) {
        const float* px = x + (base + a.tap_offsets[t]);
        const float* wt = a.w + a.tap_index[t] * w_tap_step;
#pragma GCC unroll 8
        for (int c = 0; c < CB; ++c) acc[c] = fma(load(px + c * W), load(wt + c * W), acc[c]);
    }
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) store(a.y + c * W, acc[c]);
}

template <int S, int R>
DepthwiseTileFn pick_depthwise_k3(int r) {
    if constexpr (R == 0) {
        return nullptr;
    } else {
        return r == R ? &depthwise_tile_k3<R, S> : pick_depthwise_k3<S, R - 1>(r);
    }
}

}  // namespace

// x is the UNPADDED channels-last input [N][D][H][W][Cs] (geometry.in); pads are implicit.
// scratch: four tap lists of g.taps() entries.
void depthwise_rows(const DepthwiseProblem& p, const float* x, float* y, i64* scratch, i64 begin, i64 end) {
    const Geometry& g = *p.geometry;
    if (takes_k3_rows(g)) {
        depthwise_k3_rows(p, x, y, scratch, begin, end, false, k3_rows_prefetch_unstreamed(g));
        return;
    }
    const i64 cs = g.channel_stride, taps = g.taps(), C = g.out_channels;
    const i64 D = g.in[0], H = g.in[1], Wd = g.in[2], OW = g.out[2];
    const i64 KD = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
    const i64 s2 = g.stride[2], dl2 = g.dilation[2], pb2 = g.pad_begin[2];
    // interior outputs [ow_lo, ow_hi): every kw tap inside [0, W)
    i64 ow_lo = pb2 > 0 ? (pb2 + s2 - 1) / s2 : 0;
    const i64 last = Wd - 1 - (KW - 1) * dl2 + pb2;  // ow * s2 <= last
    i64 ow_hi = last < 0 ? 0 : last / s2 + 1;
    if (ow_lo > OW) ow_lo = OW;
    if (ow_hi > OW) ow_hi = OW;
    if (ow_hi < ow_lo) ow_hi = ow_lo;
    i64* row_offsets = scratch;
    i64* row_index = scratch + taps;
    i64* pixel_offsets = scratch + 2 * taps;
    i64* pixel_index = scratch + 3 * taps;
    const DepthwiseTileFn full_tile = pick_depthwise<kDepthwiseTileWidth>(kDepthwiseTileWidth);
    const DepthwiseTileFn one = pick_depthwise<kDepthwiseTileWidth>(1);
    DepthwiseTileArgs a;  // the fields every tile of the call shares
    a.channel_stride = cs;
    a.x_pixel_step = s2 * cs;
    a.y_pixel_step = C;
    const float* x_image = x;  // the row's image
    float* y_row = y;          // the row's first output
    // channels c0.. of a tile whose first pixel is output ow of the row
    const auto at_channels = [&](i64 ow, i64 c0) {
        a.x = x_image + c0;
        a.base = (ow * s2 - pb2) * cs;
        a.w = p.weights + c0;
        a.bias = p.bias ? p.bias + c0 : nullptr;
        a.y = y_row + ow * C + c0;
        a.c_valid = min_i64(W, C - c0);
    };
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
        x_image = x + n * D * H * Wd * cs;
        y_row = y + ((n * g.out[0] + od) * g.out[1] + oh) * OW * C;
        // border pixels: keep only the taps whose iw lies inside the input
        a.tap_offsets = pixel_offsets;
        a.tap_index = pixel_index;
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
            a.taps = kept;
            i64 c0 = 0;
            for (; c0 + 4 * W <= C; c0 += 4 * W) {
                at_channels(ow, c0);
                depthwise_pixel_channels<4>(a);
            }
            for (; c0 < C; c0 += W) {
                at_channels(ow, c0);
                one(a);
            }
        }
        // interior tiles; all channel blocks of a tile in turn, so that its pixels' lines are used together
        a.tap_offsets = row_offsets;
        a.tap_index = row_index;
        a.taps = valid;
        i64 ow = ow_lo;
        if (KW == 3 && dl2 == 1 && (s2 == 1 || s2 == 2)) {
            const i64 width = s2 == 1 ? kDepthwiseK3WidthS1 : kDepthwiseK3WidthS2;
            for (; ow < ow_hi; ow += width) {
                const int r = static_cast<int>(min_i64(width, ow_hi - ow));
                const DepthwiseTileFn tile = s2 == 1 ? pick_depthwise_k3<1, kDepthwiseK3WidthS1>(r)
                                                     : pick_depthwise_k3<2, kDepthwiseK3WidthS2>(r);
                for (i64 c0 = 0; c0 < C; c0 += W) {
                    at_channels(ow, c0);
                    tile(a);
                }
            }
        }
        for (; ow < ow_hi; ow += kDepthwiseTileWidth) {
            const i64 r = min_i64(kDepthwiseTileWidth, ow_hi - ow);
            const DepthwiseTileFn tile =
                r == kDepthwiseTileWidth ? full_tile : pick_depthwise<kDepthwiseTileWidth>(static_cast<int>(r));
            for (i64 c0 = 0; c0 < C; c0 += W) {
                at_channels(ow, c0);
                tile(a);
            }
        }
    }
}

#if defined(__AVX512F__)
void depthwise_rows_streamed(const DepthwiseProblem& p, bool prefetch_rows, const float* x, float* y, i64* scratch,
                             i64 begin, i64 end) {
    if (takes_k3_rows(*p.geometry))
        depthwise_k3_rows(p, x, y, scratch, begin, end, true, prefetch_rows);
    else
        depthwise_rows(p, x, y, scratch, begin, end);
}
#endif

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
