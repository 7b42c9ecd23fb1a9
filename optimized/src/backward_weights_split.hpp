// Internal: how backward weights cuts its reduction into tasks, a pure function of the layer (the problem
// with its cache-sized items, backward_weights_plan.cpp) and the thread count.
//
//   - parts: the output rows cut into `parts`, each summed into a buffer of its own, the buffers then added in
//     part order. The parts set each element's order of summation, so they depend on the layer only (the
//     results are bitwise identical for any thread count: docs/optimized.md, "Determinism").
//   - items: (group, chunk of tiles, chunk of lane blocks), each a disjoint piece of the gradient summed whole by
//     one task, so that the cut changes no sum: it follows the thread count. The cache rules' items, evened out
//     and then cut finer in even chunks until items x parts reach kTasksPerThread per thread (more than one
//     thread), where the layer has that many pieces.
#pragma once

#include "backward_weights_problem.hpp"
#include "convcheck/optimized/decomposition.hpp"

namespace convcheck::optimized::detail {

// Tasks wanted per thread: with n tasks of at most r times the mean work each, a greedy schedule over t threads
// ends within (1 + r t / n) of the ideal; 4 per thread and r <= 1.3 keep that within 1.33.
inline constexpr i64 kTasksPerThread = 4;
// Output pixels a part of a dense layer sums at least (depthwise: kDepthwisePartPixels): each part costs one
// more pass over the gradient (its sums written, then added), against pixels x gradient FMAs of work.
// 256 -> 768 (Xeon, 1 thread, plan alone, min of 5-12 alternating rounds): pw576_96_14 6 -> 2 parts
// 1.16 -> 1.11-1.13 ms, res3_downsample 11 -> 8 parts 12.66 -> 12.41, res3_3x3s2 11 -> 8 parts 13.68 -> 13.23.
inline constexpr i64 kPartPixels = 768;
inline constexpr i64 kDepthwisePartPixels = 256;

// The parts of the problem's output rows: where its items are fewer than kWantedPartTasks, as many more as make
// that, each part at least kPartPixels output pixels (depthwise: kDepthwisePartPixels) and all parts' buffers at
// most kMaxPartFloats. The layer's only: p's items as the cache rules cut them (no thread count).
i64 backward_weights_parts(const BackwardWeightsProblem& p);

// p's items cut finer for `threads` (tiles_per_item, lane_blocks_per_item): lane blocks first on a 1x1 layer (its
// tiles read x in place, its items pack their own lane blocks of diff_dst) and on a depthwise layer (its lane blocks
// are disjoint channels), tiles first elsewhere; the portable kernel cuts tiles only (lane_chunks_allowed false).
void split_for_threads(BackwardWeightsProblem& p, bool lane_chunks_allowed, i64 parts, int threads);

// The tasks (items x parts) and their multiply-adds; most_tasks: every tile and (lane_chunks_allowed) every lane
// block an item of its own.
Decomposition backward_weights_decomposition(const BackwardWeightsProblem& p, bool lane_chunks_allowed, i64 parts,
                                             int threads);

}  // namespace convcheck::optimized::detail
