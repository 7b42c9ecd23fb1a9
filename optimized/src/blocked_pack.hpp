// Internal: packing canonical f32 weights [O][ICg][taps] (and bias [O]) into the blocked layout the
// direct kernels read: weights [G][OCS][taps][ICg][NB*W], bias [G][OCS][NB*W], zero padded.
#pragma once

#include <vector>

#include "convcheck/core/cache_line_allocator.hpp"
#include "problem.hpp"

namespace convcheck::optimized::detail {

struct BlockedWeights {
    CacheLineFloats weights, bias;  // 64-byte aligned; bias empty when there is none
    int vector_blocks = 1;             // NB
    i64 oc_super_blocks = 1;           // OCS
    i64 ic_block = 1;                  // input channels per cache block
    i64 chunk_pixels = 1;              // output pixels per work item
    bool ocs_innermost = false;        // BlockedProblem::ocs_innermost
    // The kernels' view of these weights, for `geometry` and its tap offsets.
    BlockedProblem problem(const Geometry* geometry, const i64* tap_offsets) const {
        BlockedProblem p;
        p.geometry = geometry;
        p.tap_offsets = tap_offsets;
        p.weights = weights.data();
        p.bias = bias.empty() ? nullptr : bias.data();
        p.vector_blocks = vector_blocks;
        p.oc_super_blocks = oc_super_blocks;
        p.ic_block = ic_block;
        p.chunk_pixels = chunk_pixels;
        p.ocs_innermost = ocs_innermost;
        return p;
    }
};

// The number of vector blocks NB for OCg output channels per group: the one that wastes the fewest
// padded lanes (ties: the larger tile). avx512: W = 16 (up to 4 vector blocks, 6 where a super block's
// weights, weights_per_output = ICg x taps per output channel, take at most 32 KiB), else W = 8 (up to 3).
int blocked_vector_blocks(i64 out_per_group, i64 weights_per_output, bool avx512);
// The output pixels of a work item (BlockedWeights::chunk_pixels): 32 register tiles.
i64 blocked_chunk_pixels(i64 out_per_group, i64 weights_per_output, bool avx512);
// The pixel chunk of the work items over `others` x chunks items (groups x super blocks x output planes, each plane
// of `plane` pixels): chunk_pixels where that gives 32 items or more or where the two halves of the items (split in
// the middle) hold within 5 % of half of the pixels; else the largest chunk (at most chunk_pixels) for which they
// do, so that 2 threads get the same work; chunk_pixels if there is none.
i64 blocked_balanced_chunk_pixels(i64 chunk_pixels, i64 plane, i64 others);
// The plane in as many chunks as chunk_pixels makes, of equal sizes: the largest the same, the last at most one pixel
// per chunk shorter (784 pixels in chunks of 192 -> 5 of 157, the last 156, instead of four of 192 and one of 16).
i64 blocked_even_chunk_pixels(i64 chunk_pixels, i64 plane);
// A plan's pixel chunk on geometry g (ConvPlan, and the memory rule's estimate of its bands): blocked_chunk_pixels
// (of even sizes for 1x1 layers: blocked_even_chunk_pixels), balanced over the batch's items (batch x groups x super
// blocks x output planes). Depends on the descriptor only:
// the same chunks at any budget (bands of xp) or thread count, so the same register tiles (their taps skipped in the
// padding) for every pixel.
i64 blocked_plan_chunk_pixels(const Geometry& g, bool avx512);
// Whether every output pixel of g reads every tap inside the input (no padding read, on any axis): then the pixels'
// tiles visit the same taps however the plane is cut, and a chunk may follow the thread count.
bool every_pixel_reads_every_tap(const Geometry& g);
// The tasks per thread a plan cuts its work into where the layer has them (kTasksPerThread in
// backward_weights_split.hpp): with n tasks of at most r times the mean work each, a greedy schedule over t threads
// ends within (1 + r t / n) of the ideal; 4 per thread and r <= 1.3 keep that within 1.33.
inline constexpr i64 kForwardTasksPerThread = 4;
// The chunk of a plan for `threads` on a layer whose pixels read every tap (every_pixel_reads_every_tap), from the
// layer's chunk_pixels (blocked_plan_chunk_pixels) over `others` x chunks items; one thread: the same.
//   - one_range_per_thread (a 1x1 layer: equal items, one range of them per thread, TBB's static partitioner): the
//     chunk of whole register tiles (`tile` pixels) whose busiest thread runs the fewest tiles, ceil(items / threads)
//     x ceil(chunk / tile) (ties: the larger chunk), where that is at least 1/8 fewer than the layer's chunk gives;
//     else the layer's. (4 items per thread at 2 threads would cost more tile passes than it evens out: pw576_96_14
//     at batch 1, 2 items of 98 pixels, 13 tiles of 8 each, against 8 of 25 at 4 tiles each.)
//   - else (a greedy schedule): the same where the items reach kForwardTasksPerThread per thread, else the plane in
//     more chunks of equal sizes, the fewest that reach it, and at least a tile each (the layer's finest cut).
i64 blocked_thread_chunk_pixels(i64 chunk_pixels, i64 plane, i64 others, i64 tile, int threads, bool one_range_per_thread);
// The packed weights' floats: G x ceil(OCg / (NB*W)) x taps x ICg x NB*W.
i64 blocked_weights_floats(i64 groups, i64 in_per_group, i64 out_per_group, i64 taps, bool avx512);

// avx512: W = 16, else W = 8; NB as blocked_vector_blocks says.
BlockedWeights pack_blocked(const std::vector<float>& canonical, const std::vector<float>& bias, i64 groups,
                            i64 in_per_group, i64 out_per_group, i64 taps, bool avx512);
// The same from canonical weights [O][ICg][taps] anywhere (read in that order, once).
BlockedWeights pack_blocked(const float* canonical, const std::vector<float>& bias, i64 groups, i64 in_per_group,
                            i64 out_per_group, i64 taps, bool avx512);

}  // namespace convcheck::optimized::detail
