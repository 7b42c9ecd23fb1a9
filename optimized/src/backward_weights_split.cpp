#include "backward_weights_split.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {
namespace {

// The parts' target: items x parts of at least this many where the pixels allow. A rule of the layer alone (see
// backward_weights_split.hpp); the items, which follow the thread count, give the tasks beyond it.
constexpr i64 kWantedPartTasks = 32;
constexpr i64 kMaxPartFloats = i64{1} << 26;
// the most a depthwise item's channels may exceed the mean once cut into lane chunks (the tests' 1.3 for a task,
// with room for the parts' unevenness: 56 rows in 12 parts, 5 / 4.67 = 1.07)
constexpr double kMostLaneImbalance = 1.2;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

// The size of `count` things cut into `chunks` chunks of even sizes (the last at most as large as the others).
i64 even_chunk(i64 count, i64 chunks) { return ceil_div(count, std::clamp<i64>(chunks, 1, count)); }

i64 rows_total(const BackwardWeightsProblem& p) {
    const Geometry& g = *p.geometry;
    return p.depthwise ? g.taps() : g.taps() * g.in_per_group;
}
i64 lanes_total(const BackwardWeightsProblem& p) {
    const Geometry& g = *p.geometry;
    return p.depthwise ? g.out_channels : g.out_per_group;
}

}  // namespace

i64 backward_weights_parts(const BackwardWeightsProblem& p) {
    const Geometry& g = *p.geometry;
    const i64 items = p.work_items(), rows = p.output_rows();
    const i64 gradient = g.groups * g.taps() * g.in_per_group * g.out_per_group;
    i64 parts = items >= kWantedPartTasks ? 1 : ceil_div(kWantedPartTasks, items);
    parts = std::min(parts, std::max<i64>(1, rows * g.out[2] / (p.depthwise ? kDepthwisePartPixels : kPartPixels)));
    return std::min(parts, std::max<i64>(1, kMaxPartFloats / std::max<i64>(1, gradient)));
}

void split_for_threads(BackwardWeightsProblem& p, bool lane_chunks_allowed, i64 parts, int threads) {
    const i64 wanted = threads > 1 ? kTasksPerThread * threads : 1;
    // lane blocks first where cutting them reads nothing twice: a 1x1 layer's items read x in place, a depthwise
    // layer's lane blocks are disjoint channels of x and diff_dst (its tiles share them: dw960_7 has one tile of
    // 9 taps and 30 lane blocks of 32 channels with AVX-512). Where a 1x1 layer's tiles pack x (x_packed_per_tile)
    // and diff_dst is packed, each lane chunk packs x again and each tile chunk diff_dst: the smaller is cut first
    // (Zen 3, 2 threads: res4_1x1_reduce, 1024 rows and 256 lanes, 12.8 -> 8.0 ms at batch 8 and 1.33 -> 1.02 at
    // batch 1 with tiles first; res3_1x1_512, 128 rows and 512 lanes, lost 20-70 % at batch 1 with tiles first)
    const bool tiles_first = p.x_packed_per_tile && rows_total(p) > lanes_total(p);
    const bool lanes_first = lane_chunks_allowed && ((p.geometry->taps() == 1 && !tiles_first) || p.depthwise);
    // one more chunk of lane blocks or of tiles, the first that can be cut (false: neither can)
    const auto cut_lanes = [&] {
        if (!lane_chunks_allowed || p.lane_chunks() >= p.lane_blocks) return false;
        p.lane_blocks_per_item = even_chunk(p.lane_blocks, 2 * p.lane_chunks());
        return true;
    };
    const auto cut_tiles = [&] {
        if (p.tile_chunks() >= p.tiles) return false;
        p.tiles_per_item = even_chunk(p.tiles, 2 * p.tile_chunks());
        return true;
    };
    // the cache rules' chunks first of even sizes (as many, none larger): 86 + 86 + 20 tiles -> 64 + 64 + 64
    p.tiles_per_item = even_chunk(p.tiles, p.tile_chunks());
    if (lane_chunks_allowed) p.lane_blocks_per_item = even_chunk(p.lane_blocks, p.lane_chunks());
    while (p.work_items() * parts < wanted)
        if (!(lanes_first ? cut_lanes() || cut_tiles() : cut_tiles() || cut_lanes())) break;
    // a depthwise layer's lane chunks even within kMostLaneImbalance where it has several: 3 lane blocks in 2 chunks
    // (2 + 1: the larger 1.33x the mean, dw96_112s2) are cut to 3 (the parts' unevenness multiplies it)
    const auto lane_imbalance = [&] {
        return static_cast<double>(p.lane_blocks_per_item * p.vector_blocks * p.lanes) * static_cast<double>(p.lane_chunks()) /
               static_cast<double>(lanes_total(p));
    };
    while (p.depthwise && p.lane_chunks() > 1 && lane_imbalance() > kMostLaneImbalance)
        if (!cut_lanes()) break;
}

Decomposition backward_weights_decomposition(const BackwardWeightsProblem& p, bool lane_chunks_allowed, i64 parts,
                                             int threads) {
    const i64 block = static_cast<i64>(p.vector_blocks) * p.lanes, rows = p.output_rows(), R = p.tile_rows;
    const i64 pixels_per_row = p.geometry->out[2];
    Decomposition d;
    d.threads = threads;
    d.tasks = p.work_items() * parts;
    d.most_tasks = p.item_groups() * p.tiles * (lane_chunks_allowed ? p.lane_blocks : 1) * parts;
    // an item's rows of the gradient and its lanes, times a part's pixels; the largest of each, and their totals
    const i64 item_rows = std::min(p.tiles_per_item * R, rows_total(p));
    const i64 item_lanes = std::min(p.lane_blocks_per_item * block, lanes_total(p));
    const i64 part_rows = ceil_div(rows, parts);
    d.largest_task = static_cast<double>(item_rows) * static_cast<double>(item_lanes) * static_cast<double>(part_rows * pixels_per_row);
    const double total = static_cast<double>(p.item_groups() * rows_total(p)) * static_cast<double>(lanes_total(p)) *
                         static_cast<double>(rows * pixels_per_row);
    d.mean_task = total / static_cast<double>(d.tasks);
    d.block_pixels = p.depthwise ? 0 : p.block_pixels;
    return d;
}

}  // namespace convcheck::optimized::detail
