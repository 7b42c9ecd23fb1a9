// The CC chunked method's hidden features (cc_hidden_features, cc_factored_kernels.hpp), written once over
// the ISA vocabulary (isa_avx2.hpp or isa_avx512.hpp, then cc_backward_isa.hpp) and included by
// cc_factored_avx2.cpp and cc_hidden_avx512.cpp. Each vector holds W second-layer features m; the
// register tiles are <= 2 feature vectors x <= kTaps taps. A lane is one feature and every sum runs in
// the same order (b2 first, then a1's entries, FMA), so both ISAs give the same bits.

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {

// The most taps of a second-layer tile: 6 x 2 vectors on AVX2 (12 accumulators of 16 registers), 12 x 1
// on AVX-512 (h2p = 16: one vector of features).
constexpr int kTaps = W == 16 ? 12 : 6;

// LeakyReLU: v >= 0 ? v : slope * v (false for NaN: slope * NaN).
inline vf leaky(vf v, vf slope) { return if_not_below_zero(v, v, v * slope); }

// The first layer's width built as a constant (the paper's Internal-Net, 16 x 16): a1's rows then lie
// at fixed offsets, one base register for all the tile's broadcasts; 0 for any other width.
constexpr int kFixedH1 = 16;

// h = LeakyReLU(b2 + sum_j a1[j] W2t[j]) for T taps at once (a1: [T][h1]; tap t's features at
// h + tap[t] * h2p), feature vectors [v0, v0 + NB): T * NB independent FMA chains. H1: h1 if a constant.
template <int T, int NB, int H1>
void second_layer(const CcHiddenProblem& p, const float* a1, const i64* tap, i64 v0, float* h) {
    vf acc[T * NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) {
        const vf bias = load(p.b2 + (v0 + b) * W);
#pragma GCC unroll 12
        for (int t = 0; t < T; ++t) acc[t * NB + b] = bias;
    }
    const float* w = p.w2t + v0 * W;
    const i64 h1 = H1 ? H1 : p.h1, w_step = p.h2p;
#pragma GCC unroll 16
    for (i64 j = 0; j < h1; ++j, w += w_step) {
        vf wv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) wv[b] = load(w + b * W);
#pragma GCC unroll 12
        for (int t = 0; t < T; ++t) {
            const vf x = broadcast(a1 + t * h1 + j);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[t * NB + b] = fma(x, wv[b], acc[t * NB + b]);
        }
    }
    const vf slope = broadcast(&p.slope_f32);
    float* const hv = h + v0 * W;
#pragma GCC unroll 12
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) store(hv + tap[t] * w_step + b * W, leaky(acc[t * NB + b], slope));
}

// second_layer<t, NB, H1> for t taps (1 <= t <= kTaps).
template <int NB, int H1, int T = 1>
void second_layer_taps(i64 t, const CcHiddenProblem& p, const float* a1, const i64* tap, i64 v0, float* h) {
    if constexpr (T < kTaps)
        if (t > T) return second_layer_taps<NB, H1, T + 1>(t, p, a1, tap, v0, h);
    second_layer<T, NB, H1>(p, a1, tap, v0, h);
}

// a1 = LeakyReLU(ay + ax), in f32 (h1 entries).
inline __attribute__((always_inline)) void first_layer(i64 h1, vf slope, float slope_f32, const float* ay, const float* ax, float* a1) {
    i64 j = 0;
#pragma GCC unroll 2
    for (; j + W <= h1; j += W) store(a1 + j, leaky(load(ay + j) + load(ax + j), slope));
    for (; j < h1; ++j) {
        const float v = ay[j] + ax[j];
        a1[j] = v >= 0.0f ? v : slope_f32 * v;
    }
}

// The second layer for the n pairs gathered (a1, taps), kTaps at once (the last group may be shorter).
// Not inlined: inside the gathering loop its registers pushed the loop's pointers to the stack.
template <int H1>
[[gnu::noinline]] void second_layer_pairs(const CcHiddenProblem& p, i64 n, const float* a1, const i64* taps, float* h) {
    const i64 vectors = p.h2p / W;
    for (i64 t0 = 0; t0 < n; t0 += kTaps) {
        const i64 t = n - t0 < kTaps ? n - t0 : kTaps;
        i64 v0 = 0;
        for (; v0 + 2 <= vectors; v0 += 2) second_layer_taps<2, H1>(t, p, a1 + t0 * p.h1, taps + t0, v0, h);
        if (v0 < vectors) second_layer_taps<1, H1>(t, p, a1 + t0 * p.h1, taps + t0, v0, h);
    }
}

// cc_hidden_features with h1 = H1 if H1 > 0.
template <int H1>
void hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h) {
    const i64 K = p.kh * p.kw;
    i64 n = 0;  // pairs gathered
    // the problem's fields in locals: the stores to a1 and taps may not alias them
    const i64 h1 = H1 ? H1 : p.h1, kh = p.kh, kw = p.kw, out_w = p.out_w;
    const float slope_f32 = p.slope_f32;
    const vf slope = broadcast(&slope_f32);
    i64 oy = p0 / out_w, ox = p0 % out_w;
    for (i64 i = 0; i < count; ++i, ox = ox + 1 == out_w ? (++oy, 0) : ox + 1) {
        const TapRange ry = taps_inside(p.first_y[oy], kh, p.in_h), rx = taps_inside(p.first_x[ox], kw, p.in_w);
        // the taps inside the input: their first layer, gathered across pixels
        const float* ay = p.ay + (oy * kh + ry.lo) * h1;
        for (i64 y = ry.lo; y < ry.hi; ++y, ay += h1) {
            const float* ax = p.ax + (ox * kw + rx.lo) * h1;
            for (i64 tap = i * K + y * kw + rx.lo, end = tap + rx.hi - rx.lo; tap < end; ++tap, ax += h1) {
                first_layer(h1, slope, slope_f32, ay, ax, a1 + n * h1);
                taps[n++] = tap;
                if (n == kHiddenPairs) second_layer_pairs<H1>(p, n, a1, taps, h), n = 0;
            }
        }
    }
    second_layer_pairs<H1>(p, n, a1, taps, h);
}

}  // namespace

void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h) {
    if (p.h1 == kFixedH1)
        hidden_features<kFixedH1>(p, p0, count, a1, taps, h);
    else
        hidden_features<0>(p, p0, count, a1, taps, h);
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
