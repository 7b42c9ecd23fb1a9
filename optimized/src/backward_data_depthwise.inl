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

// One channel c past the last full vector: the sum over the taps in increasing order of dy[from[t] + at + c] * w[wt[t] + c]
// (the same order as the vectors' lanes).
inline float tail_sum(const float* dy, const float* w, const i64* from, const i64* wt, i64 taps, i64 at, i64 c) {
    float acc = 0.0f;
    for (i64 t = 0; t < taps; ++t) acc = __builtin_fmaf(dy[from[t] + at + c], w[wt[t] + c], acc);
    return acc;
}

// v stored at `to`: non-temporally with Stream where `to` is on a vector's alignment
template <bool Stream>
[[gnu::always_inline]] inline void put(float* to, vf v) {
    if (Stream && stream_aligned(to)) stream(to, v);
    else store(to, v);
}

// A run of input columns with the same taps (one phase of the width stride, every tap's diff_dst column in range):
// column j of the run is out + j * out_step; tap t reads dy + from[t] + at + j * C and weights + wt[t]. NB vectors of
// channels from `lane` on, each column's sum over the taps in increasing order (as sum_taps). With T taps known
// (T > 0) their weights stay in registers for the whole run; T = 0 reads them again for each column. With Stream the
// columns are stored non-temporally where a vector starts on its alignment (NB vectors are whole cache lines).
template <int T, int NB, bool Stream>
[[gnu::always_inline]] inline void sum_run(const float* dy, const float* w, const i64* from, const i64* wt, i64 taps,
                                           i64 at, i64 lane, i64 C, i64 columns, float* out, i64 out_step) {
    if constexpr (T > 0) {
        vf k[T * NB];
        const float* d[T];
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) {
            d[t] = dy + (from[t] + at + lane);
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) k[t * NB + j] = load(w + wt[t] + lane + j * W);
        }
        for (i64 c = 0; c < columns; ++c) {
            vf acc[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[j] = zero();
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) acc[j] = fma(load(d[t] + c * C + j * W), k[t * NB + j], acc[j]);
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) put<Stream>(out + c * out_step + lane + j * W, acc[j]);
        }
    } else {
        for (i64 c = 0; c < columns; ++c) {
            vf acc[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) acc[j] = zero();
            for (i64 t = 0; t < taps; ++t) {
                const float* d = dy + (from[t] + at + c * C + lane);
                const float* k = w + wt[t] + lane;
#pragma GCC unroll 4
                for (int j = 0; j < NB; ++j) acc[j] = fma(load(d + j * W), load(k + j * W), acc[j]);
            }
#pragma GCC unroll 4
            for (int j = 0; j < NB; ++j) put<Stream>(out + c * out_step + lane + j * W, acc[j]);
        }
    }
}

// sum_run over every full vector of channels: chunks of kRunVectors (their weights for up to 4 taps fit the
// registers beside the sums: 4 x 4 + 4 of AVX-512's 32, 4 x 2 + 2 of AVX2's 16), then single vectors
// (kRunBytes: diff_src a block of runs writes; 8 KB measured against 1.5 and 3 KB on dw96_112s2)
constexpr int kRunVectors = W == 16 ? 4 : 2;
constexpr i64 kRunBytes = 8192;

template <int T, bool Stream>
void sum_runs(const float* dy, const float* w, const i64* from, const i64* wt, i64 taps, i64 at, i64 full, i64 C,
              i64 columns, float* out, i64 out_step) {
    i64 lb = 0;
    for (; lb + kRunVectors <= full; lb += kRunVectors)
        sum_run<T, kRunVectors, Stream>(dy, w, from, wt, taps, at, lb * W, C, columns, out, out_step);
    // (one AVX2 vector is half a line: stored plainly, a line's halves are not written together)
    for (; lb < full; ++lb) sum_run<T, 1, Stream && W == 16>(dy, w, from, wt, taps, at, lb * W, C, columns, out, out_step);
}

template <bool Stream>
void runs(const float* dy, const float* w, const i64* from, const i64* wt, i64 taps, i64 at, i64 full, i64 C, i64 columns,
          float* out, i64 out_step) {
    switch (taps) {
    case 1: sum_runs<1, Stream>(dy, w, from, wt, taps, at, full, C, columns, out, out_step); break;
    case 2: sum_runs<2, Stream>(dy, w, from, wt, taps, at, full, C, columns, out, out_step); break;
    case 3: sum_runs<3, Stream>(dy, w, from, wt, taps, at, full, C, columns, out, out_step); break;
    case 4: sum_runs<4, Stream>(dy, w, from, wt, taps, at, full, C, columns, out, out_step); break;
    default: sum_runs<0, Stream>(dy, w, from, wt, taps, at, full, C, columns, out, out_step); break;
    }
}

}  // namespace

void depthwise_backward_data_rows(const DepthwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                                  i64* scratch) {
    const Geometry& g = *p.geometry;
    const i64 C = g.in_channels, IW = g.in[2], OW = g.out[2], full = C / W, Cr = p.lane_blocks * W;
    const i64 KR = g.kernel[0] * g.kernel[1], KW = g.kernel[2];
    const i64 sw = g.stride[2], pw = g.pad_begin[2], dw = g.dilation[2];
    const bool pow2 = (sw & (sw - 1)) == 0;
    const int shift = __builtin_ctzll(static_cast<unsigned long long>(sw));
    // per valid (kd, kh) of the row: its diff_dst row and first tap; per valid tap of the pixel: its diff_dst
    // pixel and its weights, or every run's taps; per phase of the width stride its run's columns and taps
    // (offsets in floats; no std:: container here: see optimized.md)
    i64 *row_dy = scratch, *row_tap = scratch + KR, *from = scratch + 2 * KR, *wt = from + g.taps();
    i64 *run_first = wt + g.taps(), *run_end = run_first + sw, *run_list = run_end + sw, *run_taps = run_list + sw;
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
                row_tap[rows++] = (kd * g.kernel[1] + kh) * KW;
            }
        }
        float* out_row = dx + row * IW * C;
        // one pixel, its taps found one by one (the columns at the edges, where some taps fall outside diff_dst)
        const auto pixel = [&](i64 iw) {
            i64 taps = 0;
            for (i64 r = 0; r < rows; ++r)
                for (i64 kw = 0; kw < KW; ++kw) {
                    const i64 yw = iw + pw - kw * dw;
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
            for (i64 c = full * W; c < C; ++c) out[c] = tail_sum(dy, p.weights, from, wt, taps, 0, c);
        };
        // The columns iw = ph + sw * j of one phase ph take the same kw: those with ph + pw - kw * dw = sw * q_kw,
        // at diff_dst column j + q_kw. Where every such column is in [0, OW) (the phase's run [j0, j1)) the taps
        // are one list for all its columns, read with the weights held (sum_run); the columns before and after
        // the run take their taps one pixel at a time, first. The same taps in the same order either way. The
        // phases' lists together hold at most one entry per tap.
        for (i64 ph = 0; ph < sw; ++ph) {
            const i64 columns = ph < IW ? (IW - ph + sw - 1) / sw : 0;  // the phase's columns j in [0, columns)
            i64 j0 = 0, j1 = columns, kws = 0;
            for (i64 kw = 0; kw < KW; ++kw) {
                const i64 y = ph + pw - kw * dw;
                if (y % sw != 0) continue;
                const i64 q = y / sw;  // exact (y may be negative)
                if (-q > j0) j0 = -q;
                if (OW - q < j1) j1 = OW - q;
                ++kws;
            }
            if (kws == 0 || rows == 0 || j1 <= j0) j0 = j1 = columns;  // no run: every column one pixel at a time
            for (i64 j = 0; j < j0; ++j) pixel(ph + sw * j);
            for (i64 j = j1; j < columns; ++j) pixel(ph + sw * j);
            run_first[ph] = j0, run_end[ph] = j1;
        }
        i64 listed = 0;
        for (i64 ph = 0; ph < sw; ++ph) {  // the runs' taps at their column 0, in increasing (row, kw) order
            run_list[ph] = listed;
            if (run_first[ph] < run_end[ph])
                for (i64 r = 0; r < rows; ++r)
                    for (i64 kw = 0; kw < KW; ++kw) {
                        const i64 y = ph + pw - kw * dw;
                        if (y % sw != 0) continue;
                        from[listed] = row_dy[r] + y / sw * C;
                        wt[listed++] = (row_tap[r] + kw) * Cr;
                    }
            run_taps[ph] = listed - run_list[ph];
        }
        // the runs in blocks of about kRunBytes of diff_src, every phase's columns of a block before the next
        // block's (their lines written while they are in L1, diff_src's row in order; past the streaming bound
        // non-temporally: stored plainly, diff_src in memory, the blocks' scattered stores waited on their lines)
        const i64 block = sw * C * 4 >= kRunBytes ? 1 : kRunBytes / (sw * C * 4), step = sw * C;
        for (i64 jb = 0; jb * sw < IW; jb += block) {
            for (i64 ph = 0; ph < sw; ++ph) {
                const i64 a = run_first[ph] > jb ? run_first[ph] : jb, b = run_end[ph] < jb + block ? run_end[ph] : jb + block;
                if (a >= b) continue;
                const i64 taps = run_taps[ph], *f = from + run_list[ph], *k = wt + run_list[ph];
                float* out = out_row + (ph + sw * a) * C;
                const i64 at = a * C;  // the lists' column 0 moved to column a
                if (p.stream_output) runs<true>(dy, p.weights, f, k, taps, at, full, C, b - a, out, step);
                else runs<false>(dy, p.weights, f, k, taps, at, full, C, b - a, out, step);
                for (i64 j = 0; j < b - a; ++j)  // the last channels, one at a time
                    for (i64 c = full * W; c < C; ++c) out[j * step + c] = tail_sum(dy, p.weights, f, k, taps, at + j * C, c);
            }
        }
    }
    if (p.stream_output) _mm_sfence();  // the non-temporal stores visible before the caller's join
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
