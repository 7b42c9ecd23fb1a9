// The CC Internal-Net path's kernels (cc_factored_kernels.hpp) for AVX2 + FMA. Compiled with -mavx2
// -mfma; called only when the CPU has both. Each vector holds 8 hidden features m; the register tiles
// are <= 2 vectors of features times <= 6 taps (second layer) or <= 6 input channels (contraction).
#include <immintrin.h>

#include "cc_factored_kernels.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

// r[k] = row k of an 8 x 8 block -> r[k] = column k.
inline void transpose8(__m256* r) {
    __m256 t[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
        r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int k = 0; k < 4; ++k) {
        t[k] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
        t[k + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
    }
    for (int k = 0; k < 8; ++k) r[k] = t[k];
}

// inside() (cc_factored_kernels.hpp), inlined into this unit's per-pixel loops (a call there spills them)
inline TapRange inside_inline(i64 first, i64 support, i64 size) {
    const i64 lo = first < 0 ? -first : 0;
    const i64 hi = first + support > size ? size - first : support;
    return {lo, hi < lo ? lo : hi};
}

__m256 leaky(__m256 v, __m256 slope) {
    const __m256 keep = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ);  // v >= 0 (false for NaN)
    return _mm256_blendv_ps(_mm256_mul_ps(v, slope), v, keep);
}

// One rank-1 update of an R x NB register tile: acc[r * NB + b] += x[r * x_step] * w[b * 8 .. b * 8 + 8);
// SUM: sum[r] += x[r * x_step] as well.
template <int R, int NB, bool SUM>
inline __attribute__((always_inline)) void rank1(__m256* acc, __m256* sum, const float* x, i64 x_step, const float* w) {
    __m256 wv[NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) wv[b] = _mm256_loadu_ps(w + b * 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        const __m256 v = _mm256_broadcast_ss(x + r * x_step);
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) acc[r * NB + b] = _mm256_fmadd_ps(v, wv[b], acc[r * NB + b]);
        if constexpr (SUM) sum[r] = _mm256_add_ps(sum[r], v);
    }
}

// h = LeakyReLU(b2 + sum_j a1[j] W2t[j]) for T taps at once (a1: [T][h1]; tap t's features at
// h + tap[t] * h2p), feature vectors [v0, v0 + NB): T * NB independent FMA chains.
template <int T, int NB>
void second_layer(const CcHiddenProblem& p, const float* a1, const i64* tap, i64 v0, float* h) {
    __m256 acc[T * NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) {
        const __m256 bias = _mm256_loadu_ps(p.b2 + (v0 + b) * 8);
#pragma GCC unroll 6
        for (int t = 0; t < T; ++t) acc[t * NB + b] = bias;
    }
    const float* w = p.w2t + v0 * 8;
    const i64 h1 = p.h1, w_step = p.h2p;
    for (i64 j = 0; j < h1; ++j, w += w_step) rank1<T, NB, false>(acc, nullptr, a1 + j, h1, w);
    const __m256 slope = _mm256_set1_ps(p.slope_f32);
#pragma GCC unroll 6
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b)
            _mm256_storeu_ps(h + tap[t] * p.h2p + (v0 + b) * 8, leaky(acc[t * NB + b], slope));
}

using SecondLayerFn = void (*)(const CcHiddenProblem&, const float*, const i64*, i64, float*);

template <int NB>
SecondLayerFn second_layer_for(i64 taps) {
    switch (taps) {
    case 1: return &second_layer<1, NB>;
    case 2: return &second_layer<2, NB>;
    case 3: return &second_layer<3, NB>;
    case 4: return &second_layer<4, NB>;
    case 5: return &second_layer<5, NB>;
    default: return &second_layer<6, NB>;
    }
}

// a1 = LeakyReLU(ay + ax), in f32.
void first_layer(const CcHiddenProblem& p, const float* ay, const float* ax, float* a1) {
    const __m256 slope = _mm256_set1_ps(p.slope_f32);
    i64 j = 0;
    for (; j + 8 <= p.h1; j += 8)
        _mm256_storeu_ps(a1 + j, leaky(_mm256_add_ps(_mm256_loadu_ps(ay + j), _mm256_loadu_ps(ax + j)), slope));
    for (; j < p.h1; ++j) {
        const float v = ay[j] + ax[j];
        a1[j] = v >= 0.0f ? v : p.slope_f32 * v;
    }
}

// Z for input channels [c0, c0 + CB), feature vectors [v0, v0 + NB) of pixels p0 .. p0 + count; SUM:
// S as well, from the same broadcasts (CB <= 4: CB * (NB + 1) accumulators).
template <int NB, int CB, bool SUM>
void contract_block(const CcContractProblem& p, const float* src, const float* h, i64 p0, i64 count, i64 c0, i64 v0,
                    float* z) {
    const i64 plane = p.in_h * p.in_w, K = p.kh * p.kw, depth = p.in_channels * (p.h2p + 1), h2p = p.h2p;
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, h += K * h2p, z += depth, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const i64 fy = p.first_y[oy], fx = p.first_x[ox];
        const TapRange ry = inside_inline(fy, p.kh, p.in_h), rx = inside_inline(fx, p.kw, p.in_w);
        __m256 acc[CB * NB], sum[CB];
#pragma GCC unroll 12
        for (int k = 0; k < CB * NB; ++k) acc[k] = _mm256_setzero_ps();
#pragma GCC unroll 6
        for (int c = 0; c < CB; ++c) sum[c] = _mm256_setzero_ps();
        const float* row = src + c0 * plane + (fy + ry.lo) * p.in_w + fx + rx.lo;
        const float* hrow = h + (ry.lo * p.kw + rx.lo) * h2p + v0 * 8;
        const i64 width = rx.hi - rx.lo;
        for (i64 y = ry.lo; y < ry.hi; ++y, row += p.in_w, hrow += p.kw * h2p) {
            const float* hv = hrow;
            for (i64 x = 0; x < width; ++x, hv += h2p) rank1<CB, NB, SUM>(acc, sum, row + x, plane, hv);
        }
#pragma GCC unroll 6
        for (int c = 0; c < CB; ++c)
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) _mm256_storeu_ps(z + (c0 + c) * h2p + (v0 + b) * 8, acc[c * NB + b]);
        if constexpr (SUM)
#pragma GCC unroll 6
            for (int c = 0; c < CB; ++c) z[p.in_channels * h2p + c0 + c] = _mm256_cvtss_f32(sum[c]);
    }
}

using ContractFn = void (*)(const CcContractProblem&, const float*, const float*, i64, i64, i64, i64, float*);

template <int NB, bool SUM>
ContractFn contract_for(i64 cb) {
    switch (cb) {
    case 1: return &contract_block<NB, 1, SUM>;
    case 2: return &contract_block<NB, 2, SUM>;
    case 3: return &contract_block<NB, 3, SUM>;
    case 4: return &contract_block<NB, 4, SUM>;
    case 5: return SUM ? nullptr : &contract_block<NB, 5, false>;  // with S, at most 4 channels
    default: return SUM ? nullptr : &contract_block<NB, 6, false>;
    }
}

}  // namespace

TapRange inside(i64 first, i64 support, i64 size) { return inside_inline(first, support, size); }

void cc_pack_planes(const float* src, i64 channels, i64 width, i64 plane, float* dst) {
    // 8 planes at a time over the whole row (more planes at once, 4 KiB apart, would share L1 sets)
    const i64 full = width - width % 8;
    i64 c0 = 0;
    for (; c0 + 8 <= channels; c0 += 8)
        for (i64 x0 = 0; x0 < full; x0 += 8) {  // an 8 x 8 transpose
            __m256 r[8];
            for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + (c0 + k) * plane + x0);
            transpose8(r);
            for (int k = 0; k < 8; ++k) _mm256_storeu_ps(dst + (x0 + k) * channels + c0, r[k]);
        }
    for (; c0 < channels; ++c0)
        for (i64 x = 0; x < full; ++x) dst[x * channels + c0] = src[c0 * plane + x];
    for (i64 c = 0; c < channels; ++c)
        for (i64 x = full; x < width; ++x) dst[x * channels + c] = src[c * plane + x];
}

namespace {

// cc_store_planes (ADD false) and cc_add_planes (ADD true, no bias).
template <bool ADD>
void store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane) {
    const auto put = [&](float* to, float v, i64 c) {
        if (bias) v += bias[c];
        *to = ADD ? *to + v : v;
    };
    // 8 planes at a time over all the pixels (more planes at once, 4 KiB apart, would share L1 sets)
    const i64 full = count - count % 8;
    i64 c0 = 0;
    for (; c0 + 8 <= channels; c0 += 8)
        for (i64 i0 = 0; i0 < full; i0 += 8) {  // an 8 x 8 transpose
            __m256 r[8];
            for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(y + (i0 + k) * channels + c0);
            transpose8(r);
            for (int k = 0; k < 8; ++k) {
                if (bias) r[k] = _mm256_add_ps(r[k], _mm256_set1_ps(bias[c0 + k]));
                float* to = dst + (c0 + k) * plane + i0;
                if (ADD) r[k] = _mm256_add_ps(_mm256_loadu_ps(to), r[k]);
                _mm256_storeu_ps(to, r[k]);
            }
        }
    for (; c0 < channels; ++c0)
        for (i64 i = 0; i < full; ++i) put(dst + c0 * plane + i, y[i * channels + c0], c0);
    for (i64 c = 0; c < channels; ++c)
        for (i64 i = full; i < count; ++i) put(dst + c * plane + i, y[i * channels + c], c);
}

}  // namespace

void cc_store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane) {
    store_planes<false>(y, count, channels, bias, dst, plane);
}

void cc_add_planes(const float* y, i64 count, i64 channels, float* dst, i64 plane) {
    store_planes<true>(y, count, channels, nullptr, dst, plane);
}

void cc_hidden_features(const CcHiddenProblem& p, i64 p0, i64 count, float* a1, i64* taps, float* h) {
    const i64 K = p.kh * p.kw, vectors = p.h2p / 8;
    // the second layer for the pairs gathered so far, 6 at once (the last group may be shorter)
    i64 n = 0;
    const auto flush = [&] {
        for (i64 t0 = 0; t0 < n; t0 += 6) {
            const i64 t = n - t0 < 6 ? n - t0 : 6;
            i64 v0 = 0;
            for (; v0 + 2 <= vectors; v0 += 2) second_layer_for<2>(t)(p, a1 + t0 * p.h1, taps + t0, v0, h);
            if (v0 < vectors) second_layer_for<1>(t)(p, a1 + t0 * p.h1, taps + t0, v0, h);
        }
        n = 0;
    };
    i64 oy = p0 / p.out_w, ox = p0 % p.out_w;
    for (i64 i = 0; i < count; ++i, ox = ox + 1 == p.out_w ? (++oy, 0) : ox + 1) {
        const TapRange ry = inside_inline(p.first_y[oy], p.kh, p.in_h), rx = inside_inline(p.first_x[ox], p.kw, p.in_w);
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

void cc_contract(const CcContractProblem& p, const float* src, const float* h, i64 p0, i64 count, float* z) {
    const i64 vectors = p.h2p / 8;
    // blocks of input channels outermost: the pixels of a block read a few rows of a few channel
    // planes (the planes of all channels at once would meet in the same L1 sets, 4 KiB apart). The
    // first feature vectors also give S, in blocks of <= 4 channels; the others in blocks of <= 6. The
    // blocks as even as they can be (32 channels: 8 x 4, or 6, 6, 5, 5, 5, 5).
    for (i64 v0 = 0; v0 < vectors; v0 += 2) {
        const bool sum = v0 == 0, two = v0 + 2 <= vectors;
        const i64 most = sum ? 4 : 6, blocks = (p.in_channels + most - 1) / most;
        for (i64 b = 0, c0 = 0; b < blocks; ++b) {
            const i64 cb = (p.in_channels - c0 + (blocks - b) - 1) / (blocks - b);
            const ContractFn f = sum ? (two ? contract_for<2, true>(cb) : contract_for<1, true>(cb))
                                     : (two ? contract_for<2, false>(cb) : contract_for<1, false>(cb));
            f(p, src, h, p0, count, c0, v0, z);
            c0 += cb;
        }
    }
}

}  // namespace convcheck::optimized::detail::avx2
