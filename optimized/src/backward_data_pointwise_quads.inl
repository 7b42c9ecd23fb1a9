// The pointwise backward-data kernel in quads of o (backward_data_pointwise.hpp, PointwiseBackwardData::
// quads), AVX-512 only (included by backward_data_avx512.cpp after backward_data_pointwise.inl): for one
// vector of input channels (NB = 1) and O a multiple of 4.
//
// The one-vector tile of backward_data_pointwise.inl broadcasts one float of diff_dst per FMA (12 pixels:
// 13 loads per 12 FMAs, about 150 GFLOP/s in L1 against the 217 peak). Here a 128-bit load of diff_dst(p,
// 4q .. 4q + 3) broadcast to the four 128-bit lanes serves four FMAs: lane 4k + j of group g (g, k, j in
// 0..3) holds the product diff_dst(p, 4q + j) * W(4q + j, 4g + k), so a pixel keeps four accumulators
// (the 16 channels of its super block as 4 groups x 4 lanes, each lane summing the o = j mod 4) and a
// quad of o costs per tile P broadcasts and 4 weight loads for 4P FMAs. At the end of the pixel's o the
// four o-classes of each channel are added: (s0 + s2) + (s1 + s3), each s_j summed from zero in
// increasing o. One fixed order for every thread count, tile and chunk.
// The weights: [super block][O/4][group g][lane 4k + j] = W(4q + j, super block * 16 + 4g + k), zeros
// past C.

namespace convcheck::optimized::detail::avx512 {
namespace {

constexpr int kQuadPixels = 6;  // 24 accumulators + 4 weights + the broadcast; divides kPointwiseChunk
static_assert(kPointwiseChunk % kQuadPixels == 0, "tiles must not straddle chunks");

// GCC 12's plain unpack and broadcast intrinsics read an "undefined" vector that -Werror=maybe-uninitialized
// flags: their zero-masked forms with every lane kept (as cc_planes_avx512.cpp does).
constexpr __mmask16 kAllLanes = 0xFFFF;

// Four accumulators of one pixel (group g, lane 4k + j) -> its 16 channels c = 4g + k, each the sum over
// j as (j0 + j2) + (j1 + j3).
inline vf quad_channels(vf a0, vf a1, vf a2, vf a3) {
    const auto lo = [](vf a, vf b) { return _mm512_maskz_unpacklo_ps(kAllLanes, a, b); };
    const auto hi = [](vf a, vf b) { return _mm512_maskz_unpackhi_ps(kAllLanes, a, b); };
    const vf s01 = _mm512_add_ps(lo(a0, a1), hi(a0, a1));  // lane 4k: a0 j0+j2, a1 j0+j2, a0 j1+j3, a1 j1+j3
    const vf s23 = _mm512_add_ps(lo(a2, a3), hi(a2, a3));
    const vf r = _mm512_add_ps(_mm512_shuffle_ps(s01, s23, _MM_SHUFFLE(1, 0, 1, 0)),
                               _mm512_shuffle_ps(s01, s23, _MM_SHUFFLE(3, 2, 3, 2)));  // lane 4k + g: channel 4g + k
    const __m512i to_channels = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_maskz_permutexvar_ps(kAllLanes, to_channels, r);
}

// One tile: `count` (<= P) pixels from dy (pixel stride O) into dx (pixel stride C), super block cs;
// pixels past count repeat the last one and are not stored. pf: the diff_dst to prefetch (P pixels from
// there, contiguous), or null.
template <int P>
void pointwise_quad_tile(const PointwiseBackwardData& p, const float* dy, float* dx, i64 count, i64 cs, const float* pf) {
    const i64 O = p.out_channels, C = p.in_channels;
    const float* q[P];
#pragma GCC unroll 16
    for (int r = 0; r < P; ++r) q[r] = dy + min_i64(r, count - 1) * O;
    vf acc[P * 4];
#pragma GCC unroll 64
    for (int i = 0; i < P * 4; ++i) acc[i] = zero();
    const float* wq = p.weights + cs * O * W;
    const auto quad = [&](i64 u) __attribute__((always_inline)) {  // o = 4u .. 4u + 3 of the current line
        vf wv[4];
#pragma GCC unroll 4
        for (int g = 0; g < 4; ++g) wv[g] = load(wq + (u * 4 + g) * W);
#pragma GCC unroll 16
        for (int r = 0; r < P; ++r) {
            const vf b = _mm512_maskz_broadcast_f32x4(kAllLanes, _mm_loadu_ps(q[r] + u * 4));
#pragma GCC unroll 4
            for (int g = 0; g < 4; ++g) acc[r * 4 + g] = fma(b, wv[g], acc[r * 4 + g]);
        }
    };
    constexpr i64 kLine = 16;  // floats per cache line
    for (i64 o0 = 0; o0 < O; o0 += kLine) {
        if (pf)  // the next tile's lines at o0 * P floats into it, as backward_data_pointwise.inl does
#pragma GCC unroll 16
            for (int r = 0; r < P; ++r) _mm_prefetch(reinterpret_cast<const char*>(pf + o0 * P + r * kLine), _MM_HINT_T0);
        const i64 n = min_i64(kLine, O - o0) / 4;
        if (n == kLine / 4) {
#pragma GCC unroll 4
            for (i64 u = 0; u < kLine / 4; ++u) quad(u);
        } else {
            for (i64 u = 0; u < n; ++u) quad(u);
        }
#pragma GCC unroll 16
        for (int r = 0; r < P; ++r) q[r] += kLine;
        wq += kLine * W;
    }
    const i64 valid = min_i64(W, C - cs * W);
    float* to = dx + cs * W;
    vf out[P];
#pragma GCC unroll 16
    for (int r = 0; r < P; ++r) out[r] = quad_channels(acc[r * 4], acc[r * 4 + 1], acc[r * 4 + 2], acc[r * 4 + 3]);
    if (count == P) {
        store_tile<P, 1>(out, to, C, valid);
        return;
    }
    float tile[P * W];
    store_tile<P, 1>(out, tile, W, W);
    for (i64 r = 0; r < count; ++r)
        for (i64 c = 0; c < valid; ++c) to[r * C + c] = tile[r * W + c];
}

}  // namespace

void pointwise_backward_data_quads(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end) {
    constexpr int P = kQuadPixels;
    const i64 O = p.out_channels, C = p.in_channels, M = p.pixels;
    for (i64 chunk = begin; chunk < end; ++chunk) {
        const i64 first = chunk * p.chunk_pixels, last = min_i64(M, first + p.chunk_pixels);
        for (i64 px = first; px < last; px += P) {
            const i64 count = min_i64(P, last - px);
            // the tile four ahead while it lies in dy (as backward_data_pointwise.inl)
            const float* pf = px + 5 * P <= M ? dy + (px + 4 * P) * O : nullptr;
            for (i64 cs = 0; cs < p.super_blocks; ++cs)
                pointwise_quad_tile<P>(p, dy + px * O, dx + px * C, count, cs, cs == 0 ? pf : nullptr);
        }
    }
}

}  // namespace convcheck::optimized::detail::avx512
