// The AVX-512 VNNI kernels of the quantized plan (quantized_kernels.hpp, quantized_vnni.hpp). Compiled with AVX-512 VNNI and
// -ffp-contract=off: the f32 rules multiply and add as two roundings, never as one fused multiply-add.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "quantized_kernels.hpp"

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

// GCC 12's plain conversion, min and max intrinsics read an "undefined" vector that -Werror=maybe-uninitialized
// flags: their zero-masked forms with every lane kept (as cc_planes_avx512.cpp does).
constexpr __mmask16 kAllLanes = 0xFFFF;

std::int32_t load_quad(const std::uint8_t* p) {
    std::int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The f32 rules, 16 channels at a time. The range is applied in f32 before the rounding: for integer bounds
// lo <= hi, round(min(max(v, lo), hi)) = min(max(round(v), lo), hi), and no value reaches the conversion's
// out-of-range result. The multiply and the zero point's addition are two roundings (-ffp-contract=off).
class Rounder {
public:
    explicit Rounder(const RowRequantization& rq)
        : to_u8_(rq.to_u8),
          // before rounding: [lo, hi] with the zero point added first, [lo - zp, hi - zp] without
          lo_(_mm512_set1_ps(static_cast<float>(rq.zero_point_first ? rq.dst_min : rq.dst_min - rq.dst_zero_point))),
          hi_(_mm512_set1_ps(static_cast<float>(rq.zero_point_first ? rq.dst_max : rq.dst_max - rq.dst_zero_point))),
          zp_first_(_mm512_set1_ps(rq.zero_point_first ? static_cast<float>(rq.dst_zero_point) : 0.0f)),
          zp_after_(_mm512_set1_epi32(rq.zero_point_first ? 0 : rq.dst_zero_point)) {}

    // 16 accumulators times their M: rounded, in the range, the zero point added (s32 lanes inside u8 or s8)
    __m512i operator()(__m512i acc, __m512 m) const {
        constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;  // ties to even
        __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, acc), m);   // f32(acc) rounded, times f32(M) rounded
        v = _mm512_add_ps(v, zp_first_);                                         // exact when 0
        v = _mm512_maskz_min_ps(kAllLanes, _mm512_maskz_max_ps(kAllLanes, v, lo_), hi_);
        return _mm512_add_epi32(_mm512_maskz_cvt_roundps_epi32(kAllLanes, v, nearest), zp_after_);
    }
    void store16(std::uint8_t* to, __m512i r, __mmask16 mask) const {
        _mm_mask_storeu_epi8(to, mask, _mm512_maskz_cvtepi32_epi8(kAllLanes, r));
    }
    // 64 outputs to bytes in two packing steps (exact: every value is inside the dst type); they leave 128-bit
    // lane L holding elements 4L..4L+3 of each of the four vectors, which the permutation puts back in order
    void store64(std::uint8_t* to, __m512i r0, __m512i r1, __m512i r2, __m512i r3) const {
        const __m512i in_order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        const __m512i s01 = _mm512_maskz_packs_epi32(~__mmask32{0}, r0, r1), s23 = _mm512_maskz_packs_epi32(~__mmask32{0}, r2, r3);
        const __m512i bytes =
            to_u8_ ? _mm512_maskz_packus_epi16(~__mmask64{0}, s01, s23) : _mm512_maskz_packs_epi16(~__mmask64{0}, s01, s23);
        _mm512_storeu_si512(to, _mm512_maskz_permutexvar_epi32(kAllLanes, in_order, bytes));
    }

private:
    bool to_u8_;
    __m512 lo_, hi_, zp_first_;
    __m512i zp_after_;
};

// the lanes of block j that are channels, of `channels` from the first block's first
__mmask16 lanes(i64 channels, int j) {
    const i64 n = std::clamp<i64>(channels - 16 * j, 0, 16);
    return static_cast<__mmask16>((1u << n) - 1);
}

// W output pixels from pixel p0 of the row x B blocks of 16 output channels, in registers: for each tap and each
// quad of input channels, B weight vectors (16 channels x 4 s8) and, per pixel, its 4 src bytes broadcast.
template <int B, int W>
void dense_tile(const DenseRow& r, i64 p0) {
    __m512i acc[W][B];
    for (int j = 0; j < B; ++j) {
        const __m512i c = _mm512_loadu_si512(r.compensation + 16 * j);
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) acc[p][j] = c;
    }
    const std::uint8_t* base = r.src + p0 * r.pixel_step;
    for (i64 t = 0; t < r.taps; ++t) {
        const std::uint8_t* s = base + r.tap_offset[t];
        const std::int8_t* w = r.weights + t * r.quads * 64;
        for (i64 k = 0; k < r.quads; ++k) {
            __m512i wv[B];
#pragma GCC unroll 4
            for (int j = 0; j < B; ++j) wv[j] = _mm512_loadu_si512(w + j * r.block_stride + k * 64);
#pragma GCC unroll 16
            for (int p = 0; p < W; ++p) {
                const __m512i x = _mm512_set1_epi32(load_quad(s + p * r.pixel_step + 4 * k));
#pragma GCC unroll 4
                for (int j = 0; j < B; ++j) acc[p][j] = _mm512_dpbusd_epi32(acc[p][j], x, wv[j]);
            }
        }
    }
    if (r.rule) {  // requantized here, from the registers
        const Rounder round(*r.rule);
        __m512 m[B];
        __mmask16 mask[B];
        for (int j = 0; j < B; ++j) mask[j] = lanes(r.channels, j), m[j] = _mm512_maskz_loadu_ps(mask[j], r.multiplier + 16 * j);
        const bool whole = B == 4 && r.channels >= 64;
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) {
            std::uint8_t* to = r.dst_of[p0 + p];
            if (to == nullptr) continue;
            if constexpr (B == 4) {
                if (whole) {
                    round.store64(to, round(acc[p][0], m[0]), round(acc[p][1], m[1]), round(acc[p][2], m[2]), round(acc[p][3], m[3]));
                    continue;
                }
            }
#pragma GCC unroll 4
            for (int j = 0; j < B; ++j)
                if (mask[j]) round.store16(to + 16 * j, round(acc[p][j], m[j]), mask[j]);
        }
        return;
    }
    std::int32_t* out = r.acc + p0 * B * 16;
#pragma GCC unroll 16
    for (int p = 0; p < W; ++p)
#pragma GCC unroll 4
        for (int j = 0; j < B; ++j) _mm512_storeu_si512(out + (p * B + j) * 16, acc[p][j]);
}

// The widest tile per block count (B x W accumulators, B weight vectors and a broadcast within 32 registers).
constexpr int kWidest[5] = {0, 12, 12, 8, 6};

using DenseTile = void (*)(const DenseRow&, i64);
template <int B, int... W>
constexpr std::array<DenseTile, sizeof...(W)> dense_tiles(std::integer_sequence<int, W...>) {
    return {&dense_tile<B, W + 1>...};
}
template <int B>
void dense_row_of(const DenseRow& r) {
    static constexpr auto tiles = dense_tiles<B>(std::make_integer_sequence<int, kWidest[B]>{});
    i64 p = 0;
    for (; p + kWidest[B] <= r.width; p += kWidest[B]) tiles[kWidest[B] - 1](r, p);
    if (p < r.width) tiles[static_cast<std::size_t>(r.width - p - 1)](r, p);
}

// W output pixels x every block of 16 channels: per tap, the zero-extended src bytes (an s16 pair x, 0 per lane)
// times the widened weight (w, sign), VPDPWSSD: x * w + 0.
template <int W>
void depthwise_tile(const DepthwiseRow& r, i64 p0) {
    const std::uint8_t* base = r.src + p0 * r.pixel_step;
    for (i64 b = 0; b < r.blocks; ++b) {
        __m512i acc[W];
        const __m512i c = _mm512_loadu_si512(r.compensation + 16 * b);
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) acc[p] = c;
        for (i64 t = 0; t < r.taps; ++t) {
            const __m512i w = _mm512_loadu_si512(r.weights + (b * r.taps + t) * 16);
            const std::uint8_t* s = base + r.tap_offset[t] + 16 * b;
#pragma GCC unroll 16
            for (int p = 0; p < W; ++p) {
                const __m512i x = _mm512_maskz_cvtepu8_epi32(kAllLanes, _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + p * r.pixel_step)));
                acc[p] = _mm512_dpwssd_epi32(acc[p], x, w);
            }
        }
        if (r.rule) {  // requantized here, from the registers
            const Rounder round(*r.rule);
            const __mmask16 mask = lanes(r.channels - 16 * b, 0);
            const __m512 m = _mm512_maskz_loadu_ps(mask, r.multiplier + 16 * b);
#pragma GCC unroll 16
            for (int p = 0; p < W; ++p) round.store16(r.dst + (p0 + p) * r.dst_pitch + 16 * b, round(acc[p], m), mask);
            continue;
        }
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) _mm512_storeu_si512(r.acc + ((p0 + p) * r.blocks + b) * 16, acc[p]);
    }
}

constexpr int kDepthwiseWidest = 8;
using DepthwiseTile = void (*)(const DepthwiseRow&, i64);
template <int... W>
constexpr std::array<DepthwiseTile, sizeof...(W)> depthwise_tiles(std::integer_sequence<int, W...>) {
    return {&depthwise_tile<W + 1>...};
}

}  // namespace

void dense_row_avx512_vnni(const DenseRow& r) {
    switch (r.blocks) {
        case 1: dense_row_of<1>(r); break;
        case 2: dense_row_of<2>(r); break;
        case 3: dense_row_of<3>(r); break;
        default: dense_row_of<4>(r); break;
    }
}

void depthwise_row_avx512_vnni(const DepthwiseRow& r) {
    static constexpr auto tiles = depthwise_tiles(std::make_integer_sequence<int, kDepthwiseWidest>{});
    i64 p = 0;
    for (; p + kDepthwiseWidest <= r.width; p += kDepthwiseWidest) tiles[kDepthwiseWidest - 1](r, p);
    if (p < r.width) tiles[static_cast<std::size_t>(r.width - p - 1)](r, p);
}

// A row of accumulators under an f32 rule (Rounder), pixel by pixel: each pixel's channels are one run of dst
// bytes, written whole before the next.
void requantize_row_avx512(const std::int32_t* acc, i64 acc_pitch, i64 width, i64 channels, const float* multiplier,
                           const RowRequantization& rq, std::uint8_t* dst, i64 dst_pitch) {
    const Rounder round(rq);
    const auto at = [&](const std::int32_t* a, const float* m, __mmask16 mask) {
        return round(_mm512_maskz_loadu_epi32(mask, a), _mm512_maskz_loadu_ps(mask, m));
    };
    const i64 whole = channels / 64 * 64, full = channels / 16 * 16;
    const auto rest = static_cast<__mmask16>((1u << (channels - full)) - 1);
    for (i64 p = 0; p < width; ++p) {
        const std::int32_t* a = acc + p * acc_pitch;
        std::uint8_t* to = dst + p * dst_pitch;
        for (i64 c = 0; c < whole; c += 64)
            round.store64(to + c, at(a + c, multiplier + c, kAllLanes), at(a + c + 16, multiplier + c + 16, kAllLanes),
                          at(a + c + 32, multiplier + c + 32, kAllLanes), at(a + c + 48, multiplier + c + 48, kAllLanes));
        for (i64 c = whole; c < full; c += 16) round.store16(to + c, at(a + c, multiplier + c, kAllLanes), kAllLanes);
        if (rest) round.store16(to + full, at(a + full, multiplier + full, rest), rest);
    }
}

}  // namespace convcheck::optimized::detail
