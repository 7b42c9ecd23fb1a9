// The CC Internal-Net path's kernels (cc_factored_kernels.hpp) for AVX2 + FMA. Compiled with -mavx2
// -mfma; called only when the CPU has both: the hidden features (cc_hidden.inl, written once for AVX2 and
// AVX-512) and the moves between channel planes and channels last (8 x 8 transposes).
#include "isa_avx2.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_factored_kernels.hpp"
#include "cc_hidden.inl"

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

}  // namespace

TapRange inside(i64 first, i64 support, i64 size) { return taps_inside(first, support, size); }

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

}  // namespace convcheck::optimized::detail::avx2
