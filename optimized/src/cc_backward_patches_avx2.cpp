// The CC backward's polyphase kernels (cc_backward_kernels.hpp, "patches without a copy") for AVX2 +
// FMA. Compiled with -mavx2 -mfma; called only when the CPU has both. Each tile keeps its accumulators
// in registers: 8 consecutive channels of one tap per vector, up to 6 rows broadcast.
#include <immintrin.h>

#include "cc_backward_kernels.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

inline __m256i lanes(i64 n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// partial rows [r0, r0 + R) (of Cout), columns c (channels [c0, c0 + NB * 8) of tap t; MASK: the last
// vector holds `valid`): sum over the pixels i of dyt[r][i] * src_cl[src_at[t][i] + c], f32 from 0 in
// pixel order (FMA), then added to the double partial.
template <int R, int NB, bool MASK>
void outer_tile(const CcPatchTaps& p, const float* dyt, const float* src_cl, i64 t, i64 r0, i64 c0, i64 valid,
                double* partial) {
    __m256 acc[R * NB];
#pragma GCC unroll 12
    for (int k = 0; k < R * NB; ++k) acc[k] = _mm256_setzero_ps();
    const __m256i mask = lanes(valid);
    const i64* at = p.src_at + t * p.count;
    const float* d = dyt + r0 * p.count;
    for (i64 i = 0; i < p.count; ++i) {
        const float* x = src_cl + at[i] + c0;
        __m256 xv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) xv[b] = MASK && b + 1 == NB ? _mm256_maskload_ps(x + b * 8, mask) : _mm256_loadu_ps(x + b * 8);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256 v = _mm256_broadcast_ss(d + r * p.count + i);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[r * NB + b] = _mm256_fmadd_ps(v, xv[b], acc[r * NB + b]);
        }
    }
    const i64 KC = p.taps * p.channels;
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) {
            double* q = partial + (r0 + r) * KC + t * p.channels + c0 + b * 8;
            if (MASK && b + 1 == NB) {
                alignas(32) float out[8];
                _mm256_store_ps(out, acc[r * NB + b]);
                for (i64 k = 0; k < valid; ++k) q[k] += static_cast<double>(out[k]);
            } else {
                const __m256 a = acc[r * NB + b];
                _mm256_storeu_pd(q, _mm256_add_pd(_mm256_loadu_pd(q), _mm256_cvtps_pd(_mm256_castps256_ps128(a))));
                _mm256_storeu_pd(q + 4, _mm256_add_pd(_mm256_loadu_pd(q + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1))));
            }
        }
}

// pixels [i0, i0 + R), channels [c0, c0 + NB * 8) of tap t: sum over co of dyt[co][i] w[co][t, c] (f32
// from 0 in co order, FMA), added to diff_cl at diff_at[t][i] (pixels in order; none outside the input).
template <int R, int NB, bool MASK>
void times_tile(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl, i64 t, i64 i0, i64 c0,
                i64 valid) {
    __m256 acc[R * NB];
#pragma GCC unroll 12
    for (int k = 0; k < R * NB; ++k) acc[k] = _mm256_setzero_ps();
    const __m256i mask = lanes(valid);
    const i64 KC = p.taps * p.channels;
    const float* wr = w + t * p.channels + c0;
    const float* d = dyt + i0;
    for (i64 k = 0; k < p.rows; ++k, wr += KC, d += p.count) {
        __m256 wv[NB];
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) wv[b] = MASK && b + 1 == NB ? _mm256_maskload_ps(wr + b * 8, mask) : _mm256_loadu_ps(wr + b * 8);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256 v = _mm256_broadcast_ss(d + r);
#pragma GCC unroll 2
            for (int b = 0; b < NB; ++b) acc[r * NB + b] = _mm256_fmadd_ps(v, wv[b], acc[r * NB + b]);
        }
    }
    const i64* at = p.diff_at + t * p.count + i0;
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        if (at[r] < 0) continue;
        float* o = diff_cl + at[r] + c0;
#pragma GCC unroll 2
        for (int b = 0; b < NB; ++b) {
            if (MASK && b + 1 == NB)
                _mm256_maskstore_ps(o + b * 8, mask, _mm256_add_ps(_mm256_maskload_ps(o + b * 8, mask), acc[r * NB + b]));
            else
                _mm256_storeu_ps(o + b * 8, _mm256_add_ps(_mm256_loadu_ps(o + b * 8), acc[r * NB + b]));
        }
    }
}

// f(r0, rows in the group) over [0, n) in groups of at most 6, of sizes as equal as may be (5 and 6
// rather than 6 and 2).
template <typename F>
void balanced_groups(i64 n, const F& f) {
    const i64 groups = (n + 5) / 6;
    for (i64 g = 0, r0 = 0; g < groups; ++g) {
        const i64 r = (n - r0) / (groups - g) + ((n - r0) % (groups - g) != 0 ? 1 : 0);
        f(r0, r);
        r0 += r;
    }
}

// Calls T::template run<R, NB, MASK>(...) with R a template argument from 1 to 6.
template <typename T, int NB, bool MASK, typename... A>
void dispatch_rows(i64 r, A... a) {
    switch (r) {
    case 1: T::template run<1, NB, MASK>(a...); break;
    case 2: T::template run<2, NB, MASK>(a...); break;
    case 3: T::template run<3, NB, MASK>(a...); break;
    case 4: T::template run<4, NB, MASK>(a...); break;
    case 5: T::template run<5, NB, MASK>(a...); break;
    default: T::template run<6, NB, MASK>(a...); break;
    }
}

// Every (tap, block of at most 16 channels) in order, with the block's vector count and valid lanes.
template <typename F>
void for_each_tap_block(const CcPatchTaps& p, const F& f) {
    for (i64 t = 0; t < p.taps; ++t)
        for (i64 c0 = 0; c0 < p.channels; c0 += 16) {
            const i64 rest = p.channels - c0 < 16 ? p.channels - c0 : 16, nb = (rest + 7) / 8;
            f(t, c0, nb, rest - (nb - 1) * 8);
        }
}

struct Outer {
    template <int R, int NB, bool MASK>
    static void run(const CcPatchTaps* p, const float* dyt, const float* src_cl, i64 t, i64 r0, i64 c0, i64 valid,
                    double* partial) {
        outer_tile<R, NB, MASK>(*p, dyt, src_cl, t, r0, c0, valid, partial);
    }
};

struct Times {
    template <int R, int NB, bool MASK>
    static void run(const CcPatchTaps* p, const float* dyt, const float* w, float* diff_cl, i64 t, i64 i0, i64 c0,
                    i64 valid) {
        times_tile<R, NB, MASK>(*p, dyt, w, diff_cl, t, i0, c0, valid);
    }
};

// T::run<R, NB, MASK> with NB and MASK from the block.
template <typename T, typename... A>
void dispatch(i64 r, i64 nb, i64 valid, A... a) {
    const bool mask = valid < 8;
    if (nb == 1)
        mask ? dispatch_rows<T, 1, true>(r, a...) : dispatch_rows<T, 1, false>(r, a...);
    else
        mask ? dispatch_rows<T, 2, true>(r, a...) : dispatch_rows<T, 2, false>(r, a...);
}

}  // namespace

void cc_patch_outer_accumulate(const CcPatchTaps& p, const float* dyt, const float* src_cl, double* partial) {
    // per (tap, 16 channels): the pixels' 16 channels stay in L1 while the row groups pass
    for_each_tap_block(p, [&](i64 t, i64 c0, i64 nb, i64 valid) {
        balanced_groups(p.rows, [&](i64 r0, i64 r) {
            dispatch<Outer>(r, nb, valid, &p, dyt, src_cl, t, r0, c0, valid, partial);
        });
    });
}

void cc_patch_times_scatter(const CcPatchTaps& p, const float* dyt, const float* w, float* diff_cl) {
    // per (tap, 16 channels): the rows x 16 slab of w stays in L1 while the pixel groups pass
    for_each_tap_block(p, [&](i64 t, i64 c0, i64 nb, i64 valid) {
        balanced_groups(p.count, [&](i64 i0, i64 r) {
            dispatch<Times>(r, nb, valid, &p, dyt, w, diff_cl, t, i0, c0, valid);
        });
    });
}

}  // namespace convcheck::optimized::detail::avx2
