// The CC backward kernels' vocabulary beyond isa_avx2.hpp / isa_avx512.hpp (include it after one of
// them): the mask of a vector's first n lanes, masked loads and stores, a vector added to W doubles,
// per-lane choices by sign, the most rows a register tile broadcasts (12 accumulators on AVX2's 16
// registers, 16 of AVX-512's 32), and the taps inside the input. Internal linkage, as the vocabulary
// it extends.
#pragma once

#include "cc_factored_kernels.hpp"

namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE {
namespace {
// The taps [lo, hi) of one axis whose neighbour first + j lies inside [0, size) (inside(), inlined).
inline TapRange taps_inside(i64 first, i64 support, i64 size) {
    const i64 lo = first < 0 ? -first : 0;
    const i64 hi = first + support > size ? size - first : support;
    return {lo, hi < lo ? lo : hi};
}

// f(i0, size) over [0, n) in groups of at most `most`, of sizes as equal as may be (5 and 6 rather than
// 6 and 2).
template <typename F>
void balanced_groups(i64 n, i64 most, const F& f) {
    const i64 groups = (n + most - 1) / most;
    for (i64 g = 0, i0 = 0; g < groups; ++g) {
        const i64 size = (n - i0) / (groups - g) + ((n - i0) % (groups - g) != 0 ? 1 : 0);
        f(i0, size);
        i0 += size;
    }
}

#ifdef __AVX512F__
using vd = __m512d;  // doubles
constexpr int WD = 8;
inline vd load_d(const double* p) { return _mm512_loadu_pd(p); }
inline void store_d(double* p, vd v) { _mm512_storeu_pd(p, v); }
inline vd broadcast_d(double x) { return _mm512_set1_pd(x); }
inline vd fma_d(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
inline vd add_d(vd a, vd b) { return _mm512_add_pd(a, b); }
inline vd load_f_as_d(const float* p) {  // WD floats (by GCC's vector builtins, as below)
    using floats = float __attribute__((vector_size(32)));
    using doubles = double __attribute__((vector_size(64)));
    floats f;
    __builtin_memcpy(&f, p, sizeof f);
    return vd(__builtin_convertvector(f, doubles));
}
// p[0 .. WD) = v rounded to f32 (by GCC's vector builtins, as add_to_doubles below)
inline void store_d_as_f(float* p, vd v) {
    using floats = float __attribute__((vector_size(32)));
    using doubles = double __attribute__((vector_size(64)));
    _mm256_storeu_ps(p, __m256(__builtin_convertvector(doubles(v), floats)));
}
using vmask = __mmask16;
constexpr int kTileRows = 8;
inline vmask lanes(i64 n) { return static_cast<vmask>((1u << n) - 1u); }  // n in [0, 16]
inline vf load_masked(const float* p, vmask m) { return _mm512_maskz_loadu_ps(m, p); }
// per lane: c > 0 ? a : b, and c >= 0 ? a : b (ordered: a NaN takes b)
inline vf if_above_zero(vf c, vf a, vf b) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(c, zero(), _CMP_GT_OQ), b, a); }
inline vf if_not_below_zero(vf c, vf a, vf b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(c, zero(), _CMP_GE_OQ), b, a);
}
inline void store_masked(float* p, vmask m, vf v) { _mm512_mask_storeu_ps(p, m, v); }
// (by GCC's vector builtins: GCC 12's extract and convert intrinsics read an "undefined" vector that
// -Werror=uninitialized flags)
inline void add_to_doubles(double* q, vf v) {
    using half = float __attribute__((vector_size(32)));
    using doubles = double __attribute__((vector_size(64)));
    const half lo = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
    const half hi = __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    _mm512_storeu_pd(q, _mm512_add_pd(_mm512_loadu_pd(q), __m512d(__builtin_convertvector(lo, doubles))));
    _mm512_storeu_pd(q + 8, _mm512_add_pd(_mm512_loadu_pd(q + 8), __m512d(__builtin_convertvector(hi, doubles))));
}
#else
using vd = __m256d;
constexpr int WD = 4;
inline vd load_d(const double* p) { return _mm256_loadu_pd(p); }
inline void store_d(double* p, vd v) { _mm256_storeu_pd(p, v); }
inline vd broadcast_d(double x) { return _mm256_set1_pd(x); }
inline vd fma_d(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
inline vd add_d(vd a, vd b) { return _mm256_add_pd(a, b); }
inline vd load_f_as_d(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }  // WD floats
inline void store_d_as_f(float* p, vd v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
using vmask = __m256i;
constexpr int kTileRows = 6;
inline vmask lanes(i64 n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline vf load_masked(const float* p, vmask m) { return _mm256_maskload_ps(p, m); }
inline vf if_above_zero(vf c, vf a, vf b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(c, zero(), _CMP_GT_OQ)); }
inline vf if_not_below_zero(vf c, vf a, vf b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(c, zero(), _CMP_GE_OQ)); }
inline void store_masked(float* p, vmask m, vf v) { _mm256_maskstore_ps(p, m, v); }
inline void add_to_doubles(double* q, vf v) {
    _mm256_storeu_pd(q, _mm256_add_pd(_mm256_loadu_pd(q), _mm256_cvtps_pd(_mm256_castps256_ps128(v))));
    _mm256_storeu_pd(q + 4, _mm256_add_pd(_mm256_loadu_pd(q + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))));
}
#endif
}  // namespace
}  // namespace convcheck::optimized::detail::CONVCHECK_ISA_NAMESPACE
