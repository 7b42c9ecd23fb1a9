// The depthwise kernels (ICg = OCg = 1; channels are the vector lanes), written once and compiled
// once per ISA: depthwise_avx512.cpp and depthwise_avx2.cpp include their ISA's vocabulary
// (isa_avx512.hpp, isa_avx2.hpp) and tile sizes, then depthwise_k3_rows.inl (whole rows of a 3-wide
// kernel) and this file (every other depthwise descriptor, and the entry point). The input is not
// padded: only the taps inside the input are visited, so the zero padding is implicit. No std::
// templates here: an inline function instantiated with AVX-512 enabled must not be shared with
// other units.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

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
