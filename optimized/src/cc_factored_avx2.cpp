// The CC Internal-Net path's kernels (cc_factored_kernels.hpp) for AVX2 + FMA. Compiled with -mavx2
// -mfma; called only when the CPU has both. Each vector holds 8 hidden features m; the register tiles
// are <= 2 vectors of features times <= 4 input channels.
#include <immintrin.h>

#include "cc_factored_kernels.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

// The taps [lo, hi) of one axis whose neighbour first + j lies inside [0, size).
struct TapRange {
    i64 lo, hi;
};
TapRange inside(i64 first, i64 support, i64 size) {
    const i64 lo = first < 0 ? -first : 0;
    const i64 hi = first + support > size ? size - first : support;
    return {lo, hi < lo ? lo : hi};
}

__m256 leaky(__m256 v, __m256 slope) {
    const __m256 keep = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ);  // v >= 0 (false for NaN)
    return _mm256_blendv_ps(_mm256_mul_ps(v, slope), v, keep);
}

// h = LeakyReLU(b2 + sum_j a1[j] W2t[j]) for T taps at once (a1: [T][h1], h: [T][h2p], the taps'
// rows `h_step` apart), feature vectors [v0, v0 + NB): T * NB independent FMA chains.
template <int T, int NB>
void second_layer(const CcHiddenProblem& p, const float* a1, i64 v0, float* h, i64 h_step) {
    __m256 acc[T * NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) {
        const __m256 bias = _mm256_loadu_ps(p.b2 + (v0 + b) * 8);
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) acc[t * NB + b] = bias;
    }
    const float* w = p.w2t + v0 * 8;
    const i64 h1 = p.h1, w_step = p.h2p;
    for (i64 j = 0; j < h1; ++j, w += w_step) {
        __m256 wv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) wv[b] = _mm256_loadu_ps(w + b * 8);
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) {
            const __m256 a = _mm256_broadcast_ss(a1 + t * h1 + j);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[t * NB + b] = _mm256_fmadd_ps(a, wv[b], acc[t * NB + b]);
        }
    }
    const __m256 slope = _mm256_set1_ps(p.slope_f32);
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) _mm256_storeu_ps(h + t * h_step + (v0 + b) * 8, leaky(acc[t * NB + b], slope));
}

using SecondLayerFn = void (*)(const CcHiddenProblem&, const float*, i64, float*, i64);

template <int NB>
SecondLayerFn second_layer_for(i64 taps) {
    switch (taps) {
    case 1: return &second_layer<1, NB>;
    case 2: return &second_layer<2, NB>;
    case 3: return &second_layer<3, NB>;
    default: return &second_layer<4, NB>;
    }
}

// a1 = LeakyReLU(ay + ax), in double, rounded once to f32.
void first_layer(const CcHiddenProblem& p, const double* ay, const double* ax, float* a1) {
    const __m256d slope = _mm256_set1_pd(p.slope), zero = _mm256_setzero_pd();
    i64 j = 0;
    for (; j + 4 <= p.h1; j += 4) {
        const __m256d v = _mm256_add_pd(_mm256_loadu_pd(ay + j), _mm256_loadu_pd(ax + j));
        const __m256d a = _mm256_blendv_pd(_mm256_mul_pd(v, slope), v, _mm256_cmp_pd(v, zero, _CMP_GE_OQ));
        _mm_storeu_ps(a1 + j, _mm256_cvtpd_ps(a));
    }
    for (; j < p.h1; ++j) {
        const double v = ay[j] + ax[j];
        a1[j] = static_cast<float>(v >= 0.0 ? v : p.slope * v);
    }
}

// Input channels [c0, c0 + CB), feature vectors [v0, v0 + NB) of pixels p0 .. p0 + count; SUM: S
// as well.
template <int NB, int CB, bool SUM>
void contract_block(const CcContractProblem& p, const float* src, const float* h, i64 p0, i64 count, i64 c0, i64 v0,
                    float* z) {
    const i64 plane = p.in_h * p.in_w, K = p.kh * p.kw, depth = p.in_channels * (p.h2p + 1);
    for (i64 i = 0; i < count; ++i, h += K * p.h2p, z += depth) {
    const i64 oy = (p0 + i) / p.out_w, ox = (p0 + i) % p.out_w;
    const i64 fy = p.first_y[oy], fx = p.first_x[ox];
    const TapRange ry = inside(fy, p.kh, p.in_h), rx = inside(fx, p.kw, p.in_w);
    __m256 acc[CB * NB], sum[CB];  // sum: S in every lane (the broadcasts added up)
#pragma GCC unroll 4
    for (int c = 0; c < CB; ++c) sum[c] = _mm256_setzero_ps();
#pragma GCC unroll 8
    for (int k = 0; k < CB * NB; ++k) acc[k] = _mm256_setzero_ps();
    const float* row = src + c0 * plane + (fy + ry.lo) * p.in_w + fx;
    const float* hrow = h + ry.lo * p.kw * p.h2p + v0 * 8;
    for (i64 y = ry.lo; y < ry.hi; ++y, row += p.in_w, hrow += p.kw * p.h2p)
        for (i64 x = rx.lo; x < rx.hi; ++x) {
            const float* hv = hrow + x * p.h2p;
            const float* n = row + x;
            __m256 hb[NB];
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) hb[b] = _mm256_loadu_ps(hv + b * 8);
#pragma GCC unroll 4
            for (int c = 0; c < CB; ++c) {
                const __m256 v = _mm256_broadcast_ss(n + c * plane);
#pragma GCC unroll 2
                for (int b = 0; b < NB; ++b) acc[c * NB + b] = _mm256_fmadd_ps(v, hb[b], acc[c * NB + b]);
                if constexpr (SUM) sum[c] = _mm256_add_ps(sum[c], v);
            }
        }
#pragma GCC unroll 4
    for (int c = 0; c < CB; ++c) {
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) _mm256_storeu_ps(z + (c0 + c) * p.h2p + (v0 + b) * 8, acc[c * NB + b]);
        if constexpr (SUM) z[p.in_channels * p.h2p + c0 + c] = _mm256_cvtss_f32(sum[c]);
    }
    }
}

using ContractFn = void (*)(const CcContractProblem&, const float*, const float*, i64, i64, i64, i64, float*);

template <int NB, bool SUM>
ContractFn contract_for(i64 cb) {
    switch (cb) {
    case 1: return &contract_block<NB, 1, SUM>;
    case 2: return &contract_block<NB, 2, SUM>;
    case 3: return &contract_block<NB, 3, SUM>;
    default: return &contract_block<NB, 4, SUM>;
    }
}

ContractFn contract_for(i64 nb, i64 cb, bool sum) {
    if (nb == 2) return sum ? contract_for<2, true>(cb) : contract_for<2, false>(cb);
    return sum ? contract_for<1, true>(cb) : contract_for<1, false>(cb);
}

}  // namespace

void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, float* h) {
    const i64 K = p.kh * p.kw, vectors = p.h2p / 8;
    for (i64 i = 0; i < count; ++i) {
        const i64 oy = (p0 + i) / p.out_w, ox = (p0 + i) % p.out_w;
        const TapRange ry = inside(p.first_y[oy], p.kh, p.in_h), rx = inside(p.first_x[ox], p.kw, p.in_w);
        const i64 width = rx.hi - rx.lo;
        for (i64 y = ry.lo; y < ry.hi; ++y) {
            // the taps (y, rx.lo .. rx.hi) are consecutive in h: a1 for all of them, then the second
            // layer for up to 4 at once
            for (i64 x = rx.lo; x < rx.hi; ++x)
                first_layer(p, p.ay + (oy * p.kh + y) * p.h1, p.ax + (ox * p.kw + x) * p.h1, a1 + (x - rx.lo) * p.h1);
            float* out = h + (i * K + y * p.kw + rx.lo) * p.h2p;
            for (i64 x0 = 0; x0 < width; x0 += 4) {
                const i64 taps = width - x0 < 4 ? width - x0 : 4;
                i64 v0 = 0;
                for (; v0 + 2 <= vectors; v0 += 2)
                    second_layer_for<2>(taps)(p, a1 + x0 * p.h1, v0, out + x0 * p.h2p, p.h2p);
                if (v0 < vectors) second_layer_for<1>(taps)(p, a1 + x0 * p.h1, v0, out + x0 * p.h2p, p.h2p);
            }
        }
    }
}

void cc_contract(const CcContractProblem& p, const float* src, const float* h, i64 p0, i64 count, float* z) {
    const i64 vectors = p.h2p / 8;
    // blocks of input channels outermost: the pixels of a block read a few rows of a few channel
    // planes (the planes of all channels at once would meet in the same L1 sets, 4 KiB apart)
    for (i64 c0 = 0; c0 < p.in_channels; c0 += 4) {
        const i64 cb = p.in_channels - c0 < 4 ? p.in_channels - c0 : 4;
        for (i64 v0 = 0; v0 < vectors; v0 += 2)
            contract_for(v0 + 2 <= vectors ? 2 : 1, cb, v0 == 0)(p, src, h, p0, count, c0, v0, z);
    }
}

}  // namespace convcheck::optimized::detail::avx2
