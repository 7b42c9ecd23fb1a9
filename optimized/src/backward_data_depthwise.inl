// The depthwise backward-data kernel (backward_data_depthwise.hpp), written once and compiled once per
// ISA (backward_data_avx2.cpp, backward_data_avx512.cpp include their ISA's vocabulary, then this file).

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {

int backward_data_lanes() { return W; }

namespace {

// NB vectors of channels from `lane` on: out = sum over the taps t in increasing order of dy[from[t]] * w[wt[t]].
template <int NB>
[[gnu::always_inline]] inline void sum_taps(const float* dy, const float* w, const i64* from, const i64* wt, i64 taps,
                                            i64 lane, float* out) {
    vf acc[NB];
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) acc[j] = zero();
    for (i64 t = 0; t < taps; ++t) {
        const float* d = dy + from[t] + lane;
        const float* k = w + wt[t] + lane;
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) acc[j] = fma(load(d + j * W), load(k + j * W), acc[j]);
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) store(out + lane + j * W, acc[j]);
}

}  // namespace

void depthwise_backward_data_rows(const DepthwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                                  i64* scratch) {
    const Geometry& g = *p.geometry;
    const i64 C = g.in_channels, IW = g.in[2], OW = g.out[2], full = C / W, Cr = p.lane_blocks * W;
    const i64 KR = g.kernel[0] * g.kernel[1];
    const i64 sw = g.stride[2];
    const bool pow2 = (sw & (sw - 1)) == 0;
    const int shift = __builtin_ctzll(static_cast<unsigned long long>(sw));
    // per valid (kd, kh) of the row: its diff_dst row and first tap; per valid tap of the pixel: its diff_dst
    // pixel and its weights (offsets in floats; no std:: container here: see optimized.md)
    i64 *row_dy = scratch, *row_tap = scratch + KR, *from = scratch + 2 * KR, *wt = from + g.taps();
    for (i64 row = begin; row < end; ++row) {
        const i64 ih = row % g.in[1], id = (row / g.in[1]) % g.in[0], n = row / (g.in[1] * g.in[0]);
        i64 rows = 0;
        for (i64 kd = 0; kd < g.kernel[0]; ++kd) {
            const i64 yd = id + g.pad_begin[0] - kd * g.dilation[0];
            if (yd < 0 || yd % g.stride[0] != 0 || yd / g.stride[0] >= g.out[0]) continue;
            for (i64 kh = 0; kh < g.kernel[1]; ++kh) {
                const i64 yh = ih + g.pad_begin[1] - kh * g.dilation[1];
                if (yh < 0 || yh % g.stride[1] != 0 || yh / g.stride[1] >= g.out[1]) continue;
                row_dy[rows] = ((n * g.out[0] + yd / g.stride[0]) * g.out[1] + yh / g.stride[1]) * OW * C;
                row_tap[rows++] = (kd * g.kernel[1] + kh) * g.kernel[2];
            }
        }
        float* out_row = dx + row * IW * C;
        for (i64 iw = 0; iw < IW; ++iw) {
            i64 taps = 0;
            for (i64 r = 0; r < rows; ++r)
                for (i64 kw = 0; kw < g.kernel[2]; ++kw) {
                    const i64 yw = iw + g.pad_begin[2] - kw * g.dilation[2];
                    // (a stride of a power of two by mask and shift: an idiv per tap was 17 % of dw96_112s2's time)
                    if (yw < 0 || (pow2 ? yw & (sw - 1) : yw % sw) != 0) continue;
                    const i64 ow = pow2 ? yw >> shift : yw / sw;
                    if (ow >= OW) continue;
                    from[taps] = row_dy[r] + ow * C;
                    wt[taps++] = (row_tap[r] + kw) * Cr;
                }
            float* out = out_row + iw * C;
            // chunks of up to 8 vectors of channels, each vector's sum over the taps in increasing order, the taps
            // read once a chunk (the pixel's few taps, 1 to 4 with a stride of 2, against up to 8 vectors)
            i64 lb = 0;
            for (; lb + 8 <= full; lb += 8) sum_taps<8>(dy, p.weights, from, wt, taps, lb * W, out);
            switch (full - lb) {
            case 7: sum_taps<7>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 6: sum_taps<6>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 5: sum_taps<5>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 4: sum_taps<4>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 3: sum_taps<3>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 2: sum_taps<2>(dy, p.weights, from, wt, taps, lb * W, out); break;
            case 1: sum_taps<1>(dy, p.weights, from, wt, taps, lb * W, out); break;
            default: break;
            }
            for (i64 c = full * W; c < C; ++c) {  // the last channels, one at a time in the same order
                float acc = 0.0f;
                for (i64 t = 0; t < taps; ++t) acc = __builtin_fmaf(dy[from[t] + c], p.weights[wt[t] + c], acc);
                out[c] = acc;
            }
        }
    }
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
