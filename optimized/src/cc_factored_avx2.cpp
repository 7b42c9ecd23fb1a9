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

// h = LeakyReLU(b2 + sum_j a1[j] W2t[j]) for the feature vectors [v0, v0 + NB).
template <int NB>
void second_layer(const CcHiddenProblem& p, const float* a1, i64 v0, float* h) {
    __m256 acc[NB];
    for (int b = 0; b < NB; ++b) acc[b] = _mm256_loadu_ps(p.b2 + (v0 + b) * 8);
    const float* w = p.w2t + v0 * 8;
    for (i64 j = 0; j < p.h1; ++j, w += p.h2p) {
        const __m256 a = _mm256_broadcast_ss(a1 + j);
        for (int b = 0; b < NB; ++b) acc[b] = _mm256_fmadd_ps(a, _mm256_loadu_ps(w + b * 8), acc[b]);
    }
    const __m256 slope = _mm256_set1_ps(p.slope_f32);
    for (int b = 0; b < NB; ++b) _mm256_storeu_ps(h + (v0 + b) * 8, leaky(acc[b], slope));
}

// Input channels [c0, c0 + CB), feature vectors [v0, v0 + NB) of one pixel; with_sum: S as well.
template <int NB, int CB>
void contract_block(const CcContractProblem& p, const float* src, const float* h, i64 fy, i64 fx, TapRange ry,
                    TapRange rx, i64 c0, i64 v0, bool with_sum, float* z) {
    const i64 plane = p.in_h * p.in_w;
    __m256 acc[CB][NB];
    float sum[CB];
    for (int c = 0; c < CB; ++c) {
        sum[c] = 0.0f;
        for (int b = 0; b < NB; ++b) acc[c][b] = _mm256_setzero_ps();
    }
    const float* base = src + c0 * plane;
    for (i64 y = ry.lo; y < ry.hi; ++y)
        for (i64 x = rx.lo; x < rx.hi; ++x) {
            const float* hv = h + (y * p.kw + x) * p.h2p + v0 * 8;
            const float* n = base + (fy + y) * p.in_w + fx + x;
            __m256 hb[NB];
            for (int b = 0; b < NB; ++b) hb[b] = _mm256_loadu_ps(hv + b * 8);
            for (int c = 0; c < CB; ++c) {
                const __m256 v = _mm256_broadcast_ss(n + c * plane);
                for (int b = 0; b < NB; ++b) acc[c][b] = _mm256_fmadd_ps(v, hb[b], acc[c][b]);
                if (with_sum) sum[c] += n[c * plane];
            }
        }
    for (int c = 0; c < CB; ++c) {
        for (int b = 0; b < NB; ++b) _mm256_storeu_ps(z + (c0 + c) * p.h2p + (v0 + b) * 8, acc[c][b]);
        if (with_sum) z[p.in_channels * p.h2p + c0 + c] = sum[c];
    }
}

using ContractFn = void (*)(const CcContractProblem&, const float*, const float*, i64, i64, TapRange, TapRange, i64,
                            i64, bool, float*);

template <int NB>
ContractFn contract_for(i64 cb) {
    switch (cb) {
    case 1: return &contract_block<NB, 1>;
    case 2: return &contract_block<NB, 2>;
    case 3: return &contract_block<NB, 3>;
    default: return &contract_block<NB, 4>;
    }
}

}  // namespace

void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, float* h) {
    const i64 K = p.kh * p.kw, vectors = p.h2p / 8;
    for (i64 i = 0; i < count; ++i) {
        const i64 oy = (p0 + i) / p.out_w, ox = (p0 + i) % p.out_w;
        const TapRange ry = inside(p.first_y[oy], p.kh, p.in_h), rx = inside(p.first_x[ox], p.kw, p.in_w);
        for (i64 y = ry.lo; y < ry.hi; ++y)
            for (i64 x = rx.lo; x < rx.hi; ++x) {
                const double* ay = p.ay + (oy * p.kh + y) * p.h1;
                const double* ax = p.ax + (ox * p.kw + x) * p.h1;
                for (i64 j = 0; j < p.h1; ++j) {
                    const double v = ay[j] + ax[j];
                    a1[j] = static_cast<float>(v >= 0.0 ? v : p.slope * v);
                }
                float* out = h + (i * K + y * p.kw + x) * p.h2p;
                i64 v0 = 0;
                for (; v0 + 2 <= vectors; v0 += 2) second_layer<2>(p, a1, v0, out);
                if (v0 < vectors) second_layer<1>(p, a1, v0, out);
            }
    }
}

void cc_contract(const CcContractProblem& p, const float* src, const float* h, i64 p0, i64 count, float* z) {
    const i64 K = p.kh * p.kw, vectors = p.h2p / 8, depth = p.in_channels * (p.h2p + 1);
    for (i64 i = 0; i < count; ++i) {
        const i64 oy = (p0 + i) / p.out_w, ox = (p0 + i) % p.out_w;
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const TapRange ry = inside(fy, p.kh, p.in_h), rx = inside(fx, p.kw, p.in_w);
        const float* hp = h + i * K * p.h2p;
        float* zp = z + i * depth;
        for (i64 v0 = 0; v0 < vectors; v0 += 2) {
            const bool two = v0 + 2 <= vectors;
            for (i64 c0 = 0; c0 < p.in_channels; c0 += 4) {
                const i64 cb = p.in_channels - c0 < 4 ? p.in_channels - c0 : 4;
                const ContractFn f = two ? contract_for<2>(cb) : contract_for<1>(cb);
                f(p, src, hp, fy, fx, ry, rx, c0, v0, v0 == 0, zp);
            }
        }
    }
}

}  // namespace convcheck::optimized::detail::avx2
