// BackwardWeightsPlan: src and diff_dst widened to channels-last f32 (the forward's edges), the
// kernels of backward_weights_problem.hpp over work items (group, lane block, chunk of tiles), the
// bias as a column sum of diff_dst, and one rounding into the user's filter format and dtype.
//
// A layer with few work items (depthwise, a 7x7 layer at batch 1) would leave threads idle: its output
// rows are then cut into `parts`, a number that depends only on the descriptor; each part's sums go to
// their own buffer and the parts are added in part order. Every element is thus summed in one fixed
// order for any thread count.
#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>

#include "backward_weights_problem.hpp"
#include "backward_weights_split.hpp"
#include "convcheck/optimized/backward_plan.hpp"
#include "conversions.hpp"
#include "parallel_join.hpp"
#include "workspace_pool.hpp"

namespace convcheck::optimized {

using detail::i64;

namespace {

constexpr i64 kSliceFloats = i64{1} << 16;
constexpr i64 kDepthwiseScratchFloats = i64{1} << 16;
// The general kernel's blocks of pixels: as many as keep an item's diff_dst lines of a block (its lane blocks,
// which every tile of the item reads again) within this share of L2, from 128 up to 1024 (block_pixels_general)
constexpr i64 kPanelShareBytes = 128 * 1024;
// A 1x1 layer's item with diff_dst packed takes every lane block while its slice of the gradient stays
// within this (this Xeon's L2 is 2 MB a core): the pack then reads whole diff_dst rows, and x is read once
// a part, not once per lane chunk. res4_1x1_1024 (16 lane blocks of 64 channels, slice 1 MB): 3 -> 16 lane
// blocks an item 6.10 -> 5.79 ms (6 parts), 5.55 with 2 parts; oneDNN 5.23.
constexpr i64 kWholeRowSliceFloats = i64{1} << 19;

// The general kernel's pixels per block, its item's diff_dst lines `lanes` floats a pixel. Each tile loads and
// stores its accumulators once a block, so its work between the two grows with the block, while the item's
// diff_dst lines of a block should stay in L2 for every tile to read. Zen 4, batch 8, 1 thread, AVX-512, from
// blocks of 64 (the rule before for 1x1 layers: the lines within L1) or 128 pixels: pw16_96_112 5.0-5.4 -> 4.1-4.9
// ms, pw192_32_28 0.81 -> 0.73, res5_1x1_2048 8.6 -> 7.6-7.8, pw576_96_14 1.63 -> 1.52, pw960_320_7 2.29 -> 2.12,
// conv1_7x7s2 (64 lanes) 20.3-21.8 -> 19.5-20.3; res2_1x1_256 (1 KB of lines a pixel) stays at 128 (AVX2 10-12.6 ms
// against 9.6-9.8 at 256). A block never grows past a part's `part_pixels` (the scratch, zero-filled on a plan's
// first call, is sized by the block: a batch-1 layer of 49 pixels keeps blocks of 128).
i64 block_pixels_general(i64 lanes, i64 part_pixels) {
    i64 pixels = 128;
    while (pixels < 1024 && pixels < part_pixels && 2 * pixels * lanes * static_cast<i64>(sizeof(float)) <= kPanelShareBytes)
        pixels *= 2;
    return pixels;
}

Path automatic_path() {
    if (cpu_has_avx512()) return Path::blocked_avx512;
    if (cpu_has_avx2_fma()) return Path::blocked_avx2;
    return Path::scalar;
}

// diff_dst as the "input" of a 1x1 forward convolution, so that the forward's edges widen it to
// channels-last f32 [N][out...][O].
ConvDescriptor diff_dst_as_input(const ConvDescriptor& d) {
    ConvDescriptor f;
    f.rank = d.rank;
    f.batch = d.batch;
    f.in_channels = f.out_channels = d.out_channels;
    for (int a = 0; a < d.rank; ++a) f.input_size[a] = d.output_size(a);
    f.dtype = d.dtype;
    f.data_format = d.data_format;
    return f;
}

}  // namespace

struct BackwardWeightsPlan::Impl {
    ConvDescriptor desc, dy_desc;
    detail::Geometry geometry, dy_geometry;
    detail::Geometry packed_geometry;  // the padded copy of src as an input with no padding
    bool src_in_place = false, dy_in_place = false;
    // The gradient's layout [G][taps][ICg][OCg] is the user's diff_weights (f32 XIO, one group): the
    // vector kernels write it there, or the parts' sums go there, with no copy after (res5_3x3's 9 MB:
    // the copy was 7 % of its time).
    bool weights_direct = false;
    std::vector<float> zeros;
    std::vector<i64> taps;
    Path path = Path::scalar;
    detail::BackwardWeightsProblem problem;
    i64 parts = 1;
    int threads = 1;  // what the items are cut for: Options::threads, 0 resolved to the arena's concurrency
    std::unique_ptr<tbb::task_arena> arena;
    detail::WorkspacePool<float> inputs, diffs, sums, scratch_floats;
    detail::WorkspacePool<i64> scratch_offsets;

    // whether the kernels take items of part of the lane blocks (the vector kernels, depthwise included:
    // its lane blocks are disjoint channels, so a depthwise layer with one tile, 3x3, has as many items as
    // lane blocks instead of one; the portable loops take every lane)
    bool lanes_split() const { return path != Path::scalar; }
    // A depthwise layer's tasks on the vector paths run as one range per thread (TBB's static partitioner), which
    // the kernel walks as one where its items are consecutive lane chunks of a part: each walk costs a setup and
    // its first lane block's lines unfetched, about 1.4 us (dw960_7 at batch 8, 1 thread: 0.079 ms whole, 0.090
    // in 8 items, 0.120 in 30), a fifth of the call at 2 threads in 8 items of 4 lane blocks (0.055 -> 0.044 ms,
    // oneDNN 0.041). Its lane blocks are equal work, so ranges of equal tasks balance.
    bool one_range_per_thread() const { return problem.depthwise && lanes_split(); }

    template <typename Body>
    static void parallel(i64 count, const Body& body, bool one_per_thread = false) {
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, count),
                                    [&](const tbb::blocked_range<i64>& r) { body(r.begin(), r.end()); }, one_per_thread);
    }

    void plan_problem() {
        const detail::Geometry& g = geometry;
        detail::BackwardWeightsProblem& p = problem;
        p.geometry = &geometry;
        p.tap_offsets = taps.data();
        p.depthwise = g.in_per_group == 1 && g.out_per_group == 1;
        const i64 lanes_total = p.depthwise ? g.out_channels : g.out_per_group;
        const i64 rows_total = p.depthwise ? g.taps() : g.taps() * g.in_per_group;
        if (path == Path::scalar) {
            p.vector_blocks = p.tile_rows = p.lanes = 1;
        } else {
            const bool wide = path == Path::blocked_avx512;
            p.lanes = wide ? detail::avx512::backward_lanes() : detail::avx2::backward_lanes();
            const int most = wide ? detail::avx512::backward_max_vector_blocks(p.depthwise)
                                  : detail::avx2::backward_max_vector_blocks(p.depthwise);
            // the vector blocks that waste the fewest lanes (the most of them on a tie)
            p.vector_blocks = most;
            if (!p.depthwise) {
                i64 least_waste = -1;
                for (int nb = most; nb >= 1; --nb) {
                    const i64 block = static_cast<i64>(nb) * p.lanes, waste = (lanes_total + block - 1) / block * block - lanes_total;
                    if (least_waste < 0 || waste < least_waste) least_waste = waste, p.vector_blocks = nb;
                }
            }
            p.tile_rows = wide ? detail::avx512::backward_tile_rows(p.depthwise, p.vector_blocks)
                               : detail::avx2::backward_tile_rows(p.depthwise, p.vector_blocks);
        }
        const i64 block = static_cast<i64>(p.vector_blocks) * p.lanes;
        p.lane_blocks = (lanes_total + block - 1) / block;
        // A 1x1 layer without padding read in place with AVX2 whose pixels of x are a multiple of 4 KB apart, or of
        // diff_dst read in place a multiple of 2 KB: a block's pixels of it lie in 1 (2) of L1's 64 sets, 8 (16)
        // lines, far fewer than a tile reads again for each lane block, so every pass refetched them. Each tile's x
        // is packed once a block instead ([pixel][R], read from L1 by every lane block), and diff_dst is packed
        // (bench/results/avx2.md, Zen 3: res4_1x1_reduce, x 4 KB a pixel, 2.2-2.6x at batch 8; res3_1x1_512,
        // diff_dst 2 KB, 1.4x). x 2 KB a pixel (res5_1x1_2048) lost 9 %, 1 KB (res2_1x1_reduce, res4_1x1_1024)
        // up to 20 %: there the tiles read x in place. With AVX-512 (not measured) they read it in place as before.
        bool unpadded_1x1 = g.taps() == 1;
        for (int a = 0; a < 3; ++a) unpadded_1x1 = unpadded_1x1 && g.padded[a] == g.in[a];
        const bool dy_whole_near = !p.depthwise && g.out_per_group % block == 0 && g.out_channels <= 512;
        p.x_packed_per_tile = !p.depthwise && path == Path::blocked_avx2 && unpadded_1x1 &&
                              (g.stride[2] * g.channel_stride % 1024 == 0 || (dy_whole_near && g.out_channels % 512 == 0));
        // Likewise a kernel of several taps with AVX2 whose pixels of x along the width (S * Cs floats) and of diff_dst
        // (O floats) are each a multiple of 1 KB apart: a tile's K pixels of each stream lie in 4 or fewer of L1's 64
        // sets, and each lane block's pass over them refetched both from L2. Every tile's x is packed a block at a
        // time and diff_dst too (bench/results/avx2.md, Zen 3: res5_3x3s2, x 4 KB and diff_dst 2 KB a pixel, 1.9-2.2x;
        // res5_3x3 (2 KB, 2 KB) 1.1-1.7x; res4_3x3s2 (2 KB, 1 KB) and res4_3x3 (1 KB, 1 KB) 1.0-1.2x; where diff_dst
        // is 512 B a pixel, res3_3x3s2 and res3_3x3 lost up to 10 and 27 %).
        p.x_packed = !p.depthwise && path == Path::blocked_avx2 && g.taps() > 1 &&
                     g.stride[2] * g.channel_stride % 256 == 0 && g.out_channels % 256 == 0;
        // diff_dst read in place when every lane block is whole and its pixels are at most 2 KB apart (the
        // L1 stride prefetcher's reach), else packed per block (backward_weights_kernels.inl)
        p.dy_direct = dy_whole_near && !p.x_packed_per_tile && !p.x_packed;
        p.tiles = (rows_total + p.tile_rows - 1) / p.tile_rows;
        // an item's slice of the gradient (its tiles x every lane block) stays within kSliceFloats (L2):
        // the item reads each pixel of the inputs once, the partial sums stay in cache
        p.tiles_per_item = std::clamp<i64>(kSliceFloats / (p.lane_blocks * block * p.tile_rows), 1, p.tiles);
        p.lane_blocks_per_item = p.lane_blocks;
        // A 1x1 layer's tiles read the input in place, so that only its diff_dst panels are packed, by
        // every item again: there the items split the lane blocks instead (each packs its own), every
        // tile in each, if one lane block of every tile fits the slice
        // (the gradient's rows, not the tiles' rounded up: res4_1x1_reduce's 1024 rows make 171 tiles of 6, 1026 rows,
        // whose 64 lanes passed the slice by 0.2 % and took 5 items of every lane block, each reading diff_dst again:
        // Zen 4, seven alternating pairs, faster in six at each thread count, minima 7.91 -> 7.82 ms at 1 thread,
        // 3.89 -> 3.73 at 2)
        const i64 all_tiles = rows_total * block;
        if (!p.depthwise && path != Path::scalar && g.taps() == 1 && all_tiles <= kSliceFloats) {
            p.tiles_per_item = p.tiles;
            p.lane_blocks_per_item = std::clamp<i64>(kSliceFloats / all_tiles, 1, p.lane_blocks);
            // (when the parts alone still give two tasks)
            if (!p.dy_direct && p.output_rows() * g.out[2] >= 2 * detail::kPartPixels)
                p.lane_blocks_per_item = std::clamp<i64>(kWholeRowSliceFloats / all_tiles, 1, p.lane_blocks);
        }
        // The general and the portable kernels read the padded input (the user's src when it has no
        // padding and is f32 channels last); the depthwise kernel pads implicitly, so it takes any f32
        // channels-last src as it is.
        src_in_place = p.depthwise && path != Path::scalar ? desc.dtype == DataType::f32 && desc.data_format == DataFormat::nxc
                                                           : detail::src_is_xp(desc, g);
        // The vector general kernels read a padded f32 channels-last src without the padded copy when
        // their tiles mostly span one tap (32 input channels or more) and no pad is a crop (res2_3x3:
        // the copy was 4 % of its time, res3_3x3s2 7 %)
        bool crops = false;
        for (int a = 0; a < 3; ++a) crops = crops || g.pad_begin[a] < 0 || g.pad_end[a] < 0;
        p.x_unpadded = !src_in_place && !p.depthwise && path != Path::scalar && desc.dtype == DataType::f32 &&
                       desc.data_format == DataFormat::nxc && g.channel_stride == g.in_channels && g.in_per_group >= 32 && !crops;
        if (p.x_unpadded) {
            src_in_place = true;
            detail::Geometry unpadded = g;
            for (int a = 0; a < 3; ++a) unpadded.padded[a] = g.in[a];
            taps = detail::tap_offsets(unpadded);
            p.tap_offsets = taps.data();
        }
        dy_in_place = detail::src_is_xp(dy_desc, dy_geometry);
        packed_geometry = g;
        for (int a = 0; a < 3; ++a) packed_geometry.in[a] = g.padded[a], packed_geometry.pad_begin[a] = packed_geometry.pad_end[a] = 0;
        p.x_geometry = src_in_place ? &geometry : &packed_geometry;
        if (p.depthwise && path != Path::scalar) {
            // Depthwise diff_dst and x read where they are, not packed, when no vector load goes past
            // their last element (C a multiple of the vector: a last lane block of one vector is read by
            // the one-vector tile; for x the tiles read zeros outside its columns, pads and crops alike):
            // with AVX-512 always (sixth pass, batch 8:
            // dw32_112 2.1-2.3 -> 1.0 ms, dw96_112s2 3.4-4.4 -> 2.2-2.7, dw576_14 0.56-0.58 -> 0.45-0.48),
            // with AVX2 when the packed rows would be copies (C one lane block), when the width stride is 1
            // (measured on a Zen 3, batch 1 / 8, 1 thread: dw576_14 0.059-0.090 -> 0.045-0.048 and 0.50-0.76
            // -> 0.37-0.39 ms, dw960_7 0.035 -> 0.019 and 0.27 -> 0.17, dw32_112 0.20-0.28 -> 0.16-0.17), and
            // diff_dst with many channels (packing them was slower there than reading them strided: 576
            // channels 0.65 -> 0.58 ms); with a width stride packing stays ahead (dw96_112s2 at batch 8, x and
            // diff_dst in place: 6.1-7.7 ms against 6.2-6.9)
            const detail::Geometry& xg = *p.x_geometry;
            const i64 C = g.out_channels;
            const bool whole = C % p.lanes == 0, wide = path == Path::blocked_avx512, unstrided = g.stride[2] == 1;
            p.depthwise_dy_direct = whole && (wide || C == block || C >= 256 || unstrided);
            p.depthwise_x_direct = whole && (wide || C == block || unstrided);
            // a row of zeros for a tap in the padding: a packed row's, or (x in place) one of x's rows
            const i64 width = p.depthwise_x_direct ? std::max(g.padded[2], xg.in[2]) : g.padded[2];
            zeros.assign(static_cast<std::size_t>((width + 1) * std::max(block, p.depthwise_x_direct ? C : 0) +
                                                  detail::kBackwardSlackFloats),
                         0.0f);
        }
        p.zeros = zeros.data();
        weights_direct = !p.depthwise && path != Path::scalar && desc.dtype == DataType::f32 &&
                         desc.filter_format == FilterFormat::xio && g.groups == 1;
        p.bias_at = desc.has_bias ? g.groups * g.taps() * g.in_per_group * g.out_per_group : -1;
        p.rows_per_block = std::max<i64>(1, 128 / g.out[2]);
        // depthwise: the packed rows stay in L2 (many channels: fewer rows per block)
        while (p.depthwise && p.rows_per_block > 1 && p.scratch_floats() > kDepthwiseScratchFloats) --p.rows_per_block;
        // parts: the layer's only (the order of every sum); then the items cut for the thread count
        // (backward_weights_split.hpp)
        parts = detail::backward_weights_parts(p);
        detail::split_for_threads(p, lanes_split(), parts, threads);
        // the general kernel's blocks of pixels, from the item's lanes once the items are cut (the depthwise
        // kernel's blocks are rows_per_block)
        if (!p.depthwise)
            p.block_pixels = block_pixels_general(p.lane_blocks_per_item * block, (p.output_rows() + parts - 1) / parts * g.out[2]);
    }

    void run(const void* src, const void* diff_dst, void* diff_weights, void* diff_bias) const {
        const detail::Geometry& g = geometry;
        // Inputs not read in place (plan_problem) are widened by the edges into workspaces with
        // kBackwardSlackFloats of zeros after the last element.
        const i64 slack = detail::kBackwardSlackFloats;
        detail::Workspace<float> xp, dy;
        const float* x = static_cast<const float*>(src);
        const float* y = static_cast<const float*>(diff_dst);
        if (!src_in_place) {
            const i64 size = g.batch * g.padded_pixels() * g.channel_stride;
            xp = inputs.take(static_cast<std::size_t>(size + slack));
            float* to = xp.data();
            std::fill(to + size, to + size + slack, 0.0f);
            parallel(detail::pack_src_task_count(desc, g), [&](i64 b, i64 e) { detail::pack_src_tasks(desc, g, src, to, b, e); });
            x = to;
        }
        if (!dy_in_place) {
            const i64 size = dy_geometry.batch * dy_geometry.padded_pixels() * dy_geometry.channel_stride;
            dy = diffs.take(static_cast<std::size_t>(size + slack));
            float* to = dy.data();
            std::fill(to + size, to + size + slack, 0.0f);
            parallel(detail::pack_src_task_count(dy_desc, dy_geometry),
                     [&](i64 b, i64 e) { detail::pack_src_tasks(dy_desc, dy_geometry, diff_dst, to, b, e); });
            y = to;
        }
        // per part: the weights' sums, then the bias's (problem.bias_at); with weights_direct and one part
        // the kernels write diff_weights itself and the workspace holds the bias' sums only
        const i64 weights = g.groups * g.taps() * g.in_per_group * g.out_per_group;
        const i64 gradient = weights + (desc.has_bias ? g.out_channels : 0);
        const bool alone = weights_direct && parts == 1;
        float* user = weights_direct ? static_cast<float*>(diff_weights) : nullptr;
        detail::Workspace<float> sum = sums.take(static_cast<std::size_t>(std::max<i64>(1, alone ? gradient - weights : gradient * parts)));
        float* dw = sum.data();
        float* bias_sums = alone ? dw : dw + (desc.has_bias ? problem.bias_at : 0);
        const i64 items = problem.work_items(), rows = problem.output_rows();
        parallel(items * parts, [&](i64 b, i64 e) {
            detail::Workspace<float> panels = scratch_floats.take(static_cast<std::size_t>(problem.scratch_floats()));
            detail::Workspace<i64> offsets = scratch_offsets.take(static_cast<std::size_t>(problem.scratch_offsets()));
            // the tasks of [b, e) part by part, each part's items as one range (the depthwise kernel walks
            // consecutive lane chunks as one)
            for (i64 task = b, next; task < e; task = next) {
                const i64 part = task / items, item = task % items;
                next = std::min(e, (part + 1) * items);
                const i64 item_end = item + (next - task);
                const i64 row_begin = rows * part / parts, row_end = rows * (part + 1) / parts;
                float* out = alone ? user : dw + part * gradient;
                float* bias = alone ? bias_sums : bias_sums + part * gradient;
                if (path == Path::blocked_avx512)
                    detail::avx512::backward_weights_items(problem, x, y, out, bias, row_begin, row_end, item, item_end,
                                                           panels.data(), offsets.data());
                else if (path == Path::blocked_avx2)
                    detail::avx2::backward_weights_items(problem, x, y, out, bias, row_begin, row_end, item, item_end,
                                                         panels.data(), offsets.data());
                else
                    detail::backward_weights_items_scalar(problem, x, y, out, row_begin, row_end, item, item_end);
            }
        }, one_range_per_thread());
        if (parts > 1)  // the parts in part order, into part 0 (the weights' into diff_weights with weights_direct)
            parallel((gradient + 1023) / 1024, [&](i64 b, i64 e) {
                const i64 begin = b * 1024, end = std::min(e * 1024, gradient);
                const auto add = [&](i64 from, i64 to, float* into) {
                    if (from >= to) return;
                    if (path == Path::blocked_avx512) return detail::avx512::backward_add_parts(dw, gradient, parts, from, to, into);
                    if (path == Path::blocked_avx2) return detail::avx2::backward_add_parts(dw, gradient, parts, from, to, into);
                    for (i64 part = 1; part < parts; ++part)  // per element: part 0 + part 1 + ... in order
                        for (i64 i = from; i < to; ++i) into[i] += dw[part * gradient + i];
                };
                if (weights_direct) {
                    add(begin, std::min(end, weights), user);
                    add(std::max(begin, weights), end, dw);
                } else {
                    add(begin, end, dw);
                }
            });
        if (problem.depthwise && desc.dtype == DataType::f32 && desc.filter_format != FilterFormat::oix)
            // dw [taps][C] is XIO's own order: one copy (per element through store_rounded, with a task per
            // tap, it took a third of dw576_14's time at batch 1)
            std::memcpy(diff_weights, dw, static_cast<std::size_t>(g.taps() * g.out_channels) * sizeof(float));
        else if (problem.depthwise)  // dw [taps][C] (G = C, ICg = OCg = 1): task t
            parallel(g.taps(), [&](i64 b, i64 e) {
                const i64 C = g.out_channels, taps = g.taps();
                for (i64 t = b; t < e; ++t)
                    for (i64 c = 0; c < C; ++c)
                        detail::store_rounded(diff_weights, desc.dtype, desc.filter_format == FilterFormat::oix ? c * taps + t : t * C + c,
                                              dw[t * C + c]);
            });
        else if (!weights_direct)
            parallel(detail::store_weights_task_count(desc, g), [&](i64 b, i64 e) { detail::store_weights(desc, g, dw, diff_weights, b, e); });
        if (desc.has_bias && desc.dtype == DataType::f32)
            std::memcpy(diff_bias, bias_sums, static_cast<std::size_t>(g.out_channels) * sizeof(float));
        else if (desc.has_bias)
            for (i64 o = 0; o < g.out_channels; ++o) detail::store_rounded(diff_bias, desc.dtype, o, bias_sums[o]);
    }
};

BackwardWeightsPlan::BackwardWeightsPlan(const ConvDescriptor& d, Options options) : impl_(std::make_unique<Impl>()) {
    validate(d);
    ConvDescriptor checked = d;
    checked.pass = Pass::backward_weights;
    if (const std::string why = why_backward_unsupported(checked); !why.empty())
        throw ConvError("backward weights", to_string(d), why);
    if (options.threads < 0)
        throw ConvError("threads", std::to_string(options.threads), "must be 0 (TBB's default) or positive");
    if (const std::string why = why_backward_unavailable(checked, options.forced_path); !why.empty())
        throw ConvError("path", std::string(to_string(options.forced_path)), why);
    Impl& m = *impl_;
    m.desc = d;
    m.dy_desc = diff_dst_as_input(d);
    m.geometry = detail::make_geometry(d, 1);
    m.dy_geometry = detail::make_geometry(m.dy_desc, 1);
    m.taps = detail::tap_offsets(m.geometry);
    m.path = options.forced_path == Path::automatic ? automatic_path() : options.forced_path;
    m.threads = options.threads > 0 ? options.threads : std::max(1, tbb::this_task_arena::max_concurrency());
    m.plan_problem();
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

BackwardWeightsPlan::~BackwardWeightsPlan() = default;
BackwardWeightsPlan::BackwardWeightsPlan(BackwardWeightsPlan&&) noexcept = default;
BackwardWeightsPlan& BackwardWeightsPlan::operator=(BackwardWeightsPlan&&) noexcept = default;

void BackwardWeightsPlan::execute(const void* src, const void* diff_dst, void* diff_weights, void* diff_bias) const {
    if (src == nullptr || diff_dst == nullptr || diff_weights == nullptr || (impl_->desc.has_bias && diff_bias == nullptr))
        throw ConvError("buffers", "null", "src, diff_dst and diff_weights must not be null, nor diff_bias with bias=1");
    if (impl_->arena)
        detail::arena_execute_joined(*impl_->arena, [&] { impl_->run(src, diff_dst, diff_weights, diff_bias); });
    else
        impl_->run(src, diff_dst, diff_weights, diff_bias);
}

std::string BackwardWeightsPlan::implementation() const {
    const Impl& m = *impl_;
    const std::string isa = m.path == Path::blocked_avx512 ? "avx512" : m.path == Path::blocked_avx2 ? "avx2" : "scalar";
    return std::string("bwd_weights_") + (m.problem.depthwise ? "depthwise_" : "") + isa +
           (m.parts > 1 ? " parts=" + std::to_string(m.parts) : "");
}

Decomposition BackwardWeightsPlan::decomposition() const {
    const Impl& m = *impl_;
    Decomposition d = detail::backward_weights_decomposition(m.problem, m.lanes_split(), m.parts, m.threads);
    d.one_range_per_thread = m.one_range_per_thread();
    return d;
}

}  // namespace convcheck::optimized
