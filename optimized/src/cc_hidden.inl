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

// h = LeakyReLU(b2 + sum_j a1[j] W2t[j]) for T taps at once (a1: [T][h1]; tap t's features at
// h + tap[t] * h2p), feature vectors [v0, v0 + NB): T * NB independent FMA chains.
template <int T, int NB>
void second_layer(const CcHiddenProblem& p, const float* a1, const i64* tap, i64 v0, float* h) {
    vf acc[T * NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) {
        const vf bias = load(p.b2 + (v0 + b) * W);
#pragma GCC unroll 12
        for (int t = 0; t < T; ++t) acc[t * NB + b] = bias;
    }
    const float* w = p.w2t + v0 * W;
    const i64 h1 = p.h1, w_step = p.h2p;
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
#pragma GCC unroll 12
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) store(h + tap[t] * p.h2p + (v0 + b) * W, leaky(acc[t * NB + b], slope));
}

// second_layer<t, NB> for t taps (1 <= t <= kTaps).
template <int NB, int T = 1>
void second_layer_taps(i64 t, const CcHiddenProblem& p, const float* a1, const i64* tap, i64 v0, float* h) {
    if constexpr (T < kTaps)
        if (t > T) return second_layer_taps<NB, T + 1>(t, p, a1, tap, v0, h);
    second_layer<T, NB>(p, a1, tap, v0, h);
}

// a1 = LeakyReLU(ay + ax), in f32.
void first_layer(const CcHiddenProblem& p, const float* ay, const float* ax, float* a1) {
    const vf slope = broadcast(&p.slope_f32);
    i64 j = 0;
    for (; j + W <= p.h1; j += W) store(a1 + j, leaky(load(ay + j) + load(ax + j), slope));
    for (; j < p.h1; ++j) {
        const float v = ay[j] + ax[j];
        a1[j] = v >= 0.0f ? v : p.slope_f32 * v;
    }
}

}  // namespace

void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h) {
    const i64 K = p.kh * p.kw, vectors = p.h2p / W;
    // the second layer for the pairs gathered so far, kTaps at once (the last group may be shorter)
    i64 n = 0;
    const auto flush = [&] {
        for (i64 t0 = 0; t0 < n; t0 += kTaps) {
            const i64 t = n - t0 < kTaps ? n - t0 : kTaps;
            i64 v0 = 0;
            for (; v0 + 2 <= vectors; v0 += 2) second_layer_taps<2>(t, p, a1 + t0 * p.h1, taps + t0, v0, h);
            if (v0 < vectors) second_layer_taps<1>(t, p, a1 + t0 * p.h1, taps + t0, v0, h);
        }
        n = 0;
    };
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const TapRange ry = taps_inside(p.first_y[oy], p.kh, p.in_h), rx = taps_inside(p.first_x[ox], p.kw, p.in_w);
        // the taps inside the input: their first layer, gathered across pixels
        for (i64 y = ry.lo; y < ry.hi; ++y)
            for (i64 x = rx.lo; x < rx.hi; ++x) {
                first_layer(p, p.ay + (oy * p.kh + y) * p.h1, p.ax + (ox * p.kw + x) * p.h1, a1 + n * p.h1);
                taps[n++] = i * K + y * p.kw + x;
                if (n == kHiddenPairs) flush();
            }
    }
    flush();
}

}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
