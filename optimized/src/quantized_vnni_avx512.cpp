// The AVX-512 VNNI kernels of the quantized plan (quantized_kernels.hpp, quantized_vnni.hpp). Compiled with AVX-512 VNNI and
// -ffp-contract=off: the f32 rules multiply and add as two roundings, never as one fused multiply-add.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
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
          zp_after_(_mm512_set1_epi32(rq.zero_point_first ? 0 : rq.dst_zero_point)),
          lean_(rq.dst_zero_point == 0 && rq.dst_min == (rq.to_u8 ? 0 : -128)),
          bare_(lean_ && rq.dst_max == (rq.to_u8 ? 255 : 127) && rq.products_inside_s32) {}

    // 16 accumulators times their M: rounded, in the range, the zero point added (s32 lanes inside u8 or s8)
    __m512i operator()(__m512i acc, __m512 m) const {
        constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;  // ties to even
        __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, acc), m);   // f32(acc) rounded, times f32(M) rounded
        v = _mm512_add_ps(v, zp_first_);                                         // exact when 0
        v = _mm512_maskz_min_ps(kAllLanes, _mm512_maskz_max_ps(kAllLanes, v, lo_), hi_);
        return _mm512_add_epi32(_mm512_maskz_cvt_roundps_epi32(kAllLanes, v, nearest), zp_after_);
    }
    // Where the dst zero point is 0 and dst_min the type's lowest (lean()), for pack64 and store64 only: no zero point to add,
    // and no lower clamp, as pack64's saturation clamps there (a value below the range, or one the conversion
    // cannot hold, which it turns into INT_MIN, packs to the type's lowest); the upper clamp stays.
    bool lean() const { return lean_; }
    __m512i round_lean(__m512i acc, __m512 m) const {
        constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        const __m512 v = _mm512_maskz_min_ps(kAllLanes, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, acc), m), hi_);
        return _mm512_maskz_cvt_roundps_epi32(kAllLanes, v, nearest);
    }
    // Lean, the range the whole type and every product inside s32 (RowRequantization::products_inside_s32): the
    // conversion holds every product, and the packs' saturation is the upper clamp too
    bool bare() const { return bare_; }
    __m512i round_bare(__m512i acc, __m512 m) const {
        constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        return _mm512_maskz_cvt_roundps_epi32(kAllLanes, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, acc), m), nearest);
    }
    void store16(std::uint8_t* to, __m512i r, __mmask16 mask) const {
        _mm_mask_storeu_epi8(to, mask, _mm512_maskz_cvtepi32_epi8(kAllLanes, r));
    }
    // 64 outputs to bytes in two packing steps (exact: every value is inside the dst type); they leave 128-bit
    // lane L holding elements 4L..4L+3 of each of the four vectors, which the permutation puts back in order
    void store64(std::uint8_t* to, __m512i r0, __m512i r1, __m512i r2, __m512i r3) const {
        _mm512_storeu_si512(to, bytes64(r0, r1, r2, r3));
    }
    __m512i bytes64(__m512i r0, __m512i r1, __m512i r2, __m512i r3) const {
        const __m512i in_order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        return _mm512_maskz_permutexvar_epi32(kAllLanes, in_order, pack64(r0, r1, r2, r3));
    }

    // 64 outputs in lane order (DepthwiseExpansion) to bytes: the two packing steps alone put channel c at byte c
    __m512i pack64(__m512i r0, __m512i r1, __m512i r2, __m512i r3) const {
        const __m512i s01 = _mm512_maskz_packs_epi32(~__mmask32{0}, r0, r1), s23 = _mm512_maskz_packs_epi32(~__mmask32{0}, r2, r3);
        return to_u8_ ? _mm512_maskz_packus_epi16(~__mmask64{0}, s01, s23) : _mm512_maskz_packs_epi16(~__mmask64{0}, s01, s23);
    }

private:
    bool to_u8_;
    __m512 lo_, hi_, zp_first_;
    __m512i zp_after_;
    bool lean_, bare_;
};

// the lanes of block j that are channels, of `channels` from the first block's first
__mmask16 lanes(i64 channels, int j) {
    const i64 n = std::clamp<i64>(channels - 16 * j, 0, 16);
    return static_cast<__mmask16>((1u << n) - 1);
}

// W output pixels from pixel p0 of the run x B blocks of 16 output channels, in registers: for each tap and each
// quad of input channels, B weight vectors (16 channels x 4 s8) and, per pixel, its 4 src bytes broadcast. Offsets:
// each pixel's window through its offset (anywhere in the plane); else pixel_step apart (one pointer and a step: W
// pointers cost 1x1 layers of few channels 10-20 %, pw144_24_56 0.049 ms against 0.059, the 12 pointers of a 2 x 12
// tile spilling).
template <int B, int W, bool Offsets>
void dense_tile(const DenseRow& r, i64 p0) {
    __m512i acc[W][B];
#pragma GCC unroll 4
    for (int j = 0; j < B; ++j) {
        const __m512i c = _mm512_loadu_si512(r.compensation + 16 * j);
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) acc[p][j] = c;
    }
    // each window's origin in bytes from r.src, added to a tap's offset before the pointer is formed: a border
    // window's origin may lie outside the src (step classes on a src read in place), its taps inside
    i64 window[W];
    if constexpr (Offsets) {
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) window[p] = r.pixel_offset[p0 + p];
    }
    const std::uint8_t* const base = r.src + p0 * r.pixel_step;
    for (i64 t = 0; t < r.taps; ++t) {
        const i64 step = r.step_index ? r.step_index[t] : t;
        const i64 tap = r.tap_offset[step];
        const std::int8_t* w = r.weights + step * r.quads * 64;
        for (i64 k = 0; k < r.quads; ++k) {
            __m512i wv[B];
#pragma GCC unroll 4
            for (int j = 0; j < B; ++j) wv[j] = _mm512_loadu_si512(w + j * r.block_stride + k * 64);
#pragma GCC unroll 16
            for (int p = 0; p < W; ++p) {
                const std::uint8_t* at = Offsets ? r.src + (window[p] + tap) : base + tap + p * r.pixel_step;
                const __m512i x = _mm512_set1_epi32(load_quad(at + 4 * k));
#pragma GCC unroll 4
                for (int j = 0; j < B; ++j) acc[p][j] = _mm512_dpbusd_epi32(acc[p][j], x, wv[j]);
            }
        }
    }
    if (r.rule) {  // requantized here, from the registers
        const Rounder round(*r.rule);
        // never null since every pixel of a row is an output; the stores below still test it: without the tests GCC
        // spilled 4 accumulators around the requantization (res2_1x1_256 b8, 1 thread: 1.00-1.03 -> 1.07-1.08 ms)
        const auto dst_at = [&](i64 p) { return r.dst_of ? r.dst_of[p] : r.dst + p * r.dst_pitch; };
        __m512 m[B];
        __mmask16 mask[B];
#pragma GCC unroll 4
        for (int j = 0; j < B; ++j) mask[j] = lanes(r.channels, j), m[j] = _mm512_maskz_loadu_ps(mask[j], r.multiplier + 16 * j);
        const bool whole = B == 4 && r.channels >= 64;
        if constexpr (B == 2) {
            if (r.channels == 32) {  // two pixels' 32 outputs through one packing (as requantize_row_avx512)
                const auto rounded = [&](__m512i a, __m512 m) { return round.lean() ? round.round_lean(a, m) : round(a, m); };
#pragma GCC unroll 8
                for (int p = 0; p < W; p += 2) {
                    const int q = p + 1 < W ? p + 1 : p;  // an odd tile's last pixel packed twice
                    const __m512i bytes = round.bytes64(rounded(acc[p][0], m[0]), rounded(acc[p][1], m[1]),
                                                        rounded(acc[q][0], m[0]), rounded(acc[q][1], m[1]));
                    if (std::uint8_t* to = dst_at(p0 + p))
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 0));
                    if (std::uint8_t* to = q != p ? dst_at(p0 + q) : nullptr)
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 1));
                }
                return;
            }
        }
        if constexpr (B == 4) {
            // store64 packs with saturation: the lean rounding (Rounder::lean), or no clamp at all (Rounder::bare)
            const auto store_each = [&](auto rounded) {
#pragma GCC unroll 16
                for (int p = 0; p < W; ++p)
                    if (std::uint8_t* to = dst_at(p0 + p))
                        round.store64(to, rounded(acc[p][0], m[0]), rounded(acc[p][1], m[1]), rounded(acc[p][2], m[2]),
                                      rounded(acc[p][3], m[3]));
            };
            if (whole && round.bare()) return store_each([&](__m512i a, __m512 f) { return round.round_bare(a, f); });
            if (whole && round.lean()) return store_each([&](__m512i a, __m512 f) { return round.round_lean(a, f); });
        }
#pragma GCC unroll 16
        for (int p = 0; p < W; ++p) {
            std::uint8_t* to = dst_at(p0 + p);
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
template <int B, bool Offsets, int... W>
constexpr std::array<DenseTile, sizeof...(W)> dense_tiles(std::integer_sequence<int, W...>) {
    return {&dense_tile<B, W + 1, Offsets>...};
}
template <int B>
void dense_row_of(const DenseRow& r) {
    static constexpr auto by_offset = dense_tiles<B, true>(std::make_integer_sequence<int, kWidest[B]>{});
    static constexpr auto by_step = dense_tiles<B, false>(std::make_integer_sequence<int, kWidest[B]>{});
    const auto& tiles = r.pixel_offset ? by_offset : by_step;
    i64 p = 0;
    for (; p + kWidest[B] <= r.width; p += kWidest[B]) tiles[kWidest[B] - 1](r, p);
    if (p < r.width) tiles[static_cast<std::size_t>(r.width - p - 1)](r, p);
}

// W vectors of output pixels (from vector v0) x one unit of channels (DepthwiseRow): per kernel row and group of 4
// taps, the expanded src's dword per channel (4 u8 taps) times the weights' (4 s8), VPDPBUSD, read from memory;
// the 4 vectors' outputs leave in lane order through packs and packus, each pixel's channels one masked store.
template <int W, bool Lean>
void depthwise_tile(const DepthwiseRow& r, i64 v0) {
    __m512i acc[W][4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        const __m512i c = _mm512_loadu_si512(r.compensation + 16 * k);
#pragma GCC unroll 16
        for (int v = 0; v < W; ++v) acc[v][k] = c;
    }
    const i64 k_bytes = r.width_padded * 64 / r.pixels;  // between vectors k of a group
    const std::int8_t* w = r.weights;
    for (i64 kr = 0; kr < r.kernel_rows; ++kr) {
        const std::uint8_t* row = r.rows[kr] + v0 * 64;
        for (i64 g = 0; g < r.groups; ++g, w += 256, row += 4 * k_bytes) {
            __m512i wv[4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) wv[k] = _mm512_loadu_si512(w + 64 * k);
#pragma GCC unroll 16
            for (int v = 0; v < W; ++v)
#pragma GCC unroll 4
                for (int k = 0; k < 4; ++k) acc[v][k] = _mm512_dpbusd_epi32(acc[v][k], _mm512_loadu_si512(row + k * k_bytes + 64 * v), wv[k]);
        }
    }
    if (r.rule) {  // requantized here, from the registers
        const Rounder round(*r.rule);
        __m512 m[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) m[k] = _mm512_loadu_ps(r.multiplier + 16 * k);
        const __mmask64 mask = r.channels == 64 ? ~__mmask64{0} : (__mmask64{1} << r.channels) - 1;
#pragma GCC unroll 16
        for (int v = 0; v < W; ++v) {
            __m512i out[4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) out[k] = Lean ? round.round_lean(acc[v][k], m[k]) : round(acc[v][k], m[k]);
            const __m512i bytes = round.pack64(out[0], out[1], out[2], out[3]);
            const i64 p = (v0 + v) * r.pixels;
            std::uint8_t* to = r.dst + p * r.dst_pitch;
            if (r.pixels == 1) {
                _mm512_mask_storeu_epi8(to, mask, bytes);
            } else if (r.pixels == 2) {
                _mm256_mask_storeu_epi8(to, static_cast<__mmask32>(mask), _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 0));
                if (p + 1 < r.width)
                    _mm256_mask_storeu_epi8(to + r.dst_pitch, static_cast<__mmask32>(mask), _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 1));
            } else {
                const auto m16 = static_cast<__mmask16>(mask);
                _mm_mask_storeu_epi8(to, m16, _mm512_maskz_extracti32x4_epi32(0xF, bytes, 0));
                if (p + 1 < r.width) _mm_mask_storeu_epi8(to + r.dst_pitch, m16, _mm512_maskz_extracti32x4_epi32(0xF, bytes, 1));
                if (p + 2 < r.width) _mm_mask_storeu_epi8(to + 2 * r.dst_pitch, m16, _mm512_maskz_extracti32x4_epi32(0xF, bytes, 2));
                if (p + 3 < r.width) _mm_mask_storeu_epi8(to + 3 * r.dst_pitch, m16, _mm512_maskz_extracti32x4_epi32(0xF, bytes, 3));
            }
        }
        return;
    }
#pragma GCC unroll 16
    for (int v = 0; v < W; ++v)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) _mm512_storeu_si512(r.acc + ((v0 + v) * 4 + k) * 16, acc[v][k]);
}

constexpr int kDepthwiseWidest = 6;  // 24 accumulators and 4 weight vectors
using DepthwiseTile = void (*)(const DepthwiseRow&, i64);
template <bool Lean, int... W>
constexpr std::array<DepthwiseTile, sizeof...(W)> depthwise_tiles(std::integer_sequence<int, W...>) {
    return {&depthwise_tile<W + 1, Lean>...};
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
    static constexpr auto full_tiles = depthwise_tiles<false>(std::make_integer_sequence<int, kDepthwiseWidest>{});
    static constexpr auto lean_tiles = depthwise_tiles<true>(std::make_integer_sequence<int, kDepthwiseWidest>{});
    const auto& tiles = r.rule && Rounder(*r.rule).lean() ? lean_tiles : full_tiles;
    const i64 vectors = (r.width + r.pixels - 1) / r.pixels;
    i64 v = 0;
    for (; v + kDepthwiseWidest <= vectors; v += kDepthwiseWidest) tiles[kDepthwiseWidest - 1](r, v);
    if (v < vectors) tiles[static_cast<std::size_t>(vectors - v - 1)](r, v);
}

// Per superblock, group and output pixel: the 64 channels of each of the group's 4 taps (masked loads: no byte
// past the last channel is read), moved, and interleaved: bytes of taps 0 and 1, and of 2 and 3, into words, then
// the words into dwords, within each 128-bit lane; vector k then holds lane order's channels 16L + 4k + i.
namespace {

// Tap j's bytes of the `Pixels` output pixels of one vector, each pixel's chunk (64 / Pixels bytes) in its own
// 128-bit lanes: pixel i's chunk read at at[i]. A unit whose channels fill its chunks reads them unmasked, the
// chunks past the first inserted from memory (no shuffle port); else masked loads, no byte past the channels read.
template <int Pixels>
__m512i load_pixels(const std::uint8_t* const* at, bool full, __mmask64 mask) {
    if constexpr (Pixels == 1) {
        return full ? _mm512_loadu_si512(at[0]) : _mm512_maskz_loadu_epi8(mask, at[0]);
    } else if constexpr (Pixels == 2) {
        const __m512i x = _mm512_maskz_loadu_epi8(mask, at[0]);  // the upper half zeroed
        if (full) return _mm512_mask_inserti64x4(x, 0xFF, x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at[1])), 1);
        return _mm512_mask_inserti64x4(x, 0xFF, x, _mm256_maskz_loadu_epi8(static_cast<__mmask32>(mask), at[1]), 1);
    } else {
        const auto m = static_cast<__mmask16>(mask);
        const auto load = [&](int i) {
            return full ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(at[i])) : _mm_maskz_loadu_epi8(m, at[i]);
        };
        __m512i x = _mm512_maskz_loadu_epi8(mask, at[0]);
        x = _mm512_mask_inserti32x4(x, kAllLanes, x, load(1), 1);
        x = _mm512_mask_inserti32x4(x, kAllLanes, x, load(2), 2);
        return _mm512_mask_inserti32x4(x, kAllLanes, x, load(3), 3);
    }
}

// (with Moved: XORed with 128, an s8 src moved to u8.) A vector of Pixels output pixels at a time: a unit of 32 or
// 16 channels expands 2 or 4 pixels with the shuffles and stores of one (dw32_112, 1 thread: ms in the commit).
template <bool Moved, int Pixels>
void expand_depthwise_row(const DepthwiseExpansion& e) {
    const __m512i shift = _mm512_set1_epi8(static_cast<char>(0x80));
    const i64 width = e.width, stride = e.stride, dilation = e.dilation;
    const i64 k_bytes = e.width_padded * 64 / Pixels;
    const bool full = e.channels == 64 / Pixels;
    const __mmask64 mask = e.channels == 64 ? ~__mmask64{0} : (__mmask64{1} << e.channels) - 1;
    const i64 vectors = e.width_padded / Pixels;
    for (i64 g = 0; g < e.groups; ++g) {
        const i64 taps = std::min<i64>(4, e.kernel_width - 4 * g);
        std::uint8_t* const out = e.out + g * 4 * k_bytes;
        for (i64 v = 0; v < vectors; ++v) {
            // the vector's pixels' windows (a pixel past the width: the last one's, its outputs never stored)
            const std::uint8_t* const* window[Pixels];
#pragma GCC unroll 4
            for (int i = 0; i < Pixels; ++i) window[i] = e.pixel + std::min(v * Pixels + i, width - 1) * stride + e.crop + 4 * g * dilation;
            __m512i x[4];
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                // a tap past the kernel row meets zero weights: it reads the row's last tap's bytes, no branch
                const i64 tap = std::min<i64>(j, taps - 1) * dilation;
                const std::uint8_t* at[Pixels];
#pragma GCC unroll 4
                for (int i = 0; i < Pixels; ++i) at[i] = window[i][tap];
                x[j] = load_pixels<Pixels>(at, full, mask);
                if constexpr (Moved) x[j] = _mm512_xor_si512(x[j], shift);
            }
            const __m512i lo01 = _mm512_unpacklo_epi8(x[0], x[1]), hi01 = _mm512_unpackhi_epi8(x[0], x[1]);
            const __m512i lo23 = _mm512_unpacklo_epi8(x[2], x[3]), hi23 = _mm512_unpackhi_epi8(x[2], x[3]);
            std::uint8_t* to = out + v * 64;
            _mm512_storeu_si512(to, _mm512_unpacklo_epi16(lo01, lo23));
            _mm512_storeu_si512(to + k_bytes, _mm512_unpackhi_epi16(lo01, lo23));
            _mm512_storeu_si512(to + 2 * k_bytes, _mm512_unpacklo_epi16(hi01, hi23));
            _mm512_storeu_si512(to + 3 * k_bytes, _mm512_unpackhi_epi16(hi01, hi23));
        }
    }
}

// 3 taps, no dilation, stride 1 or 2, 1 pixel per vector: pixel p's taps are pixels sp, sp + 1, sp + 2 and, meeting a
// zero weight, sp + 3: the byte pairs of pixels (sp, sp + 1) and (sp + 2, sp + 3), interleaved as above. The pair
// of pixels (q, q + 1) is interleaved once (stride 2: pixel p's second pair is pixel p + 1's first; stride 1:
// pixel p + 2's first), and each pixel loaded once: per output pixel 6 shuffles and 1 or 2 loads instead of 8 and 4.
// With 2 pixels per vector and stride 1, vector v's taps are the pixel pairs (2v + j, 2v + j + 1), j = 0..3: its
// taps 2 and 3 are vector v + 1's taps 0 and 1, interleaved once likewise.
// A pixel past `reach` is read as the last one: only a zero weight, or no output, meets it.
template <bool Moved, int Pixels>
void expand_depthwise_pairs(const DepthwiseExpansion& e) {
    const __m512i shift = _mm512_set1_epi8(static_cast<char>(0x80));
    const i64 width = e.width_padded / Pixels, stride = e.stride, k_bytes = e.width_padded * 64 / Pixels;
    const i64 last = e.reach - e.crop - 1;
    const bool full = e.channels == 64 / Pixels;
    const __mmask64 mask = e.channels == 64 ? ~__mmask64{0} : (__mmask64{1} << e.channels) - 1;
    const std::uint8_t* const* const px = e.pixel + e.crop;
    const auto load = [&](i64 i) {  // pixel i, and with 2 pixels per vector pixel i + 1 in the upper half
        const std::uint8_t* at[Pixels];
        for (int k = 0; k < Pixels; ++k) at[k] = px[std::min(i + k, last)];
        const __m512i x = load_pixels<Pixels>(at, full, mask);
        return Moved ? _mm512_xor_si512(x, shift) : x;
    };
    struct Pair {
        __m512i lo, hi;
    };
    const auto pair = [](__m512i a, __m512i b) { return Pair{_mm512_unpacklo_epi8(a, b), _mm512_unpackhi_epi8(a, b)}; };
    const auto emit = [&](i64 p, const Pair& a, const Pair& b) {
        std::uint8_t* to = e.out + p * 64;
        _mm512_storeu_si512(to, _mm512_unpacklo_epi16(a.lo, b.lo));
        _mm512_storeu_si512(to + k_bytes, _mm512_unpackhi_epi16(a.lo, b.lo));
        _mm512_storeu_si512(to + 2 * k_bytes, _mm512_unpacklo_epi16(a.hi, b.hi));
        _mm512_storeu_si512(to + 3 * k_bytes, _mm512_unpackhi_epi16(a.hi, b.hi));
    };
    if (stride == 2 || Pixels == 2) {  // the vector's step in pixels: 2
        Pair first = pair(load(0), load(1));
        for (i64 p = 0; p < width; ++p) {
            const Pair second = pair(load(2 * p + 2), load(2 * p + 3));
            emit(p, first, second);
            first = second;
        }
        return;
    }
    __m512i x1 = load(1), x2 = load(2);
    Pair p0 = pair(load(0), x1), p1 = pair(x1, x2);
    for (i64 p = 0; p < width; ++p) {
        const __m512i x3 = load(p + 3);
        const Pair p2 = pair(x2, x3);
        emit(p, p0, p2);
        p0 = p1, p1 = p2, x2 = x3;
    }
}

template <bool Moved>
void expand_depthwise_row_moved(const DepthwiseExpansion& e) {
    if (e.pixels == 1 && e.kernel_width == 3 && e.dilation == 1 && (e.stride == 1 || e.stride == 2))
        expand_depthwise_pairs<Moved, 1>(e);
    else if (e.pixels == 2 && e.kernel_width == 3 && e.dilation == 1 && e.stride == 1)
        expand_depthwise_pairs<Moved, 2>(e);
    else if (e.pixels == 4) expand_depthwise_row<Moved, 4>(e);
    else if (e.pixels == 2) expand_depthwise_row<Moved, 2>(e);
    else expand_depthwise_row<Moved, 1>(e);
}

}  // namespace

void expand_depthwise_row_avx512(const DepthwiseExpansion& e) {
    if (e.shift != 0) expand_depthwise_row_moved<true>(e);
    else expand_depthwise_row_moved<false>(e);
}

void copy_pixels_avx512(const std::uint8_t* from, i64 from_step, std::uint8_t* to, i64 to_step, i64 count, i64 bytes,
                        std::uint8_t shift) {
    const __m512i moved = _mm512_set1_epi8(static_cast<char>(shift));
    const i64 whole = bytes / 64 * 64;
    const __mmask64 rest = (__mmask64{1} << (bytes - whole)) - 1;  // bytes - whole < 64
    for (i64 p = 0; p < count; ++p, from += from_step, to += to_step) {
        for (i64 b = 0; b < whole; b += 64) _mm512_storeu_si512(to + b, _mm512_xor_si512(_mm512_loadu_si512(from + b), moved));
        if (rest) _mm512_mask_storeu_epi8(to + whole, rest, _mm512_xor_si512(_mm512_maskz_loadu_epi8(rest, from + whole), moved));
    }
}

void copy_groups_avx512(const std::uint8_t* from, i64 from_step, std::uint8_t* to, i64 to_step, i64 count, i64 groups,
                        i64 run, i64 run_pitch, std::uint8_t shift) {
    const __m512i moved = _mm512_set1_epi8(static_cast<char>(shift));
    const auto first = [](i64 n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << std::max<i64>(n, 0)) - 1; };
    for (i64 p = 0; p < count; ++p, from += from_step, to += to_step)
        for (i64 gr = 0; gr < groups; ++gr)
            for (i64 b = 0; b < run_pitch; b += 64) {
                const __m512i v = _mm512_maskz_loadu_epi8(first(run - b), from + gr * run + b);
                _mm512_mask_storeu_epi8(to + gr * run_pitch + b, first(run_pitch - b), _mm512_xor_si512(v, moved));
            }
}

// A row of accumulators under an f32 rule (Rounder), pixel by pixel: each pixel's channels are one run of dst
// bytes, written whole before the next. 16 or 17 to 32 channels: 4 or 2 pixels' outputs packed as one vector of 64
// (AMX, pw192_32_28, 1 thread: 16 outputs a time through the truncating store took 30 % of the layer; 24 channels,
// pw144_24_56, 1 thread: b1 0.028-0.030 -> 0.018-0.020 ms, b8 0.272-0.306 -> 0.215-0.216).
void requantize_row_avx512(const std::int32_t* acc, i64 acc_pitch, i64 width, i64 channels, const float* multiplier,
                           const RowRequantization& rq, std::uint8_t* dst, i64 dst_pitch) {
    const Rounder round(rq);
    const auto at = [&](const std::int32_t* a, const float* m, __mmask16 mask) {
        return round(_mm512_maskz_loadu_epi32(mask, a), _mm512_maskz_loadu_ps(mask, m));
    };
    const i64 whole = channels / 64 * 64, full = channels / 16 * 16;
    const auto rest = static_cast<__mmask16>((1u << (channels - full)) - 1);
    const auto lean = [&](const std::int32_t* a, const float* m) {
        return round.round_lean(_mm512_loadu_si512(a), _mm512_loadu_ps(m));
    };
    // 64 / channels pixels at a time: 64 outputs through one packing; returns the pixels done
    const auto packed = [&](auto blocks_of_16) {
        constexpr int B = decltype(blocks_of_16)::value, per = 4 / B;
        i64 p = 0;
        __m512 m[4];
        for (int j = 0; j < 4; ++j) m[j] = _mm512_maskz_loadu_ps(lanes(channels, j % B), multiplier + 16 * (j % B));
        for (; p + per <= width; p += per) {
            __m512i r[4];
            for (int j = 0; j < 4; ++j) {
                const __m512i a = _mm512_loadu_si512(acc + (p + j / B) * acc_pitch + 16 * (j % B));
                r[j] = round.lean() ? round.round_lean(a, m[j]) : round(a, m[j]);
            }
            const __m512i bytes = round.bytes64(r[0], r[1], r[2], r[3]);
            std::uint8_t* to = dst + p * dst_pitch;
            if (dst_pitch == 16 * B && channels == 16 * B) {
                _mm512_storeu_si512(to, bytes);
            } else if constexpr (B == 2) {  // each pixel's channels of its 32 bytes
                const auto keep = static_cast<__mmask32>(channels == 32 ? ~0u : (1u << channels) - 1);
                _mm256_mask_storeu_epi8(to, keep, _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 0));
                _mm256_mask_storeu_epi8(to + dst_pitch, keep, _mm512_maskz_extracti64x4_epi64(0xFF, bytes, 1));
            } else {
                _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm512_maskz_extracti32x4_epi32(0xF, bytes, 0));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(to + dst_pitch), _mm512_maskz_extracti32x4_epi32(0xF, bytes, 1));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * dst_pitch), _mm512_maskz_extracti32x4_epi32(0xF, bytes, 2));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 3 * dst_pitch), _mm512_maskz_extracti32x4_epi32(0xF, bytes, 3));
            }
        }
        return p;
    };
    const i64 done = channels == 16                   ? packed(std::integral_constant<int, 1>{})
                     : channels > 16 && channels <= 32 ? packed(std::integral_constant<int, 2>{})
                                                       : 0;
    for (i64 p = done; p < width; ++p) {
        const std::int32_t* a = acc + p * acc_pitch;
        std::uint8_t* to = dst + p * dst_pitch;
        if (round.lean()) {  // store64 packs with saturation (Rounder::lean)
            for (i64 c = 0; c < whole; c += 64)
                round.store64(to + c, lean(a + c, multiplier + c), lean(a + c + 16, multiplier + c + 16),
                              lean(a + c + 32, multiplier + c + 32), lean(a + c + 48, multiplier + c + 48));
        } else {
            for (i64 c = 0; c < whole; c += 64)
                round.store64(to + c, at(a + c, multiplier + c, kAllLanes), at(a + c + 16, multiplier + c + 16, kAllLanes),
                              at(a + c + 32, multiplier + c + 32, kAllLanes), at(a + c + 48, multiplier + c + 48, kAllLanes));
        }
        for (i64 c = whole; c < full; c += 16) round.store16(to + c, at(a + c, multiplier + c, kAllLanes), kAllLanes);
        if (rest) round.store16(to + full, at(a + full, multiplier + full, rest), rest);
    }
}

}  // namespace convcheck::optimized::detail
