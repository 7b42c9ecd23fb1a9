// The f32 NCX edges with AVX2 (compiled with -mavx2 -mfma; called by conversions.cpp only when the CPU has
// both): 8 channels x 8 pixels at a time, moved by an 8x8 register transpose instead of 64 strided
// scalar loads or stores (the scalar edges took 40% of res3_downsample's NCHW time). Only copies:
// the same floats as the scalar edges, bit for bit.
#include <immintrin.h>

#include "conversions_avx2.hpp"

namespace convcheck::optimized::detail::avx2 {
namespace {

// rows r[0..7] (8 floats each) -> columns: r[j] becomes the j-th float of every output vector
[[gnu::always_inline]] inline void transpose8(__m256* r) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20), r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20), r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31), r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31), r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// 8 x 8 floats: from[j * from_step + i] -> to[i * to_step + j]
[[gnu::always_inline]] inline void move8x8(const float* from, i64 from_step, float* to, i64 to_step) {
    __m256 r[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(from + j * from_step);
    transpose8(r);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) _mm256_storeu_ps(to + i * to_step, r[i]);
}

}  // namespace

// The data of pack_src_ncx_blocks for f32 src, by input rows (n, id, ih) [begin, end) instead of
// channel blocks: a row's xp pixels (C floats each, contiguous) are written while they stay in the
// cache, each 64-byte line by two consecutive transposes (by channel blocks, every line was fetched
// for 64 bytes of a 1 KiB pixel; measured: res3_downsample NCHW 3.34-3.40 -> 2.98-3.14 ms).
i64 pack_src_ncx_row_count(const Geometry& g) { return g.batch * g.in[0] * g.in[1]; }

void pack_src_ncx_rows_f32(const Geometry& g, const float* src, float* xp, i64 begin, i64 end) {
    const i64 C = g.in_channels, Cs = g.channel_stride;
    const i64 D = g.in[0], H = g.in[1], W = g.in[2], plane = D * H * W;
    // the input columns iw whose padded column pw = iw + pad_begin lies in the row
    const i64 iw_begin = -g.pad_begin[2] > 0 ? -g.pad_begin[2] : 0;
    i64 iw_end = g.padded[2] - g.pad_begin[2] < W ? g.padded[2] - g.pad_begin[2] : W;
    if (iw_end < iw_begin) iw_end = iw_begin;
    const i64 vector_channels = C / 8 * 8;
    for (i64 task = begin; task < end; ++task) {
        const i64 ih = task % H, id = (task / H) % D, n = task / (H * D);
        const i64 pd = id + g.pad_begin[0], ph = ih + g.pad_begin[1];
        if (pd < 0 || pd >= g.padded[0] || ph < 0 || ph >= g.padded[1]) continue;
        const float* row_in = src + n * C * plane + (id * H + ih) * W;
        // input column iw goes to padded column iw + pad_begin of this xp row
        float* row_out = xp + ((n * g.padded[0] + pd) * g.padded[1] + ph) * g.padded[2] * Cs;
        const i64 shift = g.pad_begin[2];
        i64 iw = iw_begin;
        for (; iw + 8 <= iw_end; iw += 8)
            for (i64 c = 0; c < vector_channels; c += 8)
                move8x8(row_in + c * plane + iw, plane, row_out + (iw + shift) * Cs + c, Cs);
        for (i64 i = iw_begin; i < iw_end; ++i) {
            float* out = row_out + (i + shift) * Cs;
            for (i64 c = i < iw ? vector_channels : 0; c < C; ++c) out[c] = row_in[c * plane + i];
        }
    }
}

// store_dst_ncx_blocks for f32 dst: the same tasks (n, 16 output channels), the same floats.
void store_dst_ncx_blocks_f32(const Geometry& g, const float* y, float* dst, i64 begin, i64 end) {
    const i64 O = g.out_channels, plane = g.out_pixels();
    for (i64 task = begin; task < end; ++task) {
        const i64 n = task / ((O + 15) / 16), o0 = (task % ((O + 15) / 16)) * 16;
        const i64 o1 = o0 + 16 < O ? o0 + 16 : O;
        const float* in = y + n * plane * O;
        float* out = dst + (n * O + o0) * plane;
        const i64 vector_channels = o0 + (o1 - o0) / 8 * 8;
        i64 p = 0;
        for (; p + 8 <= plane; p += 8)
            for (i64 o = o0; o < vector_channels; o += 8) move8x8(in + p * O + o, O, out + (o - o0) * plane + p, plane);
        for (i64 q = 0; q < plane; ++q)
            for (i64 o = q < p ? vector_channels : o0; o < o1; ++o) out[(o - o0) * plane + q] = in[q * O + o];
    }
}

}  // namespace convcheck::optimized::detail::avx2
