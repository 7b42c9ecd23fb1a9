// The CC chunked method's moves between channel planes and channels last (cc_factored_kernels.hpp) for
// AVX-512: 16 x 16 transposes, the partial blocks (channels or pixels short of 16) through masked loads and
// stores, so a chunk of 14 pixels takes no scalar path. Compiled with -mavx512f -mavx512bw -mavx512vl
// -mfma; called only when the CPU has AVX-512 (cpu_has_avx512). A move, and the bias one addition: the same
// bits as the AVX2 build (cc_factored_avx2.cpp).
#include <immintrin.h>

#include "cc_factored_kernels.hpp"

namespace convcheck::optimized::detail::avx512 {
namespace {

// r[k] = row k of a 16 x 16 block -> r[k] = column k: within 128-bit lanes (unpack, shuffle), then the lanes.
// (The unpacks and lane shuffles in their zero-masked form, all lanes kept: GCC 12's plain intrinsics read an
// "undefined" vector that -Werror=maybe-uninitialized flags.)
inline void transpose16(__m512* r) {
    constexpr __mmask16 all = 0xFFFF;
    __m512 t[16];
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_maskz_unpacklo_ps(all, r[k], r[k + 1]);
        t[k + 1] = _mm512_maskz_unpackhi_ps(all, r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {  // r[k + j], lane L: column 4L + j, rows k .. k + 3
        r[k] = _mm512_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm512_shuffle_ps(t[k], t[k + 2], 0xEE);
        r[k + 2] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int h = 0; h < 16; h += 8)  // t[h + j] (j < 4): columns j and 8 + j; t[h + 4 + j]: 4 + j and 12 + j
        for (int j = 0; j < 4; ++j) {
            t[h + j] = _mm512_maskz_shuffle_f32x4(all, r[h + j], r[h + 4 + j], 0x88);
            t[h + 4 + j] = _mm512_maskz_shuffle_f32x4(all, r[h + j], r[h + 4 + j], 0xDD);
        }
    for (int j = 0; j < 8; ++j) {  // columns j and 8 + j: of t[j] (rows 0 .. 7) and t[8 + j] (rows 8 .. 15)
        r[j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[8 + j], 0x88);
        r[j + 8] = _mm512_maskz_shuffle_f32x4(all, t[j], t[8 + j], 0xDD);
    }
}

inline __mmask16 lanes(i64 n) { return static_cast<__mmask16>((1u << n) - 1u); }  // n in [0, 16]

}  // namespace

void cc_pack_planes(const float* src, i64 channels, i64 width, i64 plane, float* dst) {
    // 16 planes at a time over the whole row: each load takes 16 floats, a whole line where the row is
    // aligned, so the 16 planes (4 KiB multiples apart, the same L1 set) need no line twice
    for (i64 c0 = 0; c0 < channels; c0 += 16) {
        const i64 nc = channels - c0 < 16 ? channels - c0 : 16;
        const __mmask16 cmask = lanes(nc);
        for (i64 x0 = 0; x0 < width; x0 += 16) {
            const i64 nx = width - x0 < 16 ? width - x0 : 16;
            const __mmask16 xmask = lanes(nx);
            __m512 r[16];
            for (int k = 0; k < 16; ++k)
                r[k] = k < nc ? _mm512_maskz_loadu_ps(xmask, src + (c0 + k) * plane + x0) : _mm512_setzero_ps();
            transpose16(r);
            for (int k = 0; k < nx; ++k) _mm512_mask_storeu_ps(dst + (x0 + k) * channels + c0, cmask, r[k]);
        }
    }
}

namespace {

// cc_store_planes (ADD false) and cc_add_planes (ADD true, no bias): 16 planes at a time over all the pixels
template <bool ADD>
void store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane) {
    for (i64 c0 = 0; c0 < channels; c0 += 16) {
        const i64 nc = channels - c0 < 16 ? channels - c0 : 16;
        const __mmask16 cmask = lanes(nc);
        for (i64 i0 = 0; i0 < count; i0 += 16) {
            const i64 ni = count - i0 < 16 ? count - i0 : 16;
            const __mmask16 imask = lanes(ni);
            __m512 r[16];
            for (int k = 0; k < 16; ++k)
                r[k] = k < ni ? _mm512_maskz_loadu_ps(cmask, y + (i0 + k) * channels + c0) : _mm512_setzero_ps();
            transpose16(r);
            for (int k = 0; k < nc; ++k) {
                float* to = dst + (c0 + k) * plane + i0;
                if (bias) r[k] = _mm512_add_ps(r[k], _mm512_set1_ps(bias[c0 + k]));
                if (ADD) r[k] = _mm512_add_ps(_mm512_maskz_loadu_ps(imask, to), r[k]);
                _mm512_mask_storeu_ps(to, imask, r[k]);
            }
        }
    }
}

}  // namespace

void cc_store_planes(const float* y, i64 count, i64 channels, const float* bias, float* dst, i64 plane) {
    store_planes<false>(y, count, channels, bias, dst, plane);
}

void cc_add_planes(const float* y, i64 count, i64 channels, float* dst, i64 plane) {
    store_planes<true>(y, count, channels, nullptr, dst, plane);
}

}  // namespace convcheck::optimized::detail::avx512
