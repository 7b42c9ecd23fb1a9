// Internal: backward data of a 1x1 layer (one group, every stride 1, no padding), f32 channels last,
// straight from diff_dst: diff_src is then the product diff_dst [pixels][O] x W [O][C], read as one
// long run of pixels (every rank). A register tile holds P pixels x NB vectors of input channels (one
// super block of NB*W channels; the tile's pixels stay in L1 over the super blocks); per output channel
// o it broadcasts the P pixels' diff_dst(o) and loads the super block's W(o, .):
//   diff_src(pixel, c) = sum over o in increasing order of diff_dst(pixel, o) * W(o, c)
// in f32 FMAs from zero (one order for any thread count; the forward blocked kernel's order with one
// input-channel block). While a tile computes, it prefetches the diff_dst of the tile four ahead: the
// forward's kernel, which does not, waits on memory for layers whose diff_dst does not fit the caches
// (MobileNet-v2's 96 -> 16 layer at 112x112, batch 8: 6.0-6.5 ms there, 4.0-4.3 ms here).
// With AVX-512, one vector of input channels and O a multiple of 4 (MobileNet-v2's 96 -> 16), the tiles
// broadcast diff_dst four o at a time instead (backward_data_pointwise_quads.inl: another fixed order).
// Work: chunks of chunk_pixels pixels (kPointwiseChunk, or for many threads less), each written by one task; a
// tile's pixels are grouped in a chunk only (its sums the same whatever the chunk: one order per pixel).
#pragma once

#include "greedy_schedule.hpp"
#include "problem.hpp"

namespace convcheck::optimized::detail {

inline constexpr i64 kPointwiseChunk = 96;  // a multiple of every tile's pixels (4, 6, 8, 12, 16)

// The least chunk a plan cuts the pixels into: one AVX-512 tile of one vector (16 pixels; the others' tiles leave a
// shorter tail in it).
inline constexpr i64 kPointwiseLeastChunk = 16;

// A chunk's cost beyond its pixels, in pixels (pointwise_chunk_pixels): measured (1 thread, batch 1, cpu clock,
// chunks of 96, 48 and 16 pixels; ms): res4_1x1_1024 0.553-0.559, 0.584-0.596, 0.648-0.677; res4_1x1_reduce
// 0.558-0.561, 0.546-0.585, 0.657-0.672; pw576_96_14 0.115-0.122, 0.111-0.118, 0.134-0.138: 3 to 7 pixels a chunk.
inline constexpr i64 kPointwiseChunkOverhead = 4;

// The chunk for `threads`: kPointwiseChunk, or where that gives fewer than 4 chunks per thread, the chunk halved
// (96, 48, 24, 16 pixels) until it does or reaches kPointwiseLeastChunk, taken only where a greedy schedule of the
// chunks, each costing its pixels and kPointwiseChunkOverhead, then ends sooner at the latest (greedy_schedule.hpp).
inline i64 pointwise_chunk_pixels(i64 pixels, int threads) {
    i64 chunk = kPointwiseChunk;
    while (threads > 1 && (pixels + chunk - 1) / chunk < 4 * threads && chunk > kPointwiseLeastChunk)
        chunk = chunk / 2 < kPointwiseLeastChunk ? kPointwiseLeastChunk : chunk / 2;
    const auto finish = [&](i64 c) {
        const i64 chunks = (pixels + c - 1) / c;
        return greedy_end_times_threads(pixels + chunks * kPointwiseChunkOverhead, (pixels < c ? pixels : c) + kPointwiseChunkOverhead, threads);
    };
    return finish(chunk) < finish(kPointwiseChunk) ? chunk : kPointwiseChunk;
}

struct PointwiseBackwardData {
    i64 pixels = 0;                  // N * spatial
    i64 in_channels = 0;             // C
    i64 out_channels = 0;            // O
    int vector_blocks = 1;           // NB: a super block is NB*W input channels
    i64 super_blocks = 1;            // ceil(C / (NB*W))
    const float* weights = nullptr;  // [super block][O][NB*W] f32, zeros past C (quads: see below)
    // AVX-512, NB = 1, O a multiple of 4: backward_data_pointwise_quads.inl's tiles, its weights
    // [super block][O/4][4][W] (pointwise_quad_weights)
    bool quads = false;
    i64 chunk_pixels = kPointwiseChunk;  // pointwise_chunk_pixels
    bool stream_output = false;          // full tiles stored non-temporally (diff_src past the streaming bound)
    i64 chunks() const { return (pixels + chunk_pixels - 1) / chunk_pixels; }
};

// The quads' weights from W(o, c) (canonical [O][C]): lane 4k + j of group g in quad q of super block
// cs is W(4q + j, cs*16 + 4g + k), zeros past C. The caller's vector holds super_blocks * O * 16 floats.
inline void pointwise_quad_weights(const float* canonical, i64 O, i64 C, float* to) {
    for (i64 o = 0; o < O; ++o)
        for (i64 c = 0; c < C; ++c) {
            const i64 cs = c / 16, g = c % 16 / 4, k = c % 4, q = o / 4, j = o % 4;
            to[((cs * (O / 4) + q) * 4 + g) * 16 + 4 * k + j] = canonical[o * C + c];
        }
}

namespace avx512 {
int pointwise_backward_data_max_blocks();
void pointwise_backward_data_chunks(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end);
void pointwise_backward_data_quads(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end);
}  // namespace avx512
namespace avx2 {
int pointwise_backward_data_max_blocks();
void pointwise_backward_data_chunks(const PointwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
